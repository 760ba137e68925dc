import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  BadGatewayError,
  ConflictError,
  ForbiddenError,
  GatewayTimeoutError,
  GoneError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
  UnprocessableError,
  ValidationError,
} from '@svc/core';
import { z } from 'zod';
import { HTTP_PROBLEMS, problemFor } from '../problem';
import { ANSWER_SCHEMAS, type JsonSchema, ref } from './answer-schemas';
import { type OperationDoc, OPERATIONS, PROXY_METHODS, SHARED_REQUEST_SCHEMAS } from './operations';

interface ProblemAnswer {
  readonly name: string;
  readonly kind: { readonly type: string; readonly title: string };
  readonly description: string;
  readonly headers?: Readonly<Record<string, unknown>>;
}

/** The problem type and title problem.ts gives a domain error. */
const kindOf = (error: Error) => {
  const problem = problemFor(error, '');
  if (!problem) throw new Error(`problem.ts has no problem for ${error.name}`);
  return { type: problem.type, title: problem.title };
};

/** Every problem status the API answers: type and title from problem.ts's own table, so they cannot disagree. */
const PROBLEMS: Readonly<Record<number, ProblemAnswer>> = {
  400: {
    name: 'BadRequest',
    kind: kindOf(new ValidationError({})),
    description: 'The request is malformed; `errors` names each offending field (body field, query or path parameter, header). Nothing was changed.',
  },
  401: { name: 'Unauthenticated', kind: kindOf(new UnauthenticatedError()), description: 'No API key, or one that is unknown, expired or revoked.' },
  403: {
    name: 'Forbidden',
    kind: kindOf(new ForbiddenError()),
    description: 'The key lacks the permission, or no access rule grants the operation (a session key before it is authorized gets 403 on everything).',
  },
  404: { name: 'NotFound', kind: kindOf(new NotFoundError('resource')), description: 'Absent. Another tenant\'s object answers exactly as an absent one.' },
  405: { name: 'MethodNotAllowed', kind: HTTP_PROBLEMS.methodNotAllowed, description: 'The method is not served here.' },
  409: {
    name: 'Conflict',
    kind: kindOf(new ConflictError('CONFLICT', '')),
    description: 'Clashes with existing state: a duplicate id, a nonce already used, a change over a stale version, or a request with this idempotency key still running.',
  },
  410: { name: 'Gone', kind: kindOf(new GoneError('GONE', '')), description: 'The link or secret once worked and no longer does.' },
  413: { name: 'PayloadTooLarge', kind: HTTP_PROBLEMS.payloadTooLarge, description: 'The body is over `SVC_BODY_LIMIT`.' },
  415: { name: 'UnsupportedMediaType', kind: HTTP_PROBLEMS.unsupportedMediaType, description: 'The body is not of a media type the route takes, or not UTF-8, or compressed.' },
  422: {
    name: 'Unprocessable',
    kind: kindOf(new UnprocessableError('UNPROCESSABLE', '')),
    description: 'A valid request the current state forbids: removing the OWNER member; an idempotency key reused with another request.',
  },
  429: {
    name: 'TooManyRequests',
    kind: HTTP_PROBLEMS.tooManyRequests,
    description: 'Over the key\'s rate limit (`SVC_RATE_LIMIT`, off by default): wait `Retry-After` seconds.',
    headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer', minimum: 1 } } },
  },
  500: { name: 'InternalError', kind: HTTP_PROBLEMS.internal, description: 'An unexpected error; the problem carries only `trace_id`.' },
  502: { name: 'BadGateway', kind: kindOf(new BadGatewayError('BAD_GATEWAY', '')), description: 'The destination gave no usable answer.' },
  503: { name: 'Unavailable', kind: kindOf(new UnavailableError('UNAVAILABLE', '')), description: 'A dependency (the mail server) failed; nothing was changed and the request can be retried.' },
  504: { name: 'GatewayTimeout', kind: kindOf(new GatewayTimeoutError('GATEWAY_TIMEOUT', '')), description: 'The destination did not answer in time.' },
};

const TAGS: ReadonlyArray<readonly [string, string]> = [
  ['Tokens', 'Sensitive values stored as tokens; their data shown as each caller\'s access rules allow.'],
  ['Bulk', 'Many tokens in one call, in any JSON shape (docs/bulk.md).'],
  ['Token intents', 'Card or bank data held for a day until a token is made from it.'],
  ['Applications', 'API-key holders: their type, permissions, access rules and keys.'],
  ['Sessions', 'Short-lived keys for browsers and mobile clients.'],
  ['Tenants', 'The caller\'s tenant, its members and invitations.'],
  ['Invitations', 'Accepting an invitation: the link\'s secret is the credential.'],
  ['Permissions', 'The permission catalogue.'],
  ['Webhooks', 'Events sent to the tenant\'s endpoints (docs/webhooks.md).'],
  ['Proxies', 'Pre-configured proxies (docs/proxy.md).'],
  ['Proxy', 'Requests passed on to third parties, detokenized on the way.'],
  ['Audit log', 'Who did what, and how it ended.'],
  ['Operations', 'Probes and metrics for whoever runs svc; no API key.'],
  ['Documentation', 'This document and its rendering; no key needed.'],
  ['Console', 'The operator console, a web page over this API; the page itself needs no key.'],
];

const DESCRIPTION = `svc, a self-hostable tokenization vault with a Basis Theory compatible API.

- **Keys**: send an application's or a session's key in \`SVC-API-KEY\` (or \`BT-API-KEY\`, so Basis Theory's SDKs work
  unchanged). Every operation is scoped to the key's tenant; another tenant's object answers exactly as an absent one.
- **Errors** are \`application/problem+json\` (RFC 9457); a 400 names each offending field in \`errors\`, and a 4xx
  changes nothing.
- **Tracing**: every answer carries \`SVC-TRACE-ID\` (the caller's own \`SVC-TRACE-ID\` or \`BT-TRACE-ID\` when well
  formed, else a new one); audit events carry it too.
- **Retries**: authenticated \`POST\`, \`PUT\` and \`PATCH\` take \`SVC-IDEMPOTENCY-KEY\` (docs/idempotency.md).
- The server itself answers a few problems outside these routes: 400 for requests its HTTP parser refuses, 408, 417,
  431, 501, and 503 while it shuts down (docs/operations.md).`;

const WRITE_METHODS = new Set(['post', 'put', 'patch']);

/** `/tokens/:id` → `/tokens/{id}`; the proxy's wildcard `/proxy/*path` → `/proxy/{path}`. */
export const openApiPath = (expressPath: string): string => expressPath.replace(/[:*](\w+)/g, '{$1}');

const pathParameters = (expressPath: string): string[] => [...expressPath.matchAll(/[:*](\w+)/g)].map((m) => m[1]!);

/** A JSON Schema that zod made, without the keywords that only make sense at a document's root. */
function embedded(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

const isZod = (schema: z.ZodType | JsonSchema): schema is z.ZodType => '_zod' in schema;

/** The request schemas, each once under its name, generated from the zod schemas' input side. */
class RequestSchemas {
  private readonly registry = z.registry<{ id: string }>();
  private readonly names = new Map<z.ZodType, string>();
  readonly plain: Record<string, JsonSchema> = {};

  add(schema: z.ZodType | JsonSchema, name: string): void {
    if (!isZod(schema)) {
      this.plain[name] = schema;
      return;
    }
    const known = this.names.get(schema);
    if (known === name) return;
    if (known !== undefined) throw new Error(`one request schema named both ${known} and ${name}`);
    this.names.set(schema, name);
    this.registry.add(schema, { id: name });
  }

  generate(): Record<string, JsonSchema> {
    const { schemas } = z.toJSONSchema(this.registry, { io: 'input', uri: (id) => `#/components/schemas/${id}` });
    const out: Record<string, JsonSchema> = { ...this.plain };
    for (const [name, schema] of Object.entries(schemas)) out[name] = embedded(schema as JsonSchema);
    return out;
  }
}

function security(op: OperationDoc): Array<Record<string, string[]>> {
  switch (op.credentials) {
    case 'none':
      return [];
    case 'key':
      return [{ SvcApiKey: [] }, { BtApiKey: [] }];
    case 'proxy':
      return [{ SvcProxyKey: [] }, { BtProxyKey: [] }, { SvcProxyKey: [], SvcApiKey: [] }, { SvcApiKey: [] }, { BtApiKey: [] }];
    case 'metrics':
      return [{}, { MetricsToken: [] }];
  }
}

/** The problems a route can answer: those its shape implies, and those its entry lists. */
function problemsOf(op: OperationDoc, method: string, expressPath: string): number[] {
  const statuses = new Set<number>([500, ...(op.problems ?? [])]);
  if (op.credentials === 'key') [401, 403, 429].forEach((s) => statuses.add(s));
  if (op.credentials === 'proxy') statuses.add(429);
  if (pathParameters(expressPath).length > 0) statuses.add(404);
  if (op.query) statuses.add(400);
  if (op.body) [400, 413, 415].forEach((s) => statuses.add(s));
  if (op.credentials === 'key' && WRITE_METHODS.has(method)) [400, 409, 422].forEach((s) => statuses.add(s));
  for (const status of Object.keys(op.answers).map(Number)) statuses.delete(status);
  return [...statuses].sort((a, b) => a - b);
}

function parameters(op: OperationDoc, method: string, expressPath: string): unknown[] {
  const out: unknown[] = [];
  for (const name of pathParameters(expressPath)) {
    const description = op.path?.[name];
    if (!description) throw new Error(`${expressPath}: path parameter ${name} has no description`);
    out.push({ name, in: 'path', required: true, description, schema: { type: 'string' } });
  }
  if (op.query) {
    const schema = z.toJSONSchema(op.query, { io: 'input' }) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const description = op.queryNotes?.[name];
      if (!description) throw new Error(`${expressPath}: query parameter ${name} has no description`);
      out.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, description, schema: property });
    }
  }
  for (const parameter of op.parameters ?? []) out.push({ ...parameter, required: parameter.required ?? false });
  if (op.credentials === 'key' && WRITE_METHODS.has(method)) out.push({ $ref: '#/components/parameters/IdempotencyKey' });
  return out;
}

const TRACE_HEADER = { 'SVC-TRACE-ID': { $ref: '#/components/headers/TraceId' } };

function answers(op: OperationDoc, method: string, expressPath: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(op.answers)) {
    const type = answer.type ?? 'application/json';
    const content = answer.schema !== undefined ? { [type]: { schema: answer.schema } } : answer.type ? { [type]: { schema: { type: 'string' } } } : undefined;
    out[status] = { description: answer.description, headers: TRACE_HEADER, ...(content ? { content } : {}) };
  }
  for (const status of problemsOf(op, method, expressPath)) {
    const problem = PROBLEMS[status];
    if (!problem) throw new Error(`${expressPath}: no problem answer for ${status}`);
    out[status] = { $ref: `#/components/responses/${problem.name}` };
  }
  return out;
}

function operation(op: OperationDoc, method: string, expressPath: string, requests: RequestSchemas, operationId: string): unknown {
  const permissions = op.permissions?.length ? `Permission: ${op.permissions.map((p) => `\`${p}\``).join(' or ')}.` : undefined;
  const description = [op.description, permissions].filter(Boolean).join('\n\n');
  let requestBody: unknown;
  if (op.body) {
    requests.add(op.body.schema, op.body.name);
    const example = op.body.example === undefined ? {} : { example: op.body.example };
    requestBody = {
      required: op.body.required,
      ...(op.body.description ? { description: op.body.description } : {}),
      content: Object.fromEntries(op.body.types.map((type) => [type, { schema: ref(op.body!.name), ...example }])),
    };
  }
  const params = parameters(op, method, expressPath);
  return {
    operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(description ? { description } : {}),
    security: security(op),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: answers(op, method, expressPath),
  };
}

function problemResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, problem] of Object.entries(PROBLEMS)) {
    out[problem.name] = {
      description: problem.description,
      headers: { ...TRACE_HEADER, ...problem.headers },
      content: { 'application/problem+json': { schema: ref('Problem'), example: { ...problem.kind, status: Number(status), detail: '…', instance: '/…' } } },
    };
  }
  return out;
}

/** The version of the HTTP package, read from its package.json (above src/ or dist/src/). */
function packageVersion(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@svc/http') return pkg.version ?? '0.0.0';
  }
  return '0.0.0';
}

/** Builds the document from the route table, the zod request schemas and the answer schemas. */
export function buildOpenApiDocument(operations: Readonly<Record<string, OperationDoc>> = OPERATIONS): Record<string, unknown> {
  const requests = new RequestSchemas();
  for (const [schema, name] of SHARED_REQUEST_SCHEMAS) requests.add(schema, name);
  const paths: Record<string, Record<string, unknown>> = {};
  const ids = new Set<string>();
  for (const [route, op] of Object.entries(operations)) {
    const [method, expressPath] = route.split(' ') as [string, string];
    const methods = method === 'ALL' ? PROXY_METHODS.map((m) => [m, `${op.id}${m[0]!.toUpperCase()}${m.slice(1)}`] as const) : [[method.toLowerCase(), op.id] as const];
    const item = (paths[openApiPath(expressPath)] ??= {});
    for (const [verb, id] of methods) {
      if (ids.has(id)) throw new Error(`operation id ${id} is used twice`);
      ids.add(id);
      item[verb] = operation(op, verb, expressPath, requests, id);
    }
  }
  const requestSchemas = requests.generate();
  for (const name of Object.keys(requestSchemas)) {
    if (name in ANSWER_SCHEMAS) throw new Error(`schema ${name} names both a request and an answer`);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc', version: packageVersion(), description: DESCRIPTION, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { ...ANSWER_SCHEMAS, ...requestSchemas },
      responses: problemResponses(),
      parameters: {
        IdempotencyKey: {
          name: 'SVC-IDEMPOTENCY-KEY',
          in: 'header',
          required: false,
          description: 'Makes a retry safe: the first 2xx answer is kept and replayed (`BT-IDEMPOTENCY-KEY` is read too; docs/idempotency.md).',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]+$' },
        },
      },
      headers: {
        TraceId: { description: 'The correlation id of the request, also in its log lines and audit events.', schema: { type: 'string' } },
      },
      securitySchemes: {
        SvcApiKey: { type: 'apiKey', in: 'header', name: 'SVC-API-KEY', description: 'An application\'s key, or a session\'s.' },
        BtApiKey: { type: 'apiKey', in: 'header', name: 'BT-API-KEY', description: 'The same key, under the name Basis Theory\'s SDKs send.' },
        SvcProxyKey: { type: 'apiKey', in: 'header', name: 'SVC-PROXY-KEY', description: 'A pre-configured proxy\'s key (`/proxy` only).' },
        BtProxyKey: { type: 'apiKey', in: 'header', name: 'BT-PROXY-KEY', description: 'The same proxy key, under Basis Theory\'s name.' },
        MetricsToken: { type: 'http', scheme: 'bearer', description: '`SVC_METRICS_TOKEN`, when set (`/metrics` only).' },
      },
    },
  };
}

let cached: string | undefined;

/** The document as JSON text, built once. */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return cached;
}
