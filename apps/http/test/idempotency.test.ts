import { type AddressInfo } from 'node:net';
import { createServer, request } from 'node:http';
import request0 from 'supertest';
import { BasisTheoryClient } from '@basis-theory/node-sdk';
import { as, harness, privateKey, type Harness } from './harness';

const VISA = '4242424242424242';
const card = { type: 'card', data: { number: VISA, expiration_month: 12, expiration_year: 2030 } };
const KEY = 'SVC-IDEMPOTENCY-KEY';

/** How many tokens the tenant holds, read with `reader`. */
async function tokenCount(h: Harness, reader: string): Promise<number> {
  return ((await as(h.app, reader).get('/tokens?size=100')).body.data as unknown[]).length;
}

/** Holds every token create until `release()`; `started` resolves when the first one is held. */
function holdCreates(h: Harness): { started: Promise<void>; release: () => void; restore: () => void } {
  const tokens = h.store.tokens;
  const create = tokens.create.bind(tokens);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const started = new Promise<void>((resolve) => (entered = resolve));
  tokens.create = async (...args) => {
    entered();
    await held;
    return create(...args);
  };
  return { started, release, restore: () => (tokens.create = create) };
}

describe('idempotency keys (beyond.md §4)', () => {
  let h: Harness;
  let key: string;
  beforeEach(async () => {
    h = await harness();
    key = await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:delete');
  });

  it('replays POST /tokens byte for byte with SVC-IDEMPOTENT-REPLAYED, and creates one token', async () => {
    const first = await as(h.app, key).post('/tokens').set(KEY, 'k-1').send(card);
    expect(first.status).toBe(201);
    expect(first.headers['svc-idempotent-replayed']).toBeUndefined();
    const second = await as(h.app, key).post('/tokens').set(KEY, 'k-1').send(card);
    expect(second.status).toBe(201);
    expect(second.headers['svc-idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.text).toBe(first.text);
    expect(await tokenCount(h, key)).toBe(1);
  });

  it('replays POST /tokenize, POST /applications and PATCH /tokens/{id} with one object created', async () => {
    const body = { a: card, b: 'plain' };
    const t1 = await as(h.app, key).post('/tokenize').set(KEY, 'bulk').send(body);
    const t2 = await as(h.app, key).post('/tokenize').set(KEY, 'bulk').send(body);
    expect(t1.status).toBe(201);
    expect(t2.text).toBe(t1.text);
    expect(await tokenCount(h, key)).toBe(2);

    const app = { name: 'one', type: 'private', permissions: ['token:read'] };
    const a1 = await as(h.app, h.key).post('/applications').set(KEY, 'app').send(app);
    const a2 = await as(h.app, h.key).post('/applications').set(KEY, 'app').send(app);
    expect(a1.status).toBe(201);
    expect(a2.text).toBe(a1.text);
    const apps = await as(h.app, h.key).get('/applications');
    expect((apps.body.data as Array<{ name: string }>).filter((x) => x.name === 'one')).toHaveLength(1);

    const id = t1.body.a.id as string;
    const patch = (k: string) => as(h.app, key).patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').set(KEY, k);
    const p1 = await patch('p').send({ metadata: { n: '1' } });
    expect(p1.status).toBe(200);
    const between = await patch('other').send({ metadata: { n: '2' } });
    expect(between.status).toBe(200);
    const p2 = await patch('p').send({ metadata: { n: '1' } });
    expect(p2.headers['svc-idempotent-replayed']).toBe('true');
    expect(p2.text).toBe(p1.text);
    expect((await as(h.app, key).get(`/tokens/${id}`)).body.metadata).toEqual({ n: '2' });
  });

  it('answers 422 naming the header for the same key with another body, path or method', async () => {
    expect((await as(h.app, key).post('/tokens').set(KEY, 'k').send(card)).status).toBe(201);
    const otherBody = await as(h.app, key).post('/tokens').set(KEY, 'k').send({ ...card, metadata: { a: 'b' } });
    expect(otherBody.status).toBe(422);
    expect(otherBody.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(otherBody.body.errors).toHaveProperty(KEY);
    expect((await as(h.app, key).post('/tokenize').set(KEY, 'k').send(card)).status).toBe(422);
    expect((await as(h.app, key).post('/tokens?x=1').set(KEY, 'k').send(card)).status).toBe(422);
    expect(await tokenCount(h, key)).toBe(1);
  });

  it('answers 409 while the first request with the key runs, then replays it', async () => {
    const hold = holdCreates(h);
    const first = as(h.app, key).post('/tokens').set(KEY, 'slow').send(card).then((r) => r);
    await hold.started;
    const duplicate = await as(h.app, key).post('/tokens').set(KEY, 'slow').send(card);
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors).toHaveProperty(KEY);
    hold.release();
    const done = await first;
    hold.restore();
    expect(done.status).toBe(201);
    const replay = await as(h.app, key).post('/tokens').set(KEY, 'slow').send(card);
    expect(replay.text).toBe(done.text);
    expect(await tokenCount(h, key)).toBe(1);
  });

  it('keeps no failure: the key is free for a retry', async () => {
    const bad = await as(h.app, key).post('/tokens').set(KEY, 'retry').send({ type: 'card', data: { number: '1' } });
    expect(bad.status).toBe(400);
    const good = await as(h.app, key).post('/tokens').set(KEY, 'retry').send(card);
    expect(good.status).toBe(201);
    expect(good.headers['svc-idempotent-replayed']).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['longer than 255', 'k'.repeat(256)],
    ['not printable', 'a\tb'],
  ])('answers 400 naming the header for a key that is %s', async (_name, value) => {
    const res = await as(h.app, key).post('/tokens').set(KEY, value).send(card);
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveProperty(KEY);
    expect(await tokenCount(h, key)).toBe(0);
  });

  it('accepts 255 printable characters, and the BT- alias (naming it in errors)', async () => {
    expect((await as(h.app, key).post('/tokens').set(KEY, '~'.repeat(255)).send(card)).status).toBe(201);
    const b1 = await as(h.app, key).post('/tokens').set('BT-IDEMPOTENCY-KEY', 'bt').send(card);
    const b2 = await as(h.app, key).post('/tokens').set('BT-IDEMPOTENCY-KEY', 'bt').send(card);
    expect(b2.headers['svc-idempotent-replayed']).toBe('true');
    expect(b2.text).toBe(b1.text);
    const reused = await as(h.app, key).post('/tokenize').set('BT-IDEMPOTENCY-KEY', 'bt').send(card);
    expect(reused.status).toBe(422);
    expect(reused.body.errors).toHaveProperty('BT-IDEMPOTENCY-KEY');
    expect(await tokenCount(h, key)).toBe(2);
  });

  it('ignores the key on GET and DELETE', async () => {
    const id = (await as(h.app, key).post('/tokens').send(card)).body.id as string;
    const g1 = await as(h.app, key).get(`/tokens/${id}`).set(KEY, '');
    expect(g1.status).toBe(200);
    expect(g1.headers['svc-idempotent-replayed']).toBeUndefined();
    expect((await as(h.app, key).delete(`/tokens/${id}`).set(KEY, 'd')).status).toBe(204);
    expect((await as(h.app, key).delete(`/tokens/${id}`).set(KEY, 'd')).status).toBe(404);
  });

  it("scopes a key to its caller and tenant: another's same key runs anew", async () => {
    const other = await privateKey(h, 'token:create');
    const t2 = await h.createTenant('Globex');
    const foreign = (await as(h.app, t2.management.key).post('/applications').send({ name: 'p', type: 'private', permissions: ['token:create'] })).body.key as string;
    const ids = new Set<string>();
    for (const k of [key, other, foreign]) {
      const res = await as(h.app, k).post('/tokens').set(KEY, 'shared').send(card);
      expect(res.status).toBe(201);
      expect(res.headers['svc-idempotent-replayed']).toBeUndefined();
      ids.add(res.body.id as string);
    }
    expect(ids.size).toBe(3);
  });

  it('expires kept answers after SVC_IDEMPOTENCY_TTL; the sweeper erases them', async () => {
    h = await harness({ SVC_IDEMPOTENCY_TTL: '1h' });
    key = await privateKey(h, 'token:create', 'token:read');
    const first = await as(h.app, key).post('/tokens').set(KEY, 'ttl').send(card);
    h.clock.advance(30 * 60_000);
    expect((await as(h.app, key).post('/tokens').set(KEY, 'ttl').send(card)).text).toBe(first.text);
    h.clock.advance(30 * 60_000);
    expect((await h.sweep()).idempotencyKeys).toBe(1);
    const again = await as(h.app, key).post('/tokens').set(KEY, 'ttl').send(card);
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });

  it("works with the Basis Theory node SDK's idempotencyKey request option", async () => {
    const server = createServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const bt = new BasisTheoryClient({ apiKey: key, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, maxRetries: 0 });
      const a = await bt.tokens.create({ type: 'card', data: card.data }, { idempotencyKey: 'sdk-1' });
      const b = await bt.tokens.create({ type: 'card', data: card.data }, { idempotencyKey: 'sdk-1' });
      expect(b.id).toBe(a.id);
      const c = await bt.tokens.create({ type: 'card', data: card.data }, { idempotencyKey: 'sdk-2' });
      expect(c.id).not.toBe(a.id);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('idempotency keys under attack (beyond.md §4)', () => {
  let h: Harness;
  let key: string;
  beforeEach(async () => {
    h = await harness();
    key = await privateKey(h, 'token:create', 'token:read');
  });


  it('keeps the answer of a request whose client hung up mid-way: the retry replays it, one token', async () => {
    const server = createServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hold = holdCreates(h);
    try {
      const port = (server.address() as AddressInfo).port;
      const body = JSON.stringify(card);
      const aborted = request({ host: '127.0.0.1', port, method: 'POST', path: '/tokens', headers: { 'SVC-API-KEY': key, [KEY]: 'hung-up', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } });
      aborted.on('error', () => undefined);
      aborted.end(body);
      await hold.started;
      aborted.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The first request still runs on the server: a duplicate is 409, not a second run.
      expect((await as(h.app, key).post('/tokens').set(KEY, 'hung-up').send(card)).status).toBe(409);
      hold.release();
      hold.restore();
      // The first request finishes on its own time (a loaded machine may take a while): until it has, a retry is 409.
      let retry = await as(h.app, key).post('/tokens').set(KEY, 'hung-up').send(card);
      for (let i = 0; i < 100 && retry.status === 409; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        retry = await as(h.app, key).post('/tokens').set(KEY, 'hung-up').send(card);
      }
      expect(retry.status).toBe(201);
      expect(retry.headers['svc-idempotent-replayed']).toBe('true');
      expect(await tokenCount(h, key)).toBe(1);
    } finally {
      hold.release();
      hold.restore();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keeps the answer of a token create with the token itself: a process lost before its own keep step still replays, one token', async () => {
    // The keep step after the answer fails, as when the process dies between the token's commit and it.
    const complete = h.store.idempotency.complete.bind(h.store.idempotency);
    h.store.idempotency.complete = async () => {
      throw new Error('killed');
    };
    const body = { a: card, b: 'plain' };
    const created = await as(h.app, key).post('/tokens').set(KEY, 'lost-1').send(card);
    const tokenized = await as(h.app, key).post('/tokenize').set(KEY, 'lost-2').send(body);
    h.store.idempotency.complete = complete;
    expect([created.status, tokenized.status]).toEqual([201, 201]);
    const again = await as(h.app, key).post('/tokens').set(KEY, 'lost-1').send(card);
    const tokenizedAgain = await as(h.app, key).post('/tokenize').set(KEY, 'lost-2').send(body);
    expect([again.status, again.headers['svc-idempotent-replayed'], again.text]).toEqual([201, 'true', created.text]);
    expect([tokenizedAgain.status, tokenizedAgain.headers['svc-idempotent-replayed'], tokenizedAgain.text]).toEqual([201, 'true', tokenized.text]);
    expect(await tokenCount(h, key)).toBe(3);
  });

  it('keeps the answer of a /tokenize mixing new and deduplicated tokens with the write, as predicted before it', async () => {
    const dedup = { ...card, deduplicate_token: true };
    const base = await as(h.app, key).post('/tokens').send(dedup).expect(201);
    const complete = h.store.idempotency.complete.bind(h.store.idempotency);
    h.store.idempotency.complete = async () => {
      throw new Error('killed');
    };
    // The base token, a new one, and a second new one deduplicated to the first within the call.
    const fresh = { type: 'token', data: 'fresh', deduplicate_token: true };
    const body = [dedup, fresh, fresh, 'plain'];
    const made = await as(h.app, key).post('/tokenize').set(KEY, 'mixed').send(body).expect(201);
    h.store.idempotency.complete = complete;
    expect(made.body[0].id).toBe(base.body.id);
    expect(made.body[2].id).toBe(made.body[1].id);
    const again = await as(h.app, key).post('/tokenize').set(KEY, 'mixed').send(body).expect(201);
    expect([again.headers['svc-idempotent-replayed'], again.text]).toEqual(['true', made.text]);
    expect(await tokenCount(h, key)).toBe(3);
  });

  it('takes an intent a deduplicated create was made of with its answer and its convert event, in one step', async () => {
    const dedup = { ...card, deduplicate_token: true };
    const first = await as(h.app, key).post('/tokens').send(dedup).expect(201);
    const intents = as(h.app, await privateKey(h, 'token:intent:create', 'token:intent:read'));
    const intent = (await intents.post('/token-intents').send(card).expect(201)).body.id as string;
    const complete = h.store.idempotency.complete.bind(h.store.idempotency);
    h.store.idempotency.complete = async () => {
      throw new Error('killed');
    };
    const body = { token_intent_id: intent, deduplicate_token: true };
    const made = await as(h.app, key).post('/tokens').set(KEY, 'intent-dedup').send(body).expect(201);
    h.store.idempotency.complete = complete;
    expect(made.body.id).toBe(first.body.id);
    await intents.get(`/token-intents/${intent}`).expect(404);
    const again = await as(h.app, key).post('/tokens').set(KEY, 'intent-dedup').send(body).expect(201);
    expect([again.headers['svc-idempotent-replayed'], again.text]).toEqual(['true', made.text]);
    const logged = await h.store.auditLog.list(h.tenant.tenant.id, { entityId: intent }, { page: 1, size: 10 });
    expect(logged.items.map((e) => e.operation).sort()).toEqual(['convert', 'create']);
    expect(await tokenCount(h, key)).toBe(1);
  });

  it('keeps the answer of every create with the object itself: applications and their keys, intents, sessions, webhooks and proxies', async () => {
    const mgmt = as(h.app, h.key);
    const pub = (await mgmt.post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create', 'token:intent:create'] }).expect(201)).body.key as string;
    const intents = await privateKey(h, 'token:intent:create');
    const target = (await mgmt.post('/applications').send({ name: 'target', type: 'private', permissions: ['token:read'] }).expect(201)).body.id as string;
    const creates: Array<[string, string, string, object | undefined]> = [
      [`/applications/${target}/keys`, h.key, 'ak', undefined],
      [`/applications/${target}/regenerate`, h.key, 'ar', undefined],
      ['/applications', h.key, 'a', { name: 'kept', type: 'private', permissions: ['token:read'] }],
      ['/token-intents', intents, 'i', card],
      ['/sessions', pub, 's', undefined],
      ['/webhooks', h.key, 'w', { name: 'kept', url: 'https://hooks.example.com/in', events: ['token.created'] }],
      ['/proxies', h.key, 'p', { name: 'kept', destination_url: 'https://processor.example.com/v1', require_auth: true }],
    ];
    const complete = h.store.idempotency.complete.bind(h.store.idempotency);
    h.store.idempotency.complete = async () => {
      throw new Error('killed');
    };
    const first: string[] = [];
    for (const [path, caller, k, body] of creates) {
      const res = await as(h.app, caller).post(path).set(KEY, k).send(body);
      expect([path, res.status]).toEqual([path, path.endsWith('/regenerate') ? 200 : 201]);
      first.push(res.text);
    }
    h.store.idempotency.complete = complete;
    for (const [i, [path, caller, k, body]] of creates.entries()) {
      const again = await as(h.app, caller).post(path).set(KEY, k).send(body);
      expect([path, again.status, again.headers['svc-idempotent-replayed'], again.text]).toEqual([path, path.endsWith('/regenerate') ? 200 : 201, 'true', first[i]]);
    }
    expect(((await mgmt.get('/applications?size=100')).body.data as Array<{ name: string }>).filter((a) => a.name === 'kept')).toHaveLength(1);
    expect((await mgmt.get('/webhooks')).body.data).toHaveLength(1);
    expect((await mgmt.get('/proxies')).body.data).toHaveLength(1);
    // The key added, then every key replaced by the regenerated one: one key, whatever the retries.
    expect((await mgmt.get(`/applications/${target}/keys`)).body).toHaveLength(1);
  });

  it('keeps the answer of every update with the update itself: a token, an application, a webhook, a proxy, a session authorization', async () => {
    const mgmt = as(h.app, h.key);
    const updater = await privateKey(h, 'token:create', 'token:read', 'token:update', 'session:authorize');
    const token = (await as(h.app, updater).post('/tokens').send(card).expect(201)).body.id as string;
    const app = (await mgmt.post('/applications').send({ name: 'before', type: 'private', permissions: ['token:read'] }).expect(201)).body.id as string;
    const hook = (await mgmt.post('/webhooks').send({ name: 'before', url: 'https://hooks.example.com/in', events: ['token.created'] }).expect(201)).body.id as string;
    const proxy = (await mgmt.post('/proxies').send({ name: 'before', destination_url: 'https://processor.example.com/v1', require_auth: true }).expect(201)).body.id as string;
    const pub = (await mgmt.post('/applications').send({ name: 'web', type: 'public', permissions: ['session:create'] }).expect(201)).body.key as string;
    const nonce = (await as(h.app, pub).post('/sessions').expect(201)).body.nonce as string;
    const updates: Array<[string, 'patch' | 'put' | 'post', string, string, object]> = [
      ['token', 'patch', `/tokens/${token}`, updater, { metadata: { kept: 'yes' } }],
      ['application', 'put', `/applications/${app}`, h.key, { name: 'after', permissions: ['token:read', 'token:search'] }],
      ['webhook', 'put', `/webhooks/${hook}`, h.key, { name: 'after', url: 'https://hooks.example.com/in', events: ['token.updated'] }],
      ['proxy', 'put', `/proxies/${proxy}`, h.key, { name: 'after', destination_url: 'https://processor.example.com/v2', require_auth: true }],
      ['proxy', 'patch', `/proxies/${proxy}`, h.key, { name: 'patched' }],
      ['session', 'post', '/sessions/authorize', updater, { nonce, permissions: ['token:read'] }],
    ];
    const typeOf = (path: string): string => (path.startsWith('/tokens/') ? 'application/merge-patch+json' : 'application/json');
    const complete = h.store.idempotency.complete.bind(h.store.idempotency);
    h.store.idempotency.complete = async () => {
      throw new Error('killed');
    };
    const first: Array<{ text: string; type: unknown }> = [];
    for (const [, method, path, caller, body] of updates) {
      const res = await as(h.app, caller)[method](path).set(KEY, `${method} ${path}`).type(typeOf(path)).send(body);
      expect([method, path, res.status]).toEqual([method, path, 200]);
      first.push({ text: res.text, type: res.headers['content-type'] });
    }
    h.store.idempotency.complete = complete;
    for (const [i, [, method, path, caller, body]] of updates.entries()) {
      const again = await as(h.app, caller)[method](path).set(KEY, `${method} ${path}`).type(typeOf(path)).send(body);
      expect([method, path, again.status, again.headers['svc-idempotent-replayed'], again.text, again.headers['content-type']]).toEqual([
        method, path, 200, 'true', first[i]!.text, first[i]!.type,
      ]);
    }
    // The session's answer is empty, as first sent: no body, no content type.
    expect(first[5]).toEqual({ text: '', type: undefined });
    // Each update ran once: one audit event of it for each request made.
    for (const [entity, id, operation, times] of [['token', token, 'update', 1], ['application', app, 'update', 1], ['webhook', hook, 'update', 1], ['proxy', proxy, 'update', 2]] as const) {
      const logged = await h.store.auditLog.list(h.tenant.tenant.id, { entityId: id }, { page: 1, size: 50 });
      expect([entity, logged.items.filter((e) => e.operation === operation).length]).toEqual([entity, times]);
    }
    const authorized = await h.store.auditLog.list(h.tenant.tenant.id, { entityType: 'session' }, { page: 1, size: 50 });
    expect(authorized.items.filter((e) => e.operation === 'authorize' && e.outcome === 'success')).toHaveLength(1);
  });

  it('answers a body nested thousands of levels deep with a key as without one: 400 naming where, and the server stays up', async () => {
    const deep = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    const mgmt = h.key;
    const key = await privateKey(h, 'token:create', 'token:read', 'token:search');
    const routes: Array<[string, string, string]> = [
      ['post', '/tokens', key],
      ['post', '/tokenize', key],
      ['post', '/detokenize', key],
      ['post', '/tokens/search', key],
      ['post', '/v2/tokens/search', key],
      ['post', '/applications', mgmt],
      ['post', '/webhooks', mgmt],
      ['post', '/proxies', mgmt],
      ['post', '/tenants/self/invitations', mgmt],
    ];
    for (const [method, path, caller] of routes) {
      for (const depth of [33, 10_000]) {
        const keyed = await as(h.app, caller)[method as 'post'](path).set(KEY, `deep-${path}-${depth}`).type('application/json').send(deep(depth));
        const plain = await as(h.app, caller)[method as 'post'](path).type('application/json').send(deep(depth));
        expect([path, depth, keyed.status, keyed.headers['content-type']]).toEqual([path, depth, 400, 'application/problem+json; charset=utf-8']);
        expect([path, depth, keyed.body.errors]).toEqual([path, depth, plain.body.errors]);
        expect(Object.values(keyed.body.errors as Record<string, string[]>).flat()).toEqual(['Values may nest at most 32 levels deep.']);
      }
    }
    // Nothing was kept: the key is free for a good request.
    await as(h.app, key).post('/tokens').set(KEY, 'deep-/tokens-10000').send(card).expect(201);
  });

  it('keeps the answer of a deduplicated create after it, as the create wrote nothing', async () => {
    const dedup = { ...card, deduplicate_token: true };
    const first = await as(h.app, key).post('/tokens').send(dedup).expect(201);
    const second = await as(h.app, key).post('/tokens').set(KEY, 'dedup-1').send(dedup).expect(201);
    expect(second.body.id).toBe(first.body.id);
    const replayed = await as(h.app, key).post('/tokens').set(KEY, 'dedup-1').send(dedup).expect(201);
    expect([replayed.headers['svc-idempotent-replayed'], replayed.text]).toEqual(['true', second.text]);
    const bulk = { x: dedup, y: { ...card, data: { ...card.data, number: '5555555555554444' } } };
    const tokenized = await as(h.app, key).post('/tokenize').set(KEY, 'dedup-2').send(bulk).expect(201);
    expect(tokenized.body.x.id).toBe(first.body.id);
    const again = await as(h.app, key).post('/tokenize').set(KEY, 'dedup-2').send(bulk).expect(201);
    expect([again.headers['svc-idempotent-replayed'], again.text]).toEqual(['true', tokenized.text]);
    expect(await tokenCount(h, key)).toBe(2);
  });

  it('runs exactly one of many concurrent identical requests: the rest are 409 or replays, one token', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => as(h.app, key).post('/tokens').set(KEY, 'herd').send(card)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(answers.filter((res) => res.status === 201 && res.headers['svc-idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(answers.filter((res) => res.status === 201).map((res) => res.text)).size).toBe(1);
    expect(await tokenCount(h, key)).toBe(1);
  });

  it('lets browsers send the key and read SVC-IDEMPOTENT-REPLAYED (CORS)', async () => {
    const preflight = await request0(h.app)
      .options('/tokens')
      .set('Origin', 'https://shop.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'svc-api-key, content-type, svc-idempotency-key, bt-idempotency-key');
    const allowed = String(preflight.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['svc-idempotency-key', 'bt-idempotency-key']));
    await as(h.app, key).post('/tokens').set('Origin', 'https://shop.example.com').set(KEY, 'cors').send(card);
    const replay = await as(h.app, key).post('/tokens').set('Origin', 'https://shop.example.com').set(KEY, 'cors').send(card);
    expect(replay.headers['svc-idempotent-replayed']).toBe('true');
    expect(String(replay.headers['access-control-expose-headers']).toLowerCase()).toContain('svc-idempotent-replayed');
  });

  it('replays the 201 of /tokenize for a non-object body (an array of primitives) byte for byte, even after the tokens are deleted', async () => {
    const reader = await privateKey(h, 'token:create', 'token:read', 'token:delete');
    const first = await as(h.app, reader).post('/tokenize').set(KEY, 'arr').send(['a', 1, null, true]);
    expect(first.status).toBe(201);
    for (const id of first.body.filter((x: unknown) => typeof x === 'string') as string[]) {
      expect((await as(h.app, reader).delete(`/tokens/${id}`)).status).toBe(204);
    }
    const again = await as(h.app, reader).post('/tokenize').set(KEY, 'arr').send(['a', 1, null, true]);
    expect(again.status).toBe(201);
    expect(again.headers['svc-idempotent-replayed']).toBe('true');
    expect(again.headers['content-length']).toBe(first.headers['content-length']);
    expect(again.text).toBe(first.text);
    expect(await tokenCount(h, reader)).toBe(0);
  });

  /** A private application that may reveal, with its id; the management key revokes or narrows it. */
  async function revealer(): Promise<{ id: string; key: string }> {
    const res = await as(h.app, h.key)
      .post('/applications')
      .send({ name: 'revealer', type: 'private', permissions: ['token:create', 'token:read', 'token:use', 'token:search', 'token:update', 'token:delete'] })
      .expect(201);
    return { id: res.body.id as string, key: res.body.key as string };
  }

  describe('on the POSTs that only read (detokenize, the searches)', () => {

    const detokenizeBody = (id: string) => ({ n: `{{ ${id} }}` });

    it("takes every page of a cursor-paged search under its first page's key (the SDK's pager sends it on each), and still refuses another search", async () => {
      const searcher = await privateKey(h, 'token:create', 'token:read', 'token:search');
      for (let i = 0; i < 5; i++) await as(h.app, searcher).post('/tokens').send({ type: 'token', data: `paged ${i}` }).expect(201);
      const seen: string[] = [];
      let start: string | undefined;
      do {
        const page = await as(h.app, searcher).post('/v2/tokens/search').set('BT-IDEMPOTENCY-KEY', 'pager').send({ query: 'type:token', size: 2, ...(start ? { start } : {}) });
        expect([page.status, page.body.errors]).toEqual([200, undefined]);
        seen.push(...(page.body.data as Array<{ id: string }>).map((t) => t.id));
        start = page.body.pagination.next as string | undefined;
      } while (start !== undefined);
      expect(new Set(seen).size).toBe(5);
      expect(seen).toHaveLength(5);
      for (const other of [{ query: 'type:card', size: 2 }, { query: 'type:token', size: 3 }]) {
        const refused = await as(h.app, searcher).post('/v2/tokens/search').set('BT-IDEMPOTENCY-KEY', 'pager').send(other);
        expect([refused.status, Object.keys(refused.body.errors)]).toEqual([422, ['BT-IDEMPOTENCY-KEY']]);
      }
    });

    it('marks a retry replayed when its answer is the first one byte for byte, and audits every retry', async () => {
      const app = await revealer();
      const token = (await as(h.app, app.key).post('/tokens').send(card).expect(201)).body.id as string;
      const first = await as(h.app, app.key).post('/detokenize').set(KEY, 'd1').send(detokenizeBody(token)).expect(200);
      expect(first.headers['svc-idempotent-replayed']).toBeUndefined();
      expect(first.body.n.number).toBe(VISA);
      const second = await as(h.app, app.key).post('/detokenize').set(KEY, 'd1').send(detokenizeBody(token)).expect(200);
      expect(second.headers['svc-idempotent-replayed']).toBe('true');
      expect(second.text).toBe(first.text);
      // The same key with another body is still 422.
      const other = await as(h.app, app.key).post('/detokenize').set(KEY, 'd1').send({ m: `{{ ${token} }}` });
      expect(other.status).toBe(422);
      expect(other.body.errors).toHaveProperty(KEY);
      await h.settleAudit();
      const events = (await as(h.app, h.key).get(`/logs?entity_id=${token}&size=100`).expect(200)).body.data as Array<{ operation: string }>;
      expect(events.filter((e) => e.operation === 'detokenize')).toHaveLength(2);
    });

    it('never hands out kept plaintext: a caller that lost token:use gets the masked value, a deleted token is not found', async () => {
      const app = await revealer();
      const token = (await as(h.app, app.key).post('/tokens').send(card).expect(201)).body.id as string;
      const first = await as(h.app, app.key).post('/detokenize').set(KEY, 'd2').send(detokenizeBody(token)).expect(200);
      expect(first.body.n.number).toBe(VISA);
      await as(h.app, h.key)
        .put(`/applications/${app.id}`)
        .send({ name: 'revealer', permissions: ['token:create', 'token:read', 'token:search', 'token:delete'] })
        .expect(200);
      const narrowed = await as(h.app, app.key).post('/detokenize').set(KEY, 'd2').send(detokenizeBody(token)).expect(200);
      expect(narrowed.headers['svc-idempotent-replayed']).toBeUndefined();
      expect(narrowed.text).not.toContain(VISA);
      await as(h.app, app.key).delete(`/tokens/${token}`).expect(204);
      const gone = await as(h.app, app.key).post('/detokenize').set(KEY, 'd2').send(detokenizeBody(token));
      expect(gone.status).toBeGreaterThanOrEqual(400);
      expect(gone.status).toBeLessThan(500);
      expect(gone.text).not.toContain(VISA);
      // The searches too: a token deleted after the first search is not in the retry's page.
      const again = (await as(h.app, app.key).post('/tokens').send(card).expect(201)).body.id as string;
      for (const path of ['/tokens/search', '/v2/tokens/search']) {
        const query = { query: `id:${again}` };
        const found = await as(h.app, app.key).post(path).set(KEY, `s${path}`).send(query).expect(200);
        expect(found.text).toContain(again);
        expect((await as(h.app, app.key).post(path).set(KEY, `s${path}`).send(query).expect(200)).headers['svc-idempotent-replayed']).toBe('true');
      }
      await as(h.app, app.key).delete(`/tokens/${again}`).expect(204);
      for (const path of ['/tokens/search', '/v2/tokens/search']) {
        const retry = await as(h.app, app.key).post(path).set(KEY, `s${path}`).send({ query: `id:${again}` }).expect(200);
        expect(retry.headers['svc-idempotent-replayed']).toBeUndefined();
        expect(retry.text).not.toContain(again);
      }
    });
  });

  describe('replays of token writes leave out the token data that has gone since', () => {
    const withCvc = { type: 'card', data: { number: VISA, expiration_month: 12, expiration_year: 2030, cvc: '737' } };

    it('leaves out a cvc past SVC_CVC_RETENTION (decisions.md §5), on POST /tokens and POST /tokenize', async () => {
      const app = await revealer();
      const first = await as(h.app, app.key).post('/tokens').set(KEY, 'cvc').send(withCvc).expect(201);
      expect(first.body.data.cvc).toBe('737');
      const bulk = await as(h.app, app.key).post('/tokenize').set(KEY, 'cvc-bulk').send({ card: withCvc }).expect(201);
      expect(bulk.body.card.data.cvc).toBe('737');
      // Within the retention, a replay is the first answer byte for byte.
      const soon = await as(h.app, app.key).post('/tokens').set(KEY, 'cvc').send(withCvc).expect(201);
      expect(soon.headers['svc-idempotent-replayed']).toBe('true');
      expect(soon.text).toBe(first.text);
      h.clock.advance(61 * 60_000);
      const late = await as(h.app, app.key).post('/tokens').set(KEY, 'cvc').send(withCvc).expect(201);
      expect(late.headers['svc-idempotent-replayed']).toBe('true');
      expect(late.text).not.toContain('"737"');
      expect(late.body).toEqual({ ...first.body, data: { number: VISA, expiration_month: 12, expiration_year: 2030 } });
      const lateBulk = await as(h.app, app.key).post('/tokenize').set(KEY, 'cvc-bulk').send({ card: withCvc }).expect(201);
      expect(lateBulk.text).not.toContain('"737"');
      expect(lateBulk.body.card).toEqual({ ...bulk.body.card, data: { number: VISA, expiration_month: 12, expiration_year: 2030 } });
    });

    it('leaves out the data of a token deleted since, or whose id now names another token; keeps a patched one as it was', async () => {
      const app = await revealer();
      const api = as(h.app, app.key);
      const first = await api.post('/tokens').set(KEY, 'gone').send({ type: 'token', data: { pan: 'DELETED-SECRET' } }).expect(201);
      await api.delete(`/tokens/${first.body.id}`).expect(204);
      const gone = await api.post('/tokens').set(KEY, 'gone').send({ type: 'token', data: { pan: 'DELETED-SECRET' } }).expect(201);
      expect(gone.headers['svc-idempotent-replayed']).toBe('true');
      expect(gone.text).not.toContain('DELETED-SECRET');
      const { data: _data, ...rest } = first.body;
      expect(gone.body).toEqual(rest);

      const reused = await api.post('/tokens').set(KEY, 'reuse').send({ id: 'reuse-id-0001', type: 'token', data: 'first-secret' }).expect(201);
      await api.delete('/tokens/reuse-id-0001').expect(204);
      h.clock.advance(1_000);
      await api.post('/tokens').send({ id: 'reuse-id-0001', type: 'token', data: 'second-secret' }).expect(201);
      const again = await api.post('/tokens').set(KEY, 'reuse').send({ id: 'reuse-id-0001', type: 'token', data: 'first-secret' }).expect(201);
      expect(again.text).not.toMatch(/first-secret|second-secret/);
      const { data: _reusedData, ...reusedRest } = reused.body;
      expect(again.body).toEqual(reusedRest);

      // A token patched since is replayed as the first answer showed it: nothing of the later version is mixed in.
      const kept = await api.post('/tokens').set(KEY, 'kept').send({ type: 'token', data: 'v1' }).expect(201);
      const patch = (data: string, key: string) =>
        api.patch(`/tokens/${kept.body.id}`).set(KEY, key).set('Content-Type', 'application/merge-patch+json').send(JSON.stringify({ data }));
      const p2 = await patch('v2', 'p2').expect(200);
      await patch('v3', 'p3').expect(200);
      expect((await patch('v2', 'p2').expect(200)).text).toBe(p2.text);
      expect((await api.post('/tokens').set(KEY, 'kept').send({ type: 'token', data: 'v1' }).expect(201)).text).toBe(kept.text);
    });

    it('replays byte for byte when the create and read rules differ, and nothing changed', async () => {
      const res = await as(h.app, h.key)
        .post('/applications')
        .send({
          name: 'two rules',
          type: 'private',
          permissions: [],
          rules: [
            { priority: 1, container: '/', transform: 'mask', permissions: ['token:create'] },
            { priority: 2, container: '/', transform: 'reveal', permissions: ['token:read'] },
          ],
        })
        .expect(201);
      const api = as(h.app, res.body.key as string);
      const first = await api.post('/tokens').set(KEY, 'rules').send(withCvc).expect(201);
      expect(first.text).not.toContain(VISA);
      const again = await api.post('/tokens').set(KEY, 'rules').send(withCvc).expect(201);
      expect(again.headers['svc-idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
    });

    it("on /tokenize, changes only the tokens, never the caller's own objects", async () => {
      const app = await revealer();
      const body = { a: { type: 'token', data: { _extras: { deduplicated: true }, secret: 'A-SECRET' } }, b: { type: 'token', data: 'B-SECRET' }, plain: { _extras: { deduplicated: true } }, n: null };
      const first = await as(h.app, app.key).post('/tokenize').set(KEY, 'bulk').send(body).expect(201);
      expect(first.body.a.data.secret).toBe('A-SECRET');
      expect(typeof first.body.plain._extras.deduplicated).toBe('string');
      const same = await as(h.app, app.key).post('/tokenize').set(KEY, 'bulk').send(body).expect(201);
      expect(same.text).toBe(first.text);
      await as(h.app, app.key).delete(`/tokens/${first.body.b.id}`).expect(204);
      const replay = await as(h.app, app.key).post('/tokenize').set(KEY, 'bulk').send(body).expect(201);
      expect(replay.headers['svc-idempotent-replayed']).toBe('true');
      expect(replay.text).not.toContain('B-SECRET');
      expect(replay.body.a).toEqual(first.body.a);
      const { data: _b, ...bWithoutData } = first.body.b;
      expect(replay.body.b).toEqual(bWithoutData);
      expect(replay.body.plain).toEqual(first.body.plain);
      expect(replay.body.n).toBeNull();
    });
  });

  it('keeps nothing for a 403, 404 or 500 first answer: the retry runs', async () => {
    const reader = await privateKey(h, 'token:read', 'token:update');
    // 404: the token does not exist; the same key then works on a real one.
    const missing = await as(h.app, reader).patch('/tokens/00000000-0000-0000-0000-000000000000').set('Content-Type', 'application/merge-patch+json').set(KEY, 'p').send({ metadata: {} });
    expect(missing.status).toBe(404);
    // 500: the store fails once; the retry runs and succeeds.
    const tokens = h.store.tokens;
    const create = tokens.create.bind(tokens);
    tokens.create = async () => {
      throw new Error('disk on fire');
    };
    const failed = await as(h.app, key).post('/tokens').set(KEY, 'boom').send(card);
    tokens.create = create;
    expect(failed.status).toBe(500);
    const retry = await as(h.app, key).post('/tokens').set(KEY, 'boom').send(card);
    expect(retry.status).toBe(201);
    expect(retry.headers['svc-idempotent-replayed']).toBeUndefined();
  });

  it('frees a key whose release the store refused (a full disk): the retry runs at once, not 409 for the takeover bound', async () => {
    const tokens = h.store.tokens;
    const create = tokens.create.bind(tokens);
    const idempotency = h.store.idempotency;
    const release = idempotency.release.bind(idempotency);
    tokens.create = async () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    idempotency.release = async () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    const failed = await as(h.app, key).post('/tokens').set(KEY, 'full').send(card);
    tokens.create = create;
    idempotency.release = release;
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const retry = await as(h.app, key).post('/tokens').set(KEY, 'full').send(card);
    expect(retry.status).toBe(201);
    expect(retry.headers['svc-idempotent-replayed']).toBeUndefined();
    expect((await as(h.app, key).post('/tokens').set(KEY, 'full').send(card)).headers['svc-idempotent-replayed']).toBe('true');
    expect(await tokenCount(h, key)).toBe(1);
    // Another caller's same key is not freed by it.
    const other = await privateKey(h, 'token:create');
    expect((await as(h.app, other).post('/tokens').set(KEY, 'full').send(card)).status).toBe(201);
  });

  it('uses SVC-IDEMPOTENCY-KEY when both headers come, and takes a key with spaces as it is', async () => {
    const a = await as(h.app, key).post('/tokens').set(KEY, 'one key').set('BT-IDEMPOTENCY-KEY', 'other').send(card);
    const b = await as(h.app, key).post('/tokens').set(KEY, 'one key').send(card);
    expect(b.headers['svc-idempotent-replayed']).toBe('true');
    expect(b.text).toBe(a.text);
    const c = await as(h.app, key).post('/tokens').set('BT-IDEMPOTENCY-KEY', 'other').send(card);
    expect(c.headers['svc-idempotent-replayed']).toBeUndefined();
    const unicode = await as(h.app, key).post('/tokens').set(KEY, Buffer.from('clé', 'utf8').toString('latin1')).send(card);
    expect(unicode.status).toBe(400);
    expect(unicode.body.errors).toHaveProperty(KEY);
  });
});
