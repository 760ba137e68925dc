import { spawnSync } from 'node:child_process';
import { METHODS } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { z } from 'zod';
import { buildOpenApiDocument, openApiPath } from '../src/http/openapi/document';
import { OPERATIONS, PROXY_METHODS } from '../src/http/openapi/operations';
import { DOCS_CSP } from '../src/http/pages/docs-page';
import { createApplicationSchema } from '../src/http/schemas/application.schemas';
import { createTokenSchema } from '../src/http/schemas/token.schemas';
import { as, type Harness, harness, privateKey } from './harness';

/** What the document holds, as far as these tests read it. */
interface Doc {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly schemas: Record<string, unknown>; readonly responses: Record<string, Answer> };
}
interface Operation {
  readonly operationId: string;
  readonly description?: string;
  readonly security: ReadonlyArray<Record<string, string[]>>;
  readonly parameters?: ReadonlyArray<{ name: string; in: string; required: boolean; schema: unknown; description: string } | { $ref: string }>;
  readonly requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string }; example?: unknown }> };
  readonly responses: Record<string, Answer | { $ref: string }>;
}
interface Answer {
  readonly description: string;
  readonly content?: Record<string, { schema: unknown }>;
}

/** Every route the router holds, as `METHOD path` (`ALL` for a route that takes every method). */
function servedRoutes(app: Harness['app']): string[] {
  interface Layer {
    readonly route?: { readonly path: string; readonly methods: Record<string, boolean> };
    readonly handle?: { readonly stack?: unknown };
  }
  const stack = (app.router as unknown as { stack: Layer[] }).stack;
  // A nested router would hide its routes from this walk: every route hangs on the app itself (see app.ts).
  expect(stack.filter((layer) => !layer.route && layer.handle?.stack !== undefined)).toEqual([]);
  return stack
    .filter((layer) => layer.route)
    .flatMap((layer) => {
      const methods = Object.keys(layer.route!.methods);
      // router.all() registers the route for every method Node knows.
      if (METHODS.every((m) => methods.includes(m.toLowerCase()))) return [`ALL ${layer.route!.path}`];
      return methods.map((m) => `${m.toUpperCase()} ${layer.route!.path}`);
    });
}

/** A zod schema for a JSON Schema of the document, its `#/components/schemas` references resolved. */
function checker(doc: Doc, schema: unknown): z.ZodType {
  const text = JSON.stringify({ $defs: doc.components.schemas, ...(schema as object) }).replaceAll('#/components/schemas/', '#/$defs/');
  return z.fromJSONSchema(JSON.parse(text) as Parameters<typeof z.fromJSONSchema>[0]);
}

/** The schema the document gives the answer of `method path` with `status`, of `type`. */
function answerSchema(doc: Doc, method: string, path: string, status: number, type = 'application/json'): unknown {
  const operation = doc.paths[path]?.[method];
  if (!operation) throw new Error(`the document has no ${method} ${path}`);
  let answer = operation.responses[String(status)];
  if (answer && '$ref' in answer) answer = doc.components.responses[answer.$ref.split('/').pop()!];
  const schema = (answer as Answer | undefined)?.content?.[type]?.schema;
  if (schema === undefined) throw new Error(`the document has no ${type} ${status} answer for ${method} ${path}`);
  return schema;
}

/** Validates with @seriousme/openapi-schema-validator, in a node process of its own (it is ESM only). */
function validateOpenApi(text: string): { valid: boolean; version: string; errors: unknown } {
  const run = spawnSync(process.execPath, [join(__dirname, 'validate-openapi.mjs')], { input: text, cwd: __dirname, encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`the validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { valid: boolean; version: string; errors: unknown };
}

describe('GET /openapi.json', () => {
  let h: Harness;
  let doc: Doc;
  let text: string;

  beforeAll(async () => {
    // With metrics on, so that GET /metrics is among the routes.
    h = await harness({ SVC_METRICS: '1' });
    const res = await request(h.app).get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    text = res.text;
    doc = JSON.parse(text) as Doc;
  });

  it('is served without a key, as the document the table builds', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('describes every route the app serves, and no route it does not serve', () => {
    const served = servedRoutes(h.app);
    const described = Object.keys(OPERATIONS);
    expect({ undescribed: served.filter((route) => !described.includes(route)), unserved: described.filter((route) => !served.includes(route)) }).toEqual({
      undescribed: [],
      unserved: [],
    });
    // About sixty: the count moves as routes are added, and each must be described.
    expect(served.length).toBeGreaterThanOrEqual(59);
    for (const route of served) {
      const [method, path] = route.split(' ') as [string, string];
      const item = doc.paths[openApiPath(path)];
      const methods = method === 'ALL' ? [...PROXY_METHODS] : [method.toLowerCase()];
      for (const m of methods) expect({ route, m, documented: item?.[m] !== undefined }).toEqual({ route, m, documented: true });
    }
  });

  it('fails the build of the document when a route or a parameter lacks its description', () => {
    const { 'GET /tokens/:id': op } = OPERATIONS;
    expect(() => buildOpenApiDocument({ 'GET /tokens/:id': { ...op!, path: {} } })).toThrow('path parameter id has no description');
    const list = OPERATIONS['GET /tokens']!;
    expect(() => buildOpenApiDocument({ 'GET /tokens': { ...list, queryNotes: {} } })).toThrow('query parameter id has no description');
  });

  it('passes the OpenAPI 3.1 schema validator', () => {
    expect(validateOpenApi(text)).toEqual({ valid: true, version: '3.1', errors: null });
  });

  it('shows path parameters in OpenAPI form, the proxy wildcard as {path}', () => {
    expect(doc.paths['/applications/{id}/keys/{key_id}']?.get?.parameters?.slice(0, 2)).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
      expect.objectContaining({ name: 'key_id', in: 'path', required: true }),
    ]);
    const proxy = doc.paths['/proxy/{path}']!;
    expect(Object.keys(proxy).sort()).toEqual(['delete', 'get', 'patch', 'post', 'put']);
    expect(proxy.post!.parameters![0]).toEqual(expect.objectContaining({ name: 'path', in: 'path' }));
    expect(proxy.post!.description).toContain('/proxy/*path');
    expect(doc.paths['/proxy']?.get?.security).toEqual(expect.arrayContaining([{ SvcProxyKey: [] }, { SvcProxyKey: [], SvcApiKey: [] }, { SvcApiKey: [] }]));
  });

  it('generates request bodies from the zod schemas the routes validate with (their input side)', () => {
    const { $schema: _dialect, ...createToken } = z.toJSONSchema(createTokenSchema, { io: 'input' });
    expect(doc.components.schemas.CreateToken).toEqual(createToken);
    const body = doc.paths['/tokens']!.post!.requestBody!;
    expect(body).toEqual(expect.objectContaining({ required: true, content: { 'application/json': expect.objectContaining({ schema: { $ref: '#/components/schemas/CreateToken' } }) } }));
    // Shared rules are one component, referenced from applications and sessions.
    expect(JSON.stringify(doc.components.schemas.CreateApplication)).toContain('#/components/schemas/AccessRuleInput');
    expect(Object.keys(doc.paths['/tokens/{id}']!.patch!.requestBody!.content)).toEqual(['application/merge-patch+json']);
    expect(Object.keys(doc.paths['/proxies/{id}']!.patch!.requestBody!.content)).toEqual(['application/merge-patch+json', 'application/json']);
    expect(Object.keys(doc.paths['/invitations/accept']!.post!.requestBody!.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
  });

  it('names the keys each route takes, and none for the routes that take none', () => {
    expect(doc.paths['/tokens']!.post!.security).toEqual([{ SvcApiKey: [] }, { BtApiKey: [] }]);
    for (const path of ['/openapi.json', '/docs', '/console', '/healthz', '/readyz', '/invitations/accept']) expect(doc.paths[path]!.get!.security).toEqual([]);
    expect(doc.paths['/tokens']!.post!.description).toContain('`token:create`');
  });

  it('answers problems as problem+json with the Problem schema, their types those of problem.ts', async () => {
    const get = doc.paths['/tokens/{id}']!.get!;
    expect(Object.keys(get.responses)).toEqual(['200', '401', '403', '404', '429', '500']);
    expect(doc.components.responses.NotFound!.content!['application/problem+json']).toEqual(
      expect.objectContaining({ schema: { $ref: '#/components/schemas/Problem' }, example: expect.objectContaining({ type: 'https://svc.dev/errors/not-found', status: 404 }) }),
    );
    // A real 404 and a real 400 match the Problem schema.
    const api = as(h.app, h.key);
    const missing = await api.get('/applications/00000000-0000-4000-8000-000000000000').expect(404);
    expect(checker(doc, answerSchema(doc, 'get', '/applications/{id}', 404, 'application/problem+json')).safeParse(missing.body).error).toBeUndefined();
    const invalid = await api.post('/applications').send({ type: 'private' }).expect(400);
    expect(checker(doc, answerSchema(doc, 'post', '/applications', 400, 'application/problem+json')).safeParse(invalid.body).error).toBeUndefined();
    // Writes take an idempotency key, and may answer its problems.
    expect(doc.paths['/tokens']!.post!.parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }]);
    expect(Object.keys(doc.paths['/tokens']!.post!.responses)).toEqual(expect.arrayContaining(['400', '409', '413', '415', '422']));
  });

  describe('requests the document allows are the requests the routes accept', () => {
    let api: ReturnType<typeof as>;

    beforeAll(async () => {
      api = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:search', 'token:intent:create'));
    });

    /** Every operation's request body example, by `METHOD path`. */
    const examples = () =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).flatMap(([method, op]) =>
          Object.entries(op.requestBody?.content ?? {})
            .filter(([, media]) => media.example !== undefined)
            .map(([type, media]) => ({ route: `${method.toUpperCase()} ${path}`, type, schema: media.schema, example: media.example })),
        ),
      );

    it('every example body is valid by its schema', () => {
      const all = examples();
      expect(all.length).toBeGreaterThanOrEqual(15);
      for (const { route, type, schema, example } of all) {
        expect({ route, type, error: checker(doc, schema).safeParse(example).error?.issues }).toEqual({ route, type, error: undefined });
      }
    });

    const exampleOf = (method: string, path: string): object => {
      const op = doc.paths[path]![method]!;
      return Object.values(op.requestBody!.content)[0]!.example as object;
    };

    it('the routes take the example bodies', async () => {
      const token = await api.post('/tokens').send(exampleOf('post', '/tokens')).expect(201);
      await api.post('/tokens/search').send(exampleOf('post', '/tokens/search')).expect(200);
      await api.patch(`/tokens/${token.body.id}`).set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(exampleOf('patch', '/tokens/{id}'))).expect(200);
      await api.post('/token-intents').send(exampleOf('post', '/token-intents')).expect(201);
      await api.post('/tokenize').send(exampleOf('post', '/tokenize')).expect(201);
      const mgt = as(h.app, h.key);
      await mgt.post('/applications').send(exampleOf('post', '/applications')).expect(201);
      const hook = await mgt.post('/webhooks').send(exampleOf('post', '/webhooks')).expect(201);
      await mgt.put(`/webhooks/${hook.body.id}`).send(exampleOf('put', '/webhooks/{id}')).expect(200);
      const proxy = await mgt.post('/proxies').send(exampleOf('post', '/proxies')).expect(201);
      await mgt.patch(`/proxies/${proxy.body.id}`).set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(exampleOf('patch', '/proxies/{id}'))).expect(200);
      await mgt.post('/tenants/self/invitations').send(exampleOf('post', '/tenants/self/invitations')).expect(201);
    });

    it('a body the document refuses, the route refuses too, naming the same field', async () => {
      const createToken = checker(doc, doc.paths['/tokens']!.post!.requestBody!.content['application/json']!.schema);
      const colour = { type: 'token', data: 'x', colour: 'red' };
      expect(createToken.safeParse(colour).success).toBe(false);
      expect((await api.post('/tokens').send(colour).expect(400)).body.errors).toEqual({ colour: ['Unknown field.'] });
      const wrongType = { type: 'token', data: 'x', containers: '/general/' };
      expect(createToken.safeParse(wrongType).success).toBe(false);
      expect(Object.keys((await api.post('/tokens').send(wrongType).expect(400)).body.errors)).toEqual(['containers']);

      const createApplication = checker(doc, doc.paths['/applications']!.post!.requestBody!.content['application/json']!.schema);
      expect((doc.components.schemas.CreateApplication as { required: string[] }).required).toEqual(['name', 'type']);
      expect(createApplication.safeParse({ type: 'private' }).success).toBe(false);
      const refused = await as(h.app, h.key).post('/applications').send({ type: 'private' }).expect(400);
      expect(Object.keys(refused.body.errors)).toEqual(['name']);
      // null stands for absent where the zod schema says so (optional()), in the document and at the route.
      const withNulls = { name: 'n', type: 'private', permissions: ['token:read'], rules: null, expires_at: null };
      expect(createApplication.safeParse(withNulls).success).toBe(true);
      expect(createApplicationSchema.safeParse(withNulls).success).toBe(true);
      await as(h.app, h.key).post('/applications').send(withNulls).expect(201);
    });

    it('a query parameter the document refuses, the route refuses too', async () => {
      const size = doc.paths['/tokens']!.get!.parameters!.find((p) => 'name' in p && p.name === 'size') as { schema: unknown };
      expect(checker(doc, size.schema).safeParse('ten').success).toBe(false);
      expect(checker(doc, size.schema).safeParse('10').success).toBe(true);
      expect(Object.keys((await api.get('/tokens?size=ten').expect(400)).body.errors)).toEqual(['size']);
      await api.get('/tokens?size=10').expect(200);
    });
  });

  describe('answers match the schemas the document gives them', () => {
    /** Checks a real answer against the document's schema for it. */
    const matches = (method: string, path: string, res: request.Response) => {
      const schema = answerSchema(doc, method, path, res.status);
      const error = checker(doc, schema).safeParse(res.body).error;
      expect({ route: `${method.toUpperCase()} ${path} ${res.status}`, issues: error?.issues }).toEqual({ route: `${method.toUpperCase()} ${path} ${res.status}`, issues: undefined });
    };

    it('for tokens and token intents', async () => {
      const api = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:search', 'token:intent:create', 'token:intent:read'));
      const made = await api
        .post('/tokens')
        .send({ type: 'token', data: { a: 1 }, mask: '{{ data | stringify }}', metadata: { a: 'b' }, search_indexes: ['{{ data.a }}'], expires_at: '2030-01-01T00:00:00Z' })
        .expect(201);
      matches('post', '/tokens', made);
      const card = await api.post('/tokens').send({ type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 } }).expect(201);
      matches('post', '/tokens', card);
      matches('get', '/tokens/{id}', await api.get(`/tokens/${made.body.id}`).expect(200));
      matches('get', '/tokens', await api.get('/tokens').expect(200));
      matches('post', '/tokens/search', await api.post('/tokens/search').send({ query: 'type:card_number' }).expect(200));
      matches('get', '/v2/tokens', await api.get('/v2/tokens?size=1').expect(200));
      matches('post', '/v2/tokens/search', await api.post('/v2/tokens/search').send({ size: 1 }).expect(200));
      // The schemas are strict: a field no presenter writes, or one missing, fails them.
      const token = checker(doc, answerSchema(doc, 'post', '/tokens', 201));
      expect(token.safeParse({ ...made.body, colour: 'red' }).success).toBe(false);
      const { id: _id, ...withoutId } = made.body as Record<string, unknown>;
      expect(token.safeParse(withoutId).success).toBe(false);
      expect(token.safeParse({ ...made.body, created_at: 'yesterday' }).success).toBe(false);
      const patched = await api.patch(`/tokens/${made.body.id}`).set('Content-Type', 'application/merge-patch+json').send('{"metadata":{"c":"d"}}').expect(200);
      matches('patch', '/tokens/{id}', patched);
      const intent = await api.post('/token-intents').send({ type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' } }).expect(201);
      matches('post', '/token-intents', intent);
      matches('get', '/token-intents/{id}', await api.get(`/token-intents/${intent.body.id}`).expect(200));
      const bank = await api.post('/token-intents').send({ type: 'bank', data: { routing_number: '021000021', account_number: '12345678' } }).expect(201);
      matches('post', '/token-intents', bank);
      // Deduplicated for a caller that may create but not read: the identity fields only.
      const blind = as(h.app, await privateKey(h, 'token:create'));
      const dedup = await blind.post('/tokens').send({ type: 'card_number', data: '4242424242424242', deduplicate_token: true }).expect(201);
      matches('post', '/tokens', dedup);
    });

    it('for applications, sessions, the tenant, its members and invitations, and permissions', async () => {
      const api = as(h.app, h.key);
      const app = await api
        .post('/applications')
        .send({ name: 'a', type: 'private', permissions: ['token:read'], rules: [{ description: 'r', priority: 1, container: '/', transform: 'mask', permissions: ['token:read'] }], expires_at: '2030-01-01T00:00:00Z' })
        .expect(201);
      matches('post', '/applications', app);
      matches('get', '/applications', await api.get('/applications').expect(200));
      matches('get', '/applications/{id}', await api.get(`/applications/${app.body.id}`).expect(200));
      matches('get', '/applications/key', await api.get('/applications/key').expect(200));
      matches('put', '/applications/{id}', await api.put(`/applications/${app.body.id}`).send({ name: 'b', permissions: ['token:read'] }).expect(200));
      matches('post', '/applications/{id}/regenerate', await api.post(`/applications/${app.body.id}/regenerate`).expect(200));
      const key = await api.post(`/applications/${app.body.id}/keys`).expect(201);
      matches('post', '/applications/{id}/keys', key);
      matches('get', '/applications/{id}/keys', await api.get(`/applications/${app.body.id}/keys`).expect(200));
      matches('get', '/applications/{id}/keys/{key_id}', await api.get(`/applications/${app.body.id}/keys/${key.body.id}`).expect(200));
      const pub = await api.post('/applications').send({ name: 'pub', type: 'public', permissions: ['session:create', 'token:create'] }).expect(201);
      matches('post', '/sessions', await request(h.app).post('/sessions').set('SVC-API-KEY', pub.body.key).expect(201));
      matches('get', '/tenants/self', await api.get('/tenants/self').expect(200));
      matches('get', '/tenants/self/members', await api.get('/tenants/self/members').expect(200));
      const invitation = await api.post('/tenants/self/invitations').send({ email: 'ada@example.com' }).expect(201);
      matches('post', '/tenants/self/invitations', invitation);
      matches('get', '/tenants/self/invitations', await api.get('/tenants/self/invitations').expect(200));
      matches('get', '/tenants/self/invitations/{id}', await api.get(`/tenants/self/invitations/${invitation.body.id}`).expect(200));
      matches('post', '/tenants/self/invitations/{id}/resend', await api.post(`/tenants/self/invitations/${invitation.body.id}/resend`).expect(200));
      const accepted = await request(h.app).post('/invitations/accept').send({ token: h.mailer.lastToken(), first_name: 'Ada' }).expect(201);
      matches('post', '/invitations/accept', accepted);
      matches('get', '/permissions', await api.get('/permissions').expect(200));
    });

    it('for webhooks, proxies, the audit log and the probes', async () => {
      const api = as(h.app, h.key);
      const hook = await api.post('/webhooks').send({ name: 'w', url: 'https://hooks.example.com/in', events: ['token.created'], notify_email: 'ops@example.com' }).expect(201);
      matches('post', '/webhooks', hook);
      matches('get', '/webhooks', await api.get('/webhooks').expect(200));
      matches('get', '/webhooks/{id}', await api.get(`/webhooks/${hook.body.id}`).expect(200));
      matches('get', '/webhooks/event-types', await api.get('/webhooks/event-types').expect(200));
      await as(h.app, await privateKey(h, 'token:create')).post('/tokens').send({ type: 'token', data: 'x' }).expect(201);
      const deliveries = await api.get(`/webhooks/${hook.body.id}/deliveries`).expect(200);
      expect(deliveries.body.data.length).toBeGreaterThan(0);
      matches('get', '/webhooks/{id}/deliveries', deliveries);
      const proxy = await api
        .post('/proxies')
        .send({
          name: 'p',
          destination_url: 'https://processor.example.com/v1',
          request_transforms: [{ type: 'append_header', name: 'Authorization', value: 'Bearer {{ configuration.KEY }}' }],
          response_transforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{12,19}', replacement: '*' }],
          configuration: { KEY: 'k' },
          timeout: 10,
        })
        .expect(201);
      matches('post', '/proxies', proxy);
      matches('get', '/proxies', await api.get('/proxies').expect(200));
      matches('get', '/proxies/{id}', await api.get(`/proxies/${proxy.body.id}`).expect(200));
      matches('put', '/proxies/{id}', await api.put(`/proxies/${proxy.body.id}`).send({ name: 'q', destination_url: 'https://processor.example.com/v2' }).expect(200));
      await h.settleAudit();
      const logs = await api.get('/logs').expect(200);
      expect(logs.body.data.length).toBeGreaterThan(0);
      matches('get', '/logs', logs);
      matches('get', '/logs/entity-types', await api.get('/logs/entity-types').expect(200));
      matches('get', '/healthz', await request(h.app).get('/healthz').expect(200));
      matches('get', '/readyz', await request(h.app).get('/readyz').expect(200));
    });
  });
});

describe('GET /docs', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await harness();
  });

  it('serves the page without a key, under a CSP that allows no inline script or style', async () => {
    const res = await request(h.app).get('/docs').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toBe(DOCS_CSP);
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'"]);
    expect(csp).not.toContain('unsafe');
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    // Nothing inline for the CSP to refuse: every script has a source, no style element or attribute, no handler.
    expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(res.text).not.toMatch(/<style|\sstyle=|\son\w+=/i);
    expect(res.text).not.toMatch(/https?:\/\//);
  });

  it('serves every file the page loads from svc itself, and its initializer points at /openapi.json', async () => {
    const page = (await request(h.app).get('/docs').expect(200)).text;
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources).toEqual([
      '/docs/assets/swagger-ui.css',
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/favicon-16x16.png',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/svc-docs.js',
    ]);
    const types = ['text/css; charset=utf-8', 'image/png', 'image/png', 'text/javascript; charset=utf-8', 'text/javascript; charset=utf-8'];
    for (const [i, source] of sources.entries()) {
      const res = await request(h.app).get(source).expect(200);
      expect({ source, type: res.headers['content-type'] }).toEqual({ source, type: types[i] });
    }
    const init = (await request(h.app).get('/docs/assets/svc-docs.js').expect(200)).text;
    expect(init).toContain("url: '/openapi.json'");
    expect(init).toContain('validatorUrl: null');
  });

  it('serves no other file of the package: its demo page, initializer and source maps are 404 problem+json', async () => {
    for (const path of ['/docs/assets/index.html', '/docs/assets/swagger-initializer.js', '/docs/assets/swagger-ui-bundle.js.map', '/docs/assets/package.json', '/docs/assets/', '/docs/assets/..%2Fpackage.json']) {
      const res = await request(h.app).get(path);
      expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({ path, status: 404, type: 'application/problem+json; charset=utf-8' });
    }
    // A method other than GET or HEAD passes by the files: 405 on the page, 404 on a file.
    expect((await request(h.app).post('/docs').send({})).status).toBe(405);
    expect((await request(h.app).delete('/docs/assets/swagger-ui.css')).status).toBe(404);
  });
});
