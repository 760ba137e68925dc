import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import request from 'supertest';
import { applicationKey, as, harness, type Harness, privateKey } from './harness';

/** Hostile and odd inputs found by review: each must be a clear 4xx that changes nothing, never a 500. */
describe('hostile input', () => {
  let h: Harness;
  let api: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    api = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:use', 'token:search'));
  });

  it('bounds masks: too many expressions, or results too large, are a 400 on mask', async () => {
    const many = await api.post('/tokens').send({ type: 'token', data: 's', mask: Array.from({ length: 51 }, () => '{{ data }}') }).expect(400);
    expect(Object.keys(many.body.errors)).toEqual(['mask']);
    const huge = await api.post('/tokens').send({ type: 'token', data: 's', mask: Array.from({ length: 8 }, () => '{{ data | pad_left: 900000, "x" }}') }).expect(400);
    expect(Object.keys(huge.body.errors)[0]).toMatch(/^mask/);
    const list = await api.get('/tokens').expect(200);
    expect(list.body.pagination.total_items).toBe(0);
  });

  it('lets only a caller who may reveal the token change its mask', async () => {
    const id = (await api.post('/tokens').send({ type: 'card_number', data: '4242424242424242' }).expect(201)).body.id;
    const pub = as(h.app, await applicationKey(h, { name: 'web', type: 'public', permissions: ['token:create', 'token:update'] }));
    const res = await pub.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').send({ mask: '{{ data }}' }).expect(403);
    expect(JSON.stringify(res.body)).not.toContain('4242424242424242');
    const masked = as(h.app, await privateKey(h, 'token:read'));
    expect((await masked.get(`/tokens/${id}`).expect(200)).body.data).toBe('XXXXXXXXXXXX4242');
    const patched = await api.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').send({ mask: '{{ data | last4 }}' }).expect(200);
    expect(patched.body.mask).toBe('{{ data | last4 }}');
  });

  it.each([
    ['/applications', { toString: 1 }, 'toString'],
    ['/applications', { constructor: {} }, 'constructor'],
  ])('treats the field %j of %s like any unknown field', async (url, body, field) => {
    const res = await as(h.app, h.key).post(url).send(body).expect(400);
    expect(res.body.errors[field]).toBeDefined();
  });

  it('refuses __proto__ keys anywhere in a body, metadata included', async () => {
    const top = await api.post('/tokens').set('Content-Type', 'application/json').send('{"type":"token","data":"x","__proto__":{"admin":true}}').expect(400);
    expect(top.body.errors).toHaveProperty(['__proto__']);
    const meta = await api.post('/tokens').set('Content-Type', 'application/json').send('{"type":"token","data":"x","metadata":{"__proto__":"x"}}').expect(400);
    expect(Object.keys(meta.body.errors)).toEqual(['metadata.__proto__']);
  });

  it('refuses numbers JSON cannot carry, and nesting too deep', async () => {
    const inf = await api.post('/tokens').set('Content-Type', 'application/json').send('{"type":"token","data":1e999}').expect(400);
    expect(Object.keys(inf.body.errors)).toEqual(['data']);
    const deep = `{"type":"token","data":${'['.repeat(100)}${']'.repeat(100)}}`;
    await api.post('/tokens').set('Content-Type', 'application/json').send(deep).expect(400);
  });

  it('refuses integers past 2^53 - 1, which JSON.parse would change into another value, and keeps those within', async () => {
    for (const [body, field] of [
      ['{"type":"token","data":{"acct":9007199254740993}}', 'data.acct'],
      ['{"type":"token","data":-9007199254740992}', 'data'],
      ['{"type":"token","data":[1, 4242424242424242424]}', 'data[1]'],
      ['{"type":"token","data":1e300}', 'data'],
    ] as const) {
      const res = await api.post('/tokens').set('Content-Type', 'application/json').send(body).expect(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    const bulk = await api.post('/tokenize').set('Content-Type', 'application/json').send('[{"type":"token","data":{"acct":9007199254740993}}]').expect(400);
    expect(Object.keys(bulk.body.errors)).toEqual(['[0].data.acct']);
    for (const n of ['9007199254740991', '-9007199254740991', '1.5', '0.1']) {
      const res = await api.post('/tokens').set('Content-Type', 'application/json').send(`{"type":"token","data":${n}}`).expect(201);
      expect(JSON.stringify((await api.get(`/tokens/${res.body.id}`).expect(200)).body.data)).toBe(n);
    }
  });

  it.each(['/tokens/%zz', '/tokens/%', '/tokens/%E0%A4%A', '/applications/%zz', '/applications/%zz/regenerate', '/tenants/self/invitations/%zz', '/tokens/%zz/', '/Tokens/%zz', '/applications/%zz/regenerate/'])(
    'answers broken percent-encoding in %s with a 400 naming the path parameter id, not the body',
    async (path) => {
      const key = path.startsWith('/tokens') ? api : as(h.app, h.key);
      const res = await (path.endsWith('regenerate') ? key.post(path) : key.get(path)).expect(400).expect('Content-Type', /application\/problem\+json/);
      expect(res.body.errors).toEqual({ id: ['Malformed percent-encoding.'] });
    },
  );

  it.each([
    ['an id', { type: 'token', data: 'x', id: 'ab\ud800cd' }, 'id'],
    ['data', { type: 'token', data: 'x\udc00' }, 'data'],
    ['nested data', { type: 'token', data: { a: ['ok', '\ud83d'] } }, 'data.a[1]'],
    ['a metadata value', { type: 'token', data: 'x', metadata: { k: '\udfff' } }, 'metadata.k'],
    ['a mask', { type: 'token', data: 'x', mask: '{{ data }}\ud800' }, 'mask'],
  ])('refuses a lone surrogate in %s with a 400 naming the field, and stores nothing', async (_what, body, field) => {
    // JSON.stringify writes a lone surrogate as its \u escape, as a client would send it.
    const res = await api.post('/tokens').set('Content-Type', 'application/json').send(JSON.stringify(body)).expect(400);
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect((await api.get('/tokens').expect(200)).body.pagination.total_items).toBe(0);
  });

  it('refuses a lone surrogate in a key of the body, and in the JSON metadata filter', async () => {
    const res = await api.post('/tokens').set('Content-Type', 'application/json').send('{"type":"token","data":{"a\\ud800":1}}').expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['data.a\uFFFD']);
    await api.get(`/tokens?metadata=${encodeURIComponent('{"k":"\\ud800"}')}`).expect(400);
  });

  it('keeps a token whose id is an alias with a lone surrogate out: the id expression is checked too', async () => {
    // slice cuts UTF-16 units, so it can split the pair of an emoji; the resulting id must be refused, not stored.
    const res = await api.post('/tokens').send({ type: 'token', data: 'ab😀', id: '{{ data | slice: 0, 3 }}' }).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['id']);
    expect((await api.get('/tokens').expect(200)).body.pagination.total_items).toBe(0);
  });

  it('accepts ids with spaces, as decisions.md allows, and an alias of space-separated data as an id', async () => {
    await api.post('/tokens').send({ type: 'token', data: 'x', id: 'with a space' }).expect(201);
    expect((await api.get(`/tokens/${encodeURIComponent('with a space')}`).expect(200)).body.id).toBe('with a space');
    const alias = await api.post('/tokens').send({ type: 'token', data: '4111 1111 1111 1234', id: '{{ data | alias_preserve_format: 0, 4 }}' }).expect(201);
    expect(alias.body.id).toMatch(/^\d{4} \d{4} \d{4} 1234$/);
    expect((await api.get(`/tokens/${encodeURIComponent(alias.body.id)}`).expect(200)).body.data).toBe('4111 1111 1111 1234');
    for (const id of ['tab\there', 'nul\u0000x', 'a#b', 'a/b', 'a%b']) {
      expect(Object.keys((await api.post('/tokens').send({ type: 'token', data: 'x', id }).expect(400)).body.errors)).toEqual(['id']);
    }
  });

  it('refuses a body that is not valid UTF-8 with a 400, instead of storing U+FFFD for the bad bytes', async () => {
    const raw = Buffer.concat([Buffer.from('{"type":"token","data":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    // serialize: the bytes as they are (superagent would write a Buffer as JSON).
    const res = await api.post('/tokens').set('Content-Type', 'application/json').serialize((b: Buffer) => b as unknown as string).send(raw as never).expect(400);
    expect(res.body.errors).toEqual({ body: ['Invalid UTF-8.'] });
    expect((await api.get('/tokens').expect(200)).body.pagination.total_items).toBe(0);
  });

  it.each(['utf-16le', 'utf-7', 'latin1'])('refuses a JSON body in charset %s with 415', async (charset) => {
    await api.post('/tokens').set('Content-Type', `application/json; charset=${charset}`).send('{"type":"token","data":"x"}').expect(415);
    await api.post('/tokens').set('Content-Type', 'application/json; charset="UTF-8"').send('{"type":"token","data":"x"}').expect(201);
  });

  it.each([
    ['/tokens?container=/a/', 'container'],
    ['/tokens?foo=bar', 'foo'],
    ['/tokens?start=abc', 'start'],
    ['/v2/tokens?page=2', 'page'],
    ['/v2/tokens?id=x', 'id'],
  ])('answers a list parameter it does not read (%s) with a 400 naming it, never an unfiltered page', async (path, field) => {
    const res = await api.get(path).expect(400).expect('Content-Type', /application\/problem\+json/);
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it('reads every query parameter, not only the first thousand: the last one still counts', async () => {
    await api.post('/tokens').send({ type: 'token', data: 'r', metadata: { team: 'red' } }).expect(201);
    await api.post('/tokens').send({ type: 'token', data: 'b', metadata: { team: 'blue' } }).expect(201);
    const pads = Array.from({ length: 1000 }, (_, i) => `p${i}=`).join('&');
    // Unknown parameters are a 400 naming each, the thousandth and one after it too.
    const errors = Object.keys((await api.get(`/tokens?${pads}&late=1`).expect(400)).body.errors);
    expect(errors).toHaveLength(1001);
    expect(errors).toEqual(expect.arrayContaining(['p0', 'p999', 'late']));
    // Known ones, however many come before: 99 ids, then the filter.
    const ids = Array.from({ length: 99 }, (_, i) => `id=00000000-0000-7000-8000-${String(i).padStart(12, '0')}`).join('&');
    expect((await api.get(`/tokens?${ids}&metadata.team=red`).expect(200)).body.pagination.total_items).toBe(0);
    expect((await api.get(`/tokens?type=token&metadata.team=red`).expect(200)).body.pagination.total_items).toBe(1);
    expect(Object.keys((await api.get(`/tokens?${ids}&size=1000`).expect(400)).body.errors)).toEqual(['size']);
  });

  it.each([
    ['put', '/tokens/abc', 'DELETE, GET, HEAD, PATCH'],
    ['delete', '/tokens', 'GET, HEAD, POST'],
    ['get', '/tenants/self/invitations/abc/resend', 'POST'],
    ['patch', '/applications/abc', 'DELETE, GET, HEAD, PUT'],
    ['get', '/sessions/authorize', 'POST'],
  ] as const)('answers %s %s with 405 and Allow: %s, before any key is checked', async (method, path, allow) => {
    const res = await request(h.app)[method](path).expect(405).expect('Allow', allow).expect('Content-Type', /application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 405, type: 'https://svc.dev/errors/method-not-allowed' });
  });

  it('still answers a path no route serves with 404', async () => {
    await api.get('/nothing/here').expect(404);
    await api.put('/tokens/a/b').expect(404);
  });

  it('caps repeated filters, and answers 100 of them', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `id=x${i}`).join('&');
    expect((await api.get(`/tokens?${ids}`).expect(200)).body.pagination.total_items).toBe(0);
    const res = await api.get(`/tokens?${ids}&id=one-more`).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['id']);
  });

  it('refuses compressed bodies with 415', async () => {
    await api.post('/tokens').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{"type":"token","data":"x"}').expect(415);
  });

  it('refuses a body under a transfer coding other than chunked with 415 (Node leaves the coding under the chunks)', async () => {
    const key = await privateKey(h, 'token:create', 'token:read');
    const server = createServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const send = (coding: string, path: string, type = 'application/json'): Promise<string> =>
        new Promise((resolve, reject) => {
          const body = path === '/invitations/accept' && type.includes('form') ? 'token=x' : '{"type":"token","data":"declared gzip"}';
          const socket = connect(port, '127.0.0.1', () => {
            socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: ${key}\r\nContent-Type: ${type}\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
          });
          let text = '';
          socket.on('data', (chunk) => (text += chunk.toString('utf8')));
          socket.on('end', () => resolve(text.split('\r\n')[0]!));
          socket.on('error', reject);
        });
      for (const coding of ['gzip, chunked', 'deflate,chunked', 'x-custom, chunked']) {
        expect([coding, await send(coding, '/tokens')]).toEqual([coding, 'HTTP/1.1 415 Unsupported Media Type']);
        expect([coding, await send(coding, '/invitations/accept', 'application/x-www-form-urlencoded')]).toEqual([coding, 'HTTP/1.1 415 Unsupported Media Type']);
      }
      expect(await send('chunked', '/tokens')).toBe('HTTP/1.1 201 Created');
      expect((await as(h.app, key).get('/tokens').expect(200)).body.pagination.total_items).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses impossible offsets in expiry dates', async () => {
    for (const expires_at of ['1/2/2099 3:04:05 PM +99:99', '2099-01-02T03:04:05+24:00']) {
      const res = await api.post('/tokens').send({ type: 'token', data: 'e', expires_at }).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['expires_at']);
    }
  });

  it('refuses a null merge patch', async () => {
    const id = (await api.post('/tokens').send({ type: 'token', data: 'x' }).expect(201)).body.id;
    await api.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').send('null').expect(400);
    expect((await api.get(`/tokens/${id}`).expect(200)).body.modified_at).toBeUndefined();
  });

  it('refuses unknown fields on endpoints that take no body', async () => {
    const pub = as(h.app, await applicationKey(h, { name: 'web', type: 'public', permissions: ['session:create'] }));
    expect(Object.keys((await pub.post('/sessions').send({ x: 1 }).expect(400)).body.errors)).toEqual(['x']);
    await pub.post('/sessions').send({}).expect(201);
    const app = (await as(h.app, h.key).post('/applications').send({ name: 'a', type: 'management', permissions: ['application:read'] }).expect(201)).body;
    await as(h.app, h.key).post(`/applications/${app.id}/regenerate`).send({ x: 1 }).expect(400);
    await as(h.app, app.key).get('/applications/key').expect(200);
  });

  it('accepts the JSON metadata filter Basis Theory SDKs send', async () => {
    await api.post('/tokens').send({ type: 'token', data: 'a', metadata: { customer: 'c1' } }).expect(201);
    await api.post('/tokens').send({ type: 'token', data: 'b', metadata: { customer: 'c2' } }).expect(201);
    const res = await api.get(`/tokens?metadata=${encodeURIComponent(JSON.stringify({ Customer: 'C1' }))}`).expect(200);
    expect(res.body.data.map((t: { data: string }) => t.data)).toEqual(['a']);
    await api.get('/tokens?metadata=not-json').expect(400);
  });

  it('finds tokens by a bare created_at date, the whole UTC day', async () => {
    await api.post('/tokens').send({ type: 'token', data: 'today' }).expect(201);
    const res = await api.post('/tokens/search').send({ query: 'created_at:2026-01-01' }).expect(200);
    expect(res.body.pagination.total_items).toBe(1);
    expect((await api.post('/tokens/search').send({ query: 'created_at:2026-01-02' }).expect(200)).body.pagination.total_items).toBe(0);
  });

  it('invites an address with a quoted local part', async () => {
    await as(h.app, h.key).post('/tenants/self/invitations').send({ email: '"quoted local"@example.com' }).expect(201);
  });

  it('leaves expired applications out of the list at once', async () => {
    await as(h.app, h.key).post('/applications').send({ name: 'temp', type: 'management', permissions: ['application:read'], expires_at: '2026-01-01T00:10:00Z' }).expect(201);
    const before = (await as(h.app, h.key).get('/applications').expect(200)).body.pagination.total_items;
    h.clock.advanceMinutes(10);
    expect((await as(h.app, h.key).get('/applications').expect(200)).body.pagination.total_items).toBe(before - 1);
  });

  it('never answers 500 to a malformed key header', async () => {
    await request(h.app).get('/tokens').set('SVC-API-KEY', 'key_ses_').expect(401);
    await request(h.app).get('/tokens').set('SVC-API-KEY', 'x'.repeat(5000)).expect(401);
  });
});

describe('list queries (decisions.md §1: unknown fields are a 400; §3: size up to 100)', () => {
  it('refuses a query parameter a list does not read, naming it, on every list', async () => {
    const h = await harness();
    const m = as(h.app, h.key);
    const hook = (await m.post('/webhooks').send({ name: 'h', url: 'https://hooks.example.com/in', events: ['token.created'] }).expect(201)).body.id as string;
    for (const path of ['/applications', '/proxies', '/tenants/self/members', '/tenants/self/invitations', '/webhooks', `/webhooks/${hook}/deliveries`]) {
      const res = await m.get(`${path}?bogus=1&size=5`).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Object.keys(res.body.errors)).toEqual(['bogus']);
      await m.get(`${path}?size=5`).expect(200);
    }
  });

  it('takes any webhooks page size up to 100, and lists up to 50 webhooks (all a tenant may have) by default', async () => {
    const h = await harness();
    const m = as(h.app, h.key);
    expect((await m.get('/webhooks?size=100').expect(200)).body.pagination.page_size).toBe(100);
    expect((await m.get('/webhooks').expect(200)).body.pagination.page_size).toBe(50);
    expect(Object.keys((await m.get('/webhooks?size=101').expect(400)).body.errors)).toEqual(['size']);
  });
});
