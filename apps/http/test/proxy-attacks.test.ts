import { connect as netConnect } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Handler, TestServer } from '@svc/outbound/testing';
import { proxyHarness, useTestDestinations } from './proxy-fixture';
import request from 'supertest';
import type { ProxyUseCases } from '../src/http/routes/proxy.routes';
import { TOKENS } from '../src/tokens';
import { applicationKey, as, type Harness, harness, listening } from './harness';
import type { HostResolver } from '@svc/core';

/**
 * Attacks on the proxy (beyond.md §7): hostile input, what reaches the destination, SSRF, tenant isolation, the open
 * inbound proxy, the answer path, concurrent updates, logs and audit. Every destination is a real local HTTPS server
 * with a test CA, listed in SVC_OUTBOUND_ALLOW; a second server, never listed, is what SSRF attempts aim at.
 */

const VISA = '4242424242424242';

const echo: Handler = (received, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ method: received.method, url: received.url, headers: received.headers, body: received.body }));
};

describe('attacks on the proxy', () => {
  const destinations = useTestDestinations();
  const https = (handler: Handler = echo) => destinations.https(handler);
  let h: Harness;
  let dest: TestServer;
  /** Listed nowhere: nothing may ever reach it. */
  let victim: TestServer;
  let backend: string;


  async function setUp(handler: Handler = echo, env: Record<string, string> = {}): Promise<void> {
    dest = await https(handler);
    victim = await https(echo);
    ({ h, backend } = await proxyHarness(dest, destinations.certs(), env));
  }

  const destUrl = (path = '/v1/charges') => `https://127.0.0.1:${dest.port}${path}`;
  const mgmt = () => as(h.app, h.key);

  const token = async (data: unknown = VISA, type = 'token', key = backend): Promise<string> =>
    (await as(h.app, key).post('/tokens').send({ type, data }).expect(201)).body.id as string;

  /** An ephemeral call to the listed destination. */
  const call = (method: string, path = '/proxy', key = backend) =>
    (request(h.app) as unknown as Record<string, (p: string) => request.Test>)[method.toLowerCase()]!(path).set('SVC-API-KEY', key).set('SVC-PROXY-URL', destUrl());

  async function createProxy(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
    const res = await mgmt().post('/proxies').send({ name: 'P', destination_url: destUrl('/v1/base'), ...body });
    if (res.status !== 201) throw new Error(`proxy create failed: ${res.status} ${res.text}`);
    return { id: res.body.id as string, key: res.body.key as string };
  }

  async function appId(name: string): Promise<string> {
    const apps = await mgmt().get('/applications?size=100').expect(200);
    return (apps.body.data as Array<{ id: string; name: string }>).find((a) => a.name === name)!.id;
  }

  /** Sends bytes as they are (superagent would write a Buffer with a JSON type as JSON). */
  const bytes = (req: request.Test, type: string, data: number[] | Buffer) =>
    req.set('Content-Type', type).serialize((x: unknown) => x as string).send(Buffer.isBuffer(data) ? data : Buffer.from(data));

  const expectProblem = (res: request.Response, status: number) => {
    expect({ status: res.status, text: res.status === status ? '' : res.text }).toEqual({ status, text: '' });
    expect(res.headers['content-type']).toContain('application/problem+json');
  };

  describe('hostile input is answered, never a 500', () => {
    it('takes odd methods: TRACE, OPTIONS, HEAD, PROPFIND, DELETE with a body, GET with a body', async () => {
      await setUp();
      for (const method of ['OPTIONS', 'PROPFIND', 'DELETE', 'PURGE']) {
        const res = await call(method).send('x');
        expect([method, res.status]).not.toEqual([method, 500]);
        expect(res.status).toBeLessThan(500);
      }
      // TRACE echoes the request: through a proxy adding configured credentials it would show them. Never sent on.
      const sent = dest.received.length;
      expectProblem(await call('TRACE').send('x'), 405);
      expect(dest.received).toHaveLength(sent);
      const head = await call('HEAD');
      expect(head.status).toBe(200);
      const get = await call('GET').set('Content-Type', 'application/json').send('{"a":1}');
      expect(get.status).toBe(200);
    });

    it('refuses a token value a header cannot carry (line breaks, NUL, characters past Latin-1) with 400 naming the header, sending nothing', async () => {
      await setUp();
      for (const data of ['a\r\nX-Injected: 1', 'a\nb', 'nul\u0000', 'naïve 名前', '💳']) {
        const id = await token(data);
        const res = await call('POST').set('X-Card', `{{ ${id} }}`).send({});
        expectProblem(res, 400);
        expect(Object.keys(res.body.errors)).toEqual(['headers.x-card']);
      }
      // A configured header that would render to such a value is refused when the proxy is made.
      const configured = await mgmt()
        .post('/proxies')
        .send({ name: 'P', destination_url: destUrl('/v1/base'), configuration: { K: 'clé 名' }, request_transforms: [{ type: 'append_header', name: 'X-Key', value: '{{ configuration.K }}' }] });
      expectProblem(configured, 400);
      expect(Object.keys(configured.body.errors)).toEqual(['request_transforms[0].value']);
      expect(dest.received).toHaveLength(0);
    });

    it('keeps __proto__ and constructor keys as data in JSON and form bodies', async () => {
      await setUp();
      const id = await token();
      const raw = `{"__proto__":{"n":"{{ ${id} }}"},"constructor":{"prototype":"{{ ${id} }}"}}`;
      await call('POST').set('Content-Type', 'application/json').send(raw).expect(200);
      expect(JSON.parse(dest.received[0]!.body)).toEqual(JSON.parse(raw.replaceAll(`{{ ${id} }}`, VISA)));
      await call('POST').type('form').send(`__proto__=${encodeURIComponent(`{{ ${id} }}`)}&toString=1&__proto__=2`).expect(200);
      expect(dest.received[1]!.body).toBe(`__proto__=${VISA}&toString=1&__proto__=2`);
    });

    it('refuses JSON nested deeper than the proxy reads (400), and bodies that are not what their type says', async () => {
      await setUp();
      const deep = '['.repeat(200_000) + ']'.repeat(200_000);
      expectProblem(await call('POST').set('Content-Type', 'application/json').send(deep), 400);
      expectProblem(await call('POST').set('Content-Type', 'application/json').send('{"a":'), 400);
      expectProblem(await bytes(call('POST'), 'text/plain', [0x61, 0xff, 0xfe, 0x62]), 400);
      expectProblem(await bytes(call('POST'), 'application/json', [0x22, 0xc3, 0x28, 0x22]), 400);
      expectProblem(await bytes(call('POST'), 'application/x-www-form-urlencoded', [0x61, 0x3d, 0xff]), 400);
      expect(dest.received).toHaveLength(0);
      // Bytes without a type that are not UTF-8 are passed on untouched.
      await bytes(call('POST'), '', [0x00, 0xff, 0x7b, 0x7b]).expect(200);
      await bytes(call('POST'), 'application/octet-stream', [0xff, 0xfe]).expect(200);
      expect(dest.received).toHaveLength(2);
    });

    it('answers 413 for a body over the limit and problem+json for a compressed one', async () => {
      await setUp(echo, { SVC_BODY_LIMIT: '10kb' });
      expectProblem(await call('POST').set('Content-Type', 'text/plain').send('x'.repeat(20_000)), 413);
      const gz = await call('POST').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(gzipSync('{"a":1}'));
      expect(gz.status).toBeGreaterThanOrEqual(400);
      expect(gz.status).toBeLessThan(500);
      expect(gz.headers['content-type']).toContain('application/problem+json');
      expect(dest.received).toHaveLength(0);
    });

    it('answers 400 naming the part for broken percent-encoding in the path, the query and the proxy key', async () => {
      await setUp();
      const path = await call('GET', '/proxy/%zz');
      expectProblem(path, 400);
      const key = await request(h.app).get('/proxy?svc-proxy-key=%zz').set('SVC-API-KEY', backend);
      expectProblem(key, 400);
      // A query the proxy does not read passes on as sent.
      await call('GET', '/proxy/a?x=%zz&y=%E0%A4%A').expect(200);
      expect(dest.received.map((r) => r.url)).toEqual(['/v1/charges/a?x=%zz&y=%E0%A4%A']);
    });

    it('answers empty and blank keys as missing', async () => {
      await setUp();
      expectProblem(await request(h.app).get('/proxy').set('SVC-PROXY-KEY', '').set('SVC-API-KEY', backend), 400);
      expectProblem(await request(h.app).get('/proxy').set('SVC-PROXY-KEY', '   ').set('SVC-API-KEY', backend), 400);
      expectProblem(await request(h.app).get('/proxy?svc-proxy-key=&bt-proxy-key').set('SVC-API-KEY', backend), 400);
      expectProblem(await request(h.app).get('/proxy').set('SVC-API-KEY', '').set('SVC-PROXY-URL', destUrl()), 401);
      expectProblem(await request(h.app).get('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', ''), 400);
      expectProblem(await request(h.app).get('/proxy').set('SVC-PROXY-KEY', 'key_prx_' + 'x'.repeat(10_000)), 401);
      expect(dest.received).toHaveLength(0);
    });

    it('takes odd content types and multi-valued headers', async () => {
      await setUp();
      const id = await token();
      for (const type of [';;;', 'application/json; charset=utf-16', 'APPLICATION/JSON', 'text/', 'application/vnd.x+json', 'multipart/form-data; boundary=x']) {
        const res = await call('POST').set('Content-Type', type).send(`{"n":"{{ ${id} }}"}`);
        expect([type, res.status]).toEqual([type, 200]);
      }
      const res = await call('POST').set('X-Card', [`{{ ${id} }}`, 'b'] as unknown as string).send({});
      expect(res.status).toBe(200);
      expect(dest.received.at(-1)!.headers['x-card']).toBe(`${VISA}, b`);
    });
  });

  describe('nothing reaches the destination that should not', () => {
    it('strips API keys, proxy keys (header or query, any spelling), SVC-PROXY-* and BT-PROXY-*, and hop-by-hop headers', async () => {
      await setUp();
      const { key } = await createProxy({});
      const sent = async (req: request.Test) => {
        await req.expect(200);
        return dest.received.at(-1)!;
      };
      const checks = [
        await sent(request(h.app).post(`/proxy/x?a=1&svc-proxy-key=${key}&b=2`).set('SVC-API-KEY', backend).send({})),
        await sent(request(h.app).post(`/proxy/x?BT-PROXY-KEY=${key}`).set('BT-API-KEY', backend).send({})),
        await sent(request(h.app).post(`/proxy/x?svc%2Dproxy%2Dkey=${key}`).set('SVC-API-KEY', backend).send({})),
        await sent(request(h.app).post(`/proxy/x?Svc-Proxy-Key=${encodeURIComponent(key)}&svc-proxy-key=${key}`).set('SVC-API-KEY', backend).send({})),
        await sent(
          request(h.app)
            .post('/proxy/x')
            .set('SVC-PROXY-KEY', key)
            .set('BT-PROXY-KEY', key)
            .set('SVC-API-KEY', backend)
            .set('BT-API-KEY', backend)
            .set('SVC-PROXY-URL', 'https://example.com')
            .set('BT-PROXY-URL', 'https://example.com')
            .set('SVC-PROXY-ANYTHING', 'x')
            .set('Proxy-Authorization', 'Basic abc')
            .set('Proxy-Connection', 'keep-alive')
            .set('Keep-Alive', 'timeout=5')
            .set('TE', 'trailers')
            .set('Connection', 'keep-alive, X-Secret')
            .set('X-Secret', 'hop')
            .send({}),
        ),
      ];
      for (const received of checks) {
        const text = JSON.stringify(received);
        expect(text).not.toContain(key);
        expect(text).not.toContain(backend);
        expect(Object.keys(received.headers).filter((n) => /^(svc|bt)-/.test(n) && n !== 'svc-trace-id')).toEqual([]);
        for (const hop of ['proxy-authorization', 'proxy-connection', 'keep-alive', 'te', 'trailer', 'x-secret']) expect(received.headers[hop]).toBeUndefined();
      }
      expect(checks.map((r) => r.url)).toEqual(['/v1/base/x?a=1&b=2', '/v1/base/x', '/v1/base/x', '/v1/base/x', '/v1/base/x']);
    });

    it('sends no Upgrade on', async () => {
      await setUp();
      const server = await listening(h.app);
      try {
        const answer = await rawHttp(server.port, `GET /proxy HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: ${backend}\r\nSVC-PROXY-URL: ${destUrl()}\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
        expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 (200|4\d\d) /);
      } finally {
        await server.close();
      }
      for (const r of dest.received) {
        expect(r.headers.upgrade).toBeUndefined();
        expect(String(r.headers.connection ?? '')).not.toMatch(/upgrade/i);
      }
    });

    it('needs only proxy:invoke for a call that names no token', async () => {
      await setUp();
      const invokeOnly = await applicationKey(h, { name: 'invoke only', type: 'private', permissions: ['proxy:invoke'] });
      await call('POST', '/proxy', invokeOnly).set('X-A', 'b').send({ a: 'no tokens {here}' }).expect(200);
      const id = await token();
      expectProblem(await call('POST', '/proxy', invokeOnly).send({ a: `{{ ${id} }}` }), 403);
      expect(dest.received).toHaveLength(1);
    });

    it('sends nothing when the proxy answers 4xx itself', async () => {
      await setUp();
      const id = await token();
      const other = await h.createTenant('Other');
      const foreignKey = await applicationKey({ ...h, key: other.management.key }, { name: 'f', type: 'private', permissions: ['token:create', 'token:read', 'token:use', 'proxy:invoke'] });
      const foreign = (await as(h.app, foreignKey).post('/tokens').send({ type: 'token', data: 'theirs' }).expect(201)).body.id as string;
      const masked = await applicationKey(h, { name: 'masked', type: 'private', permissions: ['token:read', 'proxy:invoke'] });
      const many = await Promise.all(Array.from({ length: 21 }, () => token()));
      const attempts: Array<[request.Test, number]> = [
        [call('POST', '/proxy', masked).send({ n: `{{ ${id} }}` }), 403],
        [call('POST').send({ n: `{{ ${foreign} }}` }), 400],
        [call('POST').set('X-A', `{{ ${foreign} }}`).send({}), 400],
        [call('POST').send(many.map((t) => `{{ ${t} }}`)), 400],
        [call('POST').send({ n: `{{ ${id} | json: '$.nope' }}` }), 400],
        [call('POST', '/proxy/..'), 400],
        [request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', `https://127.0.0.1:${victim.port}/`).send({ n: `{{ ${id} }}` }), 400],
      ];
      for (const [req, status] of attempts) expectProblem(await req, status);
      expect(dest.received).toHaveLength(0);
      expect(dest.connections()).toBe(0);
      expect(victim.connections()).toBe(0);
    });

    it('reads no token for a destination the outbound policy refuses: no event says it was sent', async () => {
      await setUp();
      const id = await token();
      expectProblem(await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', `https://127.0.0.1:${victim.port}/`).send({ n: `{{ ${id} }}` }), 400);
      await h.settleAudit();
      const logs = await mgmt().get(`/logs?entity_id=${id}&size=100`).expect(200);
      expect((logs.body.data as Array<{ operation: string }>).map((e) => e.operation)).toEqual(['create']);
    });
  });

  describe('token values cannot change the shape of what is sent', () => {
    it('escapes a token value in JSON and form bodies, so it cannot add fields', async () => {
      await setUp();
      const id = await token('x","admin":true,"y":"');
      const amp = await token('1&admin=true&x=');
      await call('POST').send({ n: `{{ ${id} }}`, m: `a {{ ${id} }} b` }).expect(200);
      expect(JSON.parse(dest.received[0]!.body)).toEqual({ n: 'x","admin":true,"y":"', m: 'a x","admin":true,"y":" b' });
      await call('POST').type('form').send(`n=${encodeURIComponent(`{{ ${amp} }}`)}`).expect(200);
      expect([...new URLSearchParams(dest.received[1]!.body)]).toEqual([['n', '1&admin=true&x=']]);
    });

    it('passes every other value of a detokenized JSON body on exactly, large integers included', async () => {
      await setUp();
      const id = await token();
      const raw = `{"order":12345678901234567891,"n":"{{ ${id} }}"}`;
      await call('POST').set('Content-Type', 'application/json').send(raw).expect(200);
      expect(dest.received[0]!.body).toContain('12345678901234567891');
    });
  });

  describe('SSRF', () => {
    it('refuses every spelling of a loopback, private or metadata destination, and credentials, without contacting it', async () => {
      await setUp();
      const p = victim.port;
      const urls = [
        `https://localhost:${p}/`,
        `https://[::1]:${p}/`,
        `https://[::ffff:127.0.0.1]:${p}/`,
        `https://[::ffff:7f00:1]:${p}/`,
        `https://[0:0:0:0:0:0:0:1]:${p}/`,
        `https://0.0.0.0:${p}/`,
        `https://0:${p}/`,
        `https://2130706433:${p}/`,
        `https://0x7f000001:${p}/`,
        `https://0x7f.0.0.1:${p}/`,
        `https://0177.0.0.1:${p}/`,
        `https://127.1:${p}/`,
        `https://127.0.0.2:${p}/`,
        `https://[::]:${p}/`,
        `http://127.0.0.1:${p}/`,
        `https://169.254.169.254/latest/meta-data/`,
        `https://[fd00:ec2::254]/`,
        `https://10.0.0.1/`,
        `https://192.168.1.1/`,
        `https://100.64.0.1/`,
        `https://user:pass@127.0.0.1:${dest.port}/`,
        `https://127.0.0.1:${dest.port}@127.0.0.1:${p}/`,
        `file:///etc/passwd`,
        `gopher://127.0.0.1:${p}/`,
        `ws://127.0.0.1:${dest.port}/`,
        `//127.0.0.1:${dest.port}/`,
        `https:127.0.0.1:${p}`,
      ];
      for (const url of urls) {
        const res = await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', url).send({});
        expect([url, res.status]).toEqual([url, 400]);
        expect(Object.keys(res.body.errors)).toEqual(['SVC-PROXY-URL']);
      }
      // A backslash ends the host in an https URL: this one names the listed destination, and goes there.
      await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', `https://127.0.0.1:${dest.port}\\@127.0.0.1:${p}/`).send({}).expect(200);
      expect(dest.received.map((r) => r.url)).toEqual([`/@127.0.0.1:${p}/`]);
      // Names: refused on the address they resolve to (400), or not resolved at all (502); never contacted.
      for (const url of [`https://LOCALHOST.:${p}/`, `https://localhost.localdomain:${p}/`, `https://ip6-localhost:${p}/`]) {
        const res = await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', url).send({});
        expect([url, [400, 502].includes(res.status)]).toEqual([url, true]);
      }
      expect(victim.connections()).toBe(0);
      expect(dest.received).toHaveLength(1);
    });

    it('follows no redirect', async () => {
      await setUp((_r, res) => {
        res.writeHead(302, { location: `https://127.0.0.1:${victim.port}/stolen` });
        res.end();
      });
      const res = await call('GET').expect(302);
      expect(res.headers.location).toBe(`https://127.0.0.1:${victim.port}/stolen`);
      expect(victim.connections()).toBe(0);
    });

    it('refuses at create a configured header that cannot be rendered; one that can is sent', async () => {
      await setUp();
      for (const value of ['{{ configuration.MISSING }}', "{{ configuration.K | json: '$.x' }}"]) {
        const res = await mgmt()
          .post('/proxies')
          .send({ name: 'P', destination_url: destUrl('/v1/base'), configuration: { K: 'not json' }, request_transforms: [{ type: 'append_header', name: 'X-Key', value }] });
        expectProblem(res, 400);
        expect([value, Object.keys(res.body.errors)]).toEqual([value, ['request_transforms[0].value']]);
      }
      const value = '{{ configuration.K | append: configuration.K | append: configuration.K }}';
      const { key } = await createProxy({ configuration: { K: 'k' }, request_transforms: [{ type: 'append_header', name: 'X-Key', value }] });
      await request(h.app).post('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend).send({}).expect(200);
      expect(dest.received[0]!.headers['x-key']).toBe('kkk');
    });

    it("never renders a caller's text as an expression over the proxy's configuration", async () => {
      await setUp();
      const { key } = await createProxy({ configuration: { API_KEY: 'sk_live_never_out' } });
      for (const text of ['{{ configuration.API_KEY }}', "{{ token: configuration.API_KEY | json: '$' }}", '{{configuration}}']) {
        const res = await request(h.app).post('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend).set('X-A', text).send({ a: text });
        expect(res.text).not.toContain('sk_live_never_out');
      }
      expect(JSON.stringify(dest.received)).not.toContain('sk_live_never_out');
    });

    it('lets no create or update set the key, id or tenant of a proxy', async () => {
      await setUp();
      const { id, key } = await createProxy({});
      for (const field of ['key', 'id', 'tenant_id', 'key_hash', 'version']) {
        const body = { name: 'P', destination_url: destUrl(), [field]: field === 'version' ? 9 : 'key_prx_chosen' };
        expectProblem(await mgmt().post('/proxies').send(body), 400);
        expectProblem(await mgmt().put(`/proxies/${id}`).send(body), 400);
        expectProblem(await mgmt().patch(`/proxies/${id}`).send({ [field]: 'key_prx_chosen' }), 400);
      }
      expectProblem(await request(h.app).post('/proxy').set('SVC-PROXY-KEY', 'key_prx_chosen').set('SVC-API-KEY', backend).send({}), 401);
      await request(h.app).post('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend).send({}).expect(200);
    });

    it('refuses a destination_url update to a refused URL, leaving the proxy as it was', async () => {
      await setUp();
      const { id } = await createProxy({});
      for (const url of [`https://127.0.0.1:${victim.port}/`, 'https://[::1]/', 'http://example.com/', 'https://a:b@example.com/', 'https://example.com/#x', 'not a url']) {
        const patched = await mgmt().patch(`/proxies/${id}`).send({ destination_url: url });
        expectProblem(patched, 400);
        expect(Object.keys(patched.body.errors)).toEqual(['destination_url']);
        expectProblem(await mgmt().put(`/proxies/${id}`).send({ name: 'P', destination_url: url }), 400);
      }
      expect((await mgmt().get(`/proxies/${id}`).expect(200)).body.destination_url).toBe(destUrl('/v1/base'));
    });

    it('keeps a pre-configured proxy on its host and under its path whatever the suffix', async () => {
      await setUp();
      const { key } = await createProxy({});
      const refused = ['/proxy/..', '/proxy/../x', '/proxy/%2e%2e/x', '/proxy/.%2E/x', '/proxy/%2E./x', '/proxy/a/../../x', '/proxy/%2f%2fevil.com', '/proxy/a%2f..%2f..', '/proxy/..%5cx', '/proxy/%5c%5cevil.com', '/proxy/.', '/proxy/a/./b'];
      for (const path of refused) {
        const res = await request(h.app).get(path).set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend);
        expect([path, res.status]).toEqual([path, 400]);
      }
      const passed = ['/proxy//evil.com', '/proxy/@evil.com', '/proxy/x@evil.com:443', '/proxy/%40evil.com', '/proxy/x?@evil.com', '/proxy/x?u=https://evil.com', '/proxy/:443@evil.com', '/proxy/%09..', '/proxy/..%00', '/proxy/%20..'];
      for (const path of passed) {
        const res = await request(h.app).get(path).set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend);
        expect([path, res.status]).toEqual([path, 200]);
      }
      expect(dest.received).toHaveLength(passed.length);
      for (const r of dest.received) {
        expect(r.url.startsWith('/v1/base/')).toBe(true);
        expect(r.headers.host).toBe(`127.0.0.1:${dest.port}`);
        expect(new URL(r.url, 'https://x.test').pathname.split('/').includes('..')).toBe(false);
      }
      expect(victim.connections()).toBe(0);
    });

    it('takes the path suffix from the path, also for a request line in absolute form', async () => {
      await setUp();
      const { key } = await createProxy({});
      const server = await listening(h.app);
      try {
        const answer = await rawHttp(server.port, `GET http://svc.example/proxy/abs HTTP/1.1\r\nHost: svc.example\r\nSVC-PROXY-KEY: ${key}\r\nSVC-API-KEY: ${backend}\r\nConnection: close\r\n\r\n`);
        expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      } finally {
        await server.close();
      }
      expect(dest.received.map((r) => r.url)).toEqual(['/v1/base/abs']);
    });
  });

  describe('tenant isolation', () => {
    it("keeps every tenant's proxies and tokens apart", async () => {
      await setUp();
      const mine = await createProxy({ configuration: { SECRET: 'cfg-secret-1' } });
      const other = await h.createTenant('Other');
      const theirs = as(h.app, other.management.key);
      const theirKey = await applicationKey({ ...h, key: other.management.key }, { name: 'x', type: 'private', permissions: ['token:create', 'token:read', 'token:use', 'proxy:invoke'] });
      expectProblem(await theirs.get(`/proxies/${mine.id}`), 404);
      expectProblem(await theirs.patch(`/proxies/${mine.id}`).send({ name: 'owned' }), 404);
      expectProblem(await theirs.put(`/proxies/${mine.id}`).send({ name: 'owned', destination_url: destUrl() }), 404);
      expectProblem(await theirs.delete(`/proxies/${mine.id}`), 404);
      expect((await theirs.get('/proxies').expect(200)).body.data).toEqual([]);
      expect((await theirs.get(`/proxies?id=${mine.id}`).expect(200)).body.data).toEqual([]);
      // Their API key with my proxy key; my API key with their token.
      expectProblem(await request(h.app).post('/proxy').set('SVC-PROXY-KEY', mine.key).set('SVC-API-KEY', theirKey).send({}), 401);
      const theirToken = (await as(h.app, theirKey).post('/tokens').send({ type: 'token', data: 'their-secret' }).expect(201)).body.id as string;
      expectProblem(await request(h.app).post('/proxy').set('SVC-PROXY-KEY', mine.key).set('SVC-API-KEY', backend).send({ t: `{{ ${theirToken} }}` }), 400);
      expect((await mgmt().get(`/proxies/${mine.id}`).expect(200)).body.name).toBe('P');
      expect(dest.received).toHaveLength(0);
    });

    it("does not let a proxy reveal another tenant's token, pre-configured or open", async () => {
      await setUp();
      await applicationKey(h, { name: 'inbound', type: 'private', permissions: ['token:read', 'token:use'] });
      const configured = await createProxy({});
      const open = await createProxy({ require_auth: false, application_id: await appId('inbound') });
      const other = await h.createTenant('Other');
      const theirKey = await applicationKey({ ...h, key: other.management.key }, { name: 'x', type: 'private', permissions: ['token:create'] });
      const theirToken = (await as(h.app, theirKey).post('/tokens').send({ type: 'token', data: 'their-secret' }).expect(201)).body.id as string;
      expectProblem(await request(h.app).post('/proxy').set('SVC-PROXY-KEY', configured.key).set('SVC-API-KEY', backend).send({ t: `{{ ${theirToken} }}` }), 400);
      expect(dest.received).toHaveLength(0);
      // An open proxy detokenizes nothing: the expression goes on as it came.
      await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).send({ t: `{{ ${theirToken} }}` }).expect(200);
      expect(dest.received.map((r) => r.body).join()).not.toContain('their-secret');
    });
  });


  describe('the open inbound proxy (require_auth: false)', () => {
    /** An open proxy to an echoing destination, whose application may reveal every token. */
    async function openEcho(extra: Record<string, unknown> = {}) {
      await setUp();
      await applicationKey(h, { name: 'inbound', type: 'private', permissions: ['token:create', 'token:read', 'token:use'] });
      return createProxy({ require_auth: false, application_id: await appId('inbound'), ...extra });
    }

    // An open proxy never detokenizes: anyone with its key could otherwise have a token its application may reveal
    // sent to the destination, and read it back from a destination that echoes.
    it('never detokenizes for an anonymous caller: the expressions go on as text', async () => {
      const open = await openEcho();
      const id = await token();
      const res = await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).set('X-Card', `{{ ${id} }}`).send({ n: `{{ ${id} }}` });
      expect(res.text).not.toContain(VISA);
      expect(dest.received[0]!.body).not.toContain(VISA);
      expect(JSON.parse(dest.received[0]!.body)).toEqual({ n: `{{ ${id} }}` });
      expect(dest.received[0]!.headers['x-card']).toBe(`{{ ${id} }}`);
    });

    it("refuses calls made by a page of the vault's own origin (the console), open proxy or not, and reaches nothing", async () => {
      const open = await openEcho();
      for (const req of [
        request(h.app).get(`/proxy/payload.js?svc-proxy-key=${open.key}`),
        request(h.app).post(`/proxy/steal?svc-proxy-key=${open.key}`).send({ k: 'v' }),
        call('POST').send({ a: 1 }),
      ]) {
        expectProblem(await req.set('Sec-Fetch-Site', 'same-origin'), 403);
      }
      expect(dest.received).toEqual([]);
      // Another site's page (a partner's form) and a server (no Sec-Fetch-Site) still go through.
      expect((await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).set('Sec-Fetch-Site', 'cross-site').send({ a: 1 })).status).toBe(200);
      expect((await call('POST').send({ a: 1 })).status).toBe(200);
      expect(dest.received).toHaveLength(2);
    });

    /** A proxy open to anyone that tokenizes the value at `matcher` as a token of `type`, for an application that may only create tokens. */
    const captureProxy = async (matcher: string, type: string) => {
      await setUp();
      await applicationKey(h, { name: 'capture', type: 'private', permissions: ['token:create'] });
      return createProxy({
        require_auth: false,
        application_id: await appId('capture'),
        request_transforms: [{ type: 'tokenize', matcher, token: { type } }],
      });
    };

    it('captures cards with an application that may only create tokens', async () => {
      const open = await captureProxy('$.number', 'card_number');
      await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).send({ number: VISA }).expect(200);
      expect(dest.received[0]!.body).not.toContain(VISA);
    });

    it('sends no plaintext on when a body it must tokenize is not JSON', async () => {
      const open = await captureProxy('$.number', 'card_number');
      const json = JSON.stringify({ number: VISA });
      for (const type of ['text/plain', '', 'application/octet-stream', 'application/x-www-form-urlencoded']) {
        const body = type === 'application/x-www-form-urlencoded' ? `number=${VISA}` : json;
        const res = await bytes(request(h.app).post(`/proxy?svc-proxy-key=${open.key}`), type, Buffer.from(body));
        expect([type, res.status]).toEqual([type, 400]);
      }
      expect(dest.received).toHaveLength(0);
    });

    it('sends no card number a repeated key hid from the tokenize matcher: the body goes as it was read', async () => {
      const open = await captureProxy('$.card.number', 'card_number');
      for (const body of [`{"card":{"number":"${VISA}"},"card":{"cvc":"123"}}`, `{"card":{"number":"${VISA}","number":null}}`]) {
        await bytes(request(h.app).post(`/proxy?svc-proxy-key=${open.key}`), 'application/json', Buffer.from(body)).expect(200);
      }
      expect(dest.received.map((r) => r.body)).toEqual(['{"card":{"cvc":"123"}}', '{"card":{"number":null}}']);
    });

    it('measures the depth of the JSON text, values JSON.parse drops included: 400 for a request, 502 for an answer, never a crash', async () => {
      await setUp();
      const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
      const id = await token();
      expectProblem(await bytes(call('POST'), 'application/json', Buffer.from(`{"x":"{{ ${id} }}","a":${deep},"a":1}`)), 400);
      expect(dest.received).toHaveLength(0);
    });

    it('names the field of the body for every error of a value it tokenizes, those of the value itself included', async () => {
      const open = await captureProxy('$.card', 'token');
      const deep = JSON.parse('['.repeat(40) + '"4242424242424242"' + ']'.repeat(40)) as unknown;
      for (const [card, field] of [
        [deep, /^body\.card\.data(\[0\])+$/],
        [{ a: 9007199254740993 }, /^body\.card\.data\.a$/],
      ] as const) {
        const res = await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).set('Content-Type', 'application/json').send(JSON.stringify({ card }).replace('9007199254740992', '9007199254740993'));
        expectProblem(res, 400);
        expect(Object.keys(res.body.errors)).toEqual([expect.stringMatching(field)]);
      }
      expect(dest.received).toHaveLength(0);
    });

    it('needs its key: no key, a wrong key or a deleted proxy is 401 and nothing is sent', async () => {
      const open = await openEcho();
      expectProblem(await request(h.app).post('/proxy').send({}), 401);
      expectProblem(await request(h.app).post('/proxy?svc-proxy-key=key_prx_wrong').send({}), 401);
      await mgmt().delete(`/proxies/${open.id}`).expect(204);
      expectProblem(await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).send({}), 401);
      expect(dest.received).toHaveLength(0);
    });

    it('answers 409 when its application is gone, sending nothing', async () => {
      const open = await openEcho();
      await mgmt().delete(`/applications/${await appId('inbound')}`).expect(204);
      expectProblem(await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).send({}), 409);
      expect(dest.received).toHaveLength(0);
    });

    it('refuses a tokenize transform flood beyond the tokenize limit', async () => {
      await setUp();
      await applicationKey(h, { name: 'inbound', type: 'private', permissions: ['token:create', 'token:read', 'token:use'] });
      const open = await createProxy({
        require_auth: false,
        application_id: await appId('inbound'),
        request_transforms: [{ type: 'tokenize', matcher: '$[*]', token: { type: 'token' } }],
      });
      const res = await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).send(Array.from({ length: 5_000 }, (_, i) => `v${i}`));
      expectProblem(res, 400);
      expect(dest.received).toHaveLength(0);
      expect((await as(h.app, backend).get('/tokens?size=1').expect(200)).body.pagination.total_items).toBe(0);
    });
  });

  describe('the answer path', () => {
    const masked = (extra: Record<string, unknown> = {}) =>
      createProxy({ response_transforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{12}(\\d{4})', replacement: 'XXXX' }], ...extra });
    /** A GET through the pre-configured proxy of `key`, its answer's body as the text that came (not parsed). */
    const answerText = (key: string) =>
      request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend).buffer(true).parse((r, done) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => done(null, text));
      });

    it('fails closed (502) on a compressed or non-UTF-8 answer it must mask', async () => {
      await setUp((r, res) => {
        if (r.url.endsWith('/gzip')) {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          res.end(gzipSync(VISA));
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(Buffer.concat([Buffer.from(VISA), Buffer.from([0xff])]));
        }
      });
      const { key } = await masked();
      for (const path of ['/proxy/gzip', '/proxy/latin1']) {
        const res = await request(h.app).get(path).set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend);
        expectProblem(res, 502);
        expect(res.text).not.toContain(VISA);
      }
      expect(dest.received.map((r) => r.headers['accept-encoding'])).toEqual(['identity', 'identity']);
    });

    it('fails closed (502) on an answer declared in any charset but UTF-8 or US-ASCII, or holding NUL bytes: never unmasked', async () => {
      // The destination answers `card <VISA>` in the encoding the call asks for, under the Content-Type it asks for.
      await setUp((r, res) => {
        res.writeHead(200, { 'content-type': String(r.headers['x-type']) });
        res.end(Buffer.from(`card ${VISA} ok`, r.headers['x-encoding'] as BufferEncoding));
      });
      // A regex that also matches the card's UTF-16 spelling: it must not matter what the mask could have matched.
      const { key } = await createProxy({ response_transforms: [{ type: 'mask', matcher: 'regex', expression: '4(\\x00?\\d){15}', replacement: 'XXXX' }] });
      const ask = (type: string, encoding: string) =>
        request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend).set('X-Type', type).set('X-Encoding', encoding).buffer(true).parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      const digits = (body: Buffer) => body.toString('latin1').replace(/[^0-9]/g, '');
      const label = fc.constantFrom('utf-16le', 'utf-16', 'UTF-16BE', 'utf-32', 'iso-8859-1', 'windows-1252', 'shift_jis', 'ucs-2');
      await fc.assert(
        fc.asyncProperty(label, fc.boolean(), fc.constantFrom('text/plain', 'application/json', 'text/html'), fc.constantFrom<BufferEncoding>('utf16le', 'utf8', 'latin1'), async (charset, quoted, type, encoding) => {
          const res = await ask(`${type}; charset=${quoted ? `"${charset}"` : charset}`, encoding);
          expectProblem(res, 502);
          expect(digits(res.body as Buffer)).not.toContain(VISA);
        }),
        { seed: 16, numRuns: 12 },
      );
      // UTF-16 sent without a charset, or as UTF-8: NUL bytes are valid UTF-8, but no text a mask may read holds them.
      for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/octet-stream']) {
        const res = await ask(type, 'utf16le');
        expectProblem(res, 502);
        expect(digits(res.body as Buffer)).not.toContain(VISA);
      }
      // What the masks can read is masked, however UTF-8 is declared.
      for (const type of ['text/plain; charset="UTF-8"', 'text/plain;charset=us-ascii', 'text/plain']) {
        const res = await ask(type, 'utf8');
        expect([res.status, (res.body as Buffer).toString()]).toEqual([200, 'card XXXX ok']);
      }
    });

    it('lets no Range request cut a masked value into pieces the mask does not see', async () => {
      await setUp((r, res) => {
        const body = Buffer.from(`card ${VISA} ok`);
        const range = /^bytes=(\d+)-(\d+)$/.exec(String(r.headers.range ?? ''));
        if (range) {
          const [from, to] = [Number(range[1]), Number(range[2])];
          res.writeHead(206, { 'content-type': 'text/plain', 'content-range': `bytes ${from}-${to}/${body.length}` });
          res.end(body.subarray(from, to + 1));
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(body);
        }
      });
      const { key } = await masked();
      let seen = '';
      for (let from = 0; from < 30; from += 8) {
        const res = await request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend).set('Range', `bytes=${from}-${from + 7}`);
        if (res.status < 300) seen += res.text;
      }
      expect(seen).not.toContain(VISA);
      const whole = await request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend).expect(200);
      expect(whole.text).toBe('card XXXX ok');
    });

    it('masks a JSON answer without changing its other values', async () => {
      await setUp((_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{ "id": 12345678901234567891, "amount": 1.50, "card": "${VISA}" }`);
      });
      const { key } = await createProxy({ response_transforms: [{ type: 'mask', matcher: '$.card', replacement: 'XXXX' }] });
      const res = await answerText(key);
      expect(res.body).toBe('{ "id": 12345678901234567891, "amount": 1.50, "card": "XXXX" }');
    });

    it('never passes on a value a repeated JSON key hid from the mask: every repeated key goes once, as the mask read it', async () => {
      const answers = [`{"pan":"${VISA}","pan":"n/a"}`, `{"card":{"pan":"${VISA}"},"card":{"x":1}}`, `{"k":1,"in":{"pan":"${VISA}","pan":"****"}}`];
      let next = 0;
      await setUp((_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answers[next++]);
      });
      const masks = [
        { type: 'mask', matcher: '$.pan', expression: '\\d{16}', replacement: 'XXXX' },
        { type: 'mask', matcher: '$.card.pan', replacement: 'XXXX' },
        { type: 'mask', matcher: '$.in.pan', replacement: 'XXXX' },
      ];
      const seen: string[] = [];
      for (const mask of masks) {
        const { key } = await createProxy({ response_transforms: [mask] });
        const res = await answerText(key);
        seen.push(res.body as string);
      }
      expect(seen).toEqual(['{"pan":"n/a"}', '{"card":{"x":1}}', '{"k":1,"in":{"pan":"XXXX"}}']);
    });

    it('fails closed (502) on an answer nested too deep in a value JSON.parse drops, and masks numbers by their digits', async () => {
      const answers = [`{"a":${'['.repeat(5_000)}${']'.repeat(5_000)},"a":1}`, '{"a":{"number":4242424242424242000000},"b":{"number":0.0000004242424242424242}}'];
      let next = 0;
      await setUp((_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answers[next++]);
      });
      const nothing = await createProxy({ response_transforms: [{ type: 'mask', matcher: '$.card.number', replacement: 'XXXX' }] });
      expectProblem(await request(h.app).get('/proxy').set('SVC-PROXY-KEY', nothing.key).set('SVC-API-KEY', backend), 502);
      const digits = await createProxy({ response_transforms: [{ type: 'mask', matcher: '$..number', expression: '\\d{12}(\\d{4})', replacement: 'XXXX' }] });
      const res = await answerText(digits.key);
      expect(res.status).toBe(200);
      expect(res.body).not.toMatch(/\d{12}/);
    });

    it('passes 204, 304 and HEAD answers on without a body, masked or not', async () => {
      await setUp((r, res) => {
        if (r.url.endsWith('/204')) res.writeHead(204, { 'x-a': '1' });
        else if (r.url.endsWith('/304')) res.writeHead(304, { etag: '"x"' });
        else res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '16' });
        res.end(r.method === 'HEAD' || r.url.endsWith('/204') || r.url.endsWith('/304') ? undefined : VISA);
      });
      const { key } = await masked();
      for (const key2 of [key, (await createProxy({})).key]) {
        expect((await request(h.app).get('/proxy/204').set('SVC-PROXY-KEY', key2).set('SVC-API-KEY', backend)).status).toBe(204);
        expect((await request(h.app).get('/proxy/304').set('SVC-PROXY-KEY', key2).set('SVC-API-KEY', backend)).status).toBe(304);
        const head = await request(h.app).head('/proxy/x').set('SVC-PROXY-KEY', key2).set('SVC-API-KEY', backend);
        expect(head.status).toBe(200);
      }
    });

    it('passes on a HEAD answer that states a length past the body limit (it has no body)', async () => {
      await setUp((_r, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(50 * 1024 * 1024) });
        res.end();
      }, { SVC_BODY_LIMIT: '1mb' });
      const head = await call('HEAD', '/proxy/file');
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(50 * 1024 * 1024));
    });

    it('answers 502 for a destination answering with huge headers or a status line it cannot take, and passes odd 3-digit statuses on', async () => {
      await setUp((r, res) => {
        if (r.url.endsWith('/headers')) {
          res.writeHead(200, { 'x-big': 'a'.repeat(100_000) });
          res.end('x');
        } else {
          const code = r.url.split('/').pop()!;
          res.socket!.end(`HTTP/1.1 ${code} Odd\r\ncontent-length: 2\r\n\r\nok`);
        }
      });
      for (const path of ['/proxy/headers', '/proxy/099', '/proxy/000', '/proxy/101']) expectProblem(await call('GET', path), 502);
      for (const code of [600, 999]) {
        const res = await call('GET', `/proxy/${code}`);
        expect([res.status, res.headers['svc-proxy-destination-status'], res.text]).toEqual([code, String(code), 'ok']);
      }
    });

    it('cuts the connection when the destination closes mid-body, and keeps serving', async () => {
      await setUp((_r, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
        res.write('partial');
        setTimeout(() => res.destroy(), 20);
      });
      const cut = await call('GET').then(() => 'answered', (error: Error) => error.message);
      expect(cut).toMatch(/aborted|socket hang up|ECONNRESET/);
      const { key } = await masked();
      const res = await request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend);
      expectProblem(res, 502);
    });

    it('bounds a masked answer trickled in slowly by the proxy timeout', async () => {
      await setUp((_r, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        let n = 0;
        const timer = setInterval(() => {
          if (n++ >= 12 || res.destroyed) {
            clearInterval(timer);
            res.end();
          } else res.write('x');
        }, 250);
      }, { SVC_PROXY_TIMEOUT: '1' });
      const { key } = await masked();
      const started = Date.now();
      const res = await request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend);
      expectProblem(res, 504);
      expect(Date.now() - started).toBeLessThan(2_500);
    });

    it('refuses a masked answer over the body limit, chunked', async () => {
      await setUp((_r, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x'.repeat(8_000));
        setTimeout(() => res.end('y'.repeat(8_000)), 20);
      }, { SVC_BODY_LIMIT: '10kb' });
      const { key } = await masked();
      expectProblem(await request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend), 502);
    });

    it("keeps svc's own no-store and trace headers over the destination's", async () => {
      await setUp((_r, res) => {
        res.writeHead(200, { 'cache-control': 'public, max-age=3600', 'svc-trace-id': 'forged', 'access-control-allow-origin': 'https://evil.example', 'svc-proxy-destination-status': '999' });
        res.end('x');
      });
      const res = await call('GET').set('SVC-TRACE-ID', 'mine').expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['svc-trace-id']).toBe('mine');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['svc-proxy-destination-status']).toBe('200');
    });
  });

  describe('answer headers that would speak for the vault', () => {
    const ORIGIN_BOUND = ['set-cookie', 'set-cookie2', 'clear-site-data', 'refresh', 'strict-transport-security', 'alt-svc', 'public-key-pins'];

    it('drops cookies, Clear-Site-Data, Refresh and every SVC-* header, and never lets one replace a header svc set', async () => {
      // The destination answers with the headers the call lists in X-Answer (JSON), whatever they are.
      await setUp((r, res) => {
        for (const [name, value] of JSON.parse(String(r.headers['x-answer'])) as Array<[string, string | string[]]>) res.setHeader(name, value);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`card ${VISA}`);
      });
      const { key } = await createProxy({ response_transforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{16}', replacement: 'XXXX' }] });
      const fixed: Array<[string, string | string[]]> = [
        ['Set-Cookie', ['session=evil; Path=/; HttpOnly', 'other=1']],
        ['Set-Cookie2', 'a=1'],
        ['Clear-Site-Data', '"*"'],
        ['Refresh', '0; url=https://evil.example/'],
        ['Strict-Transport-Security', 'max-age=0'],
        ['X-Content-Type-Options', ''],
        ['Cache-Control', 'public, max-age=86400'],
        ['SVC-IDEMPOTENT-REPLAYED', 'true'],
        ['SVC-Trace-Id', 'forged'],
        ['BT-Trace-Id', 'forged'],
        ['Access-Control-Allow-Origin', '*'],
        ['X-Request-Id', 'theirs'],
        ['ETag', '"v1"'],
      ];
      const svcName = fc.stringMatching(/^[a-z0-9-]{1,20}$/).map((rest) => `SVC-${rest}`);
      const theirName = fc.stringMatching(/^x-[a-z0-9-]{1,20}$/);
      await fc.assert(
        fc.asyncProperty(svcName, theirName, fc.boolean(), async (svc, theirs, masked) => {
          const answer: Array<[string, string | string[]]> = [...fixed, [svc, 'true'], [theirs, 'kept']];
          const req = masked ? request(h.app).get('/proxy').set('SVC-PROXY-KEY', key).set('SVC-API-KEY', backend) : call('GET');
          const res = await req.set('SVC-TRACE-ID', 'mine').set('X-Answer', JSON.stringify(answer)).expect(200);
          for (const name of ORIGIN_BOUND) expect([name, res.headers[name]]).toEqual([name, undefined]);
          expect(Object.keys(res.headers).filter((n) => n.startsWith('svc-')).sort()).toEqual(['svc-proxy-destination-status', 'svc-trace-id']);
          expect(res.headers['bt-trace-id']).toBeUndefined();
          expect(res.headers['svc-trace-id']).toBe('mine');
          expect(res.headers['x-content-type-options']).toBe('nosniff');
          expect(res.headers['cache-control']).toBe('no-store');
          expect(res.headers['access-control-allow-origin']).toBeUndefined();
          expect(res.headers['content-security-policy']).toBe('sandbox');
          expect([res.headers['x-request-id'], res.headers[theirs]]).toEqual(['theirs', 'kept']);
          expect(res.text).toBe(masked ? 'card XXXX' : `card ${VISA}`);
        }),
        { seed: 7, numRuns: 10 },
      );
    });
  });

  describe('a caller that goes away', () => {
    /** Wraps the proxy use case so a test sees when an answer's body stops being read (its iterator finished). */
    function watchAnswers(): { finished: () => number } {
      const useCases = h.container.resolve<ProxyUseCases>(TOKENS.ProxyUseCases);
      const execute = useCases.invoke.execute.bind(useCases.invoke);
      let finished = 0;
      useCases.invoke.execute = async (...args) => {
        const answer = await execute(...args);
        if (answer.body instanceof Uint8Array) return answer;
        const source = answer.body;
        async function* watched() {
          try {
            yield* source;
          } finally {
            finished += 1;
          }
        }
        return { ...answer, body: watched() };
      };
      return { finished: () => finished };
    }

    /** Sends a proxy request over a raw socket, reads `readBytes` of the answer, then stops reading and hangs up. */
    function hangUp(port: number, readBytes: number, afterMs: number): Promise<void> {
      return new Promise((resolve) => {
        const socket = netConnect(port, '127.0.0.1', () =>
          socket.write(`GET /proxy HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: ${backend}\r\nSVC-PROXY-URL: ${destUrl()}\r\n\r\n`),
        );
        let read = 0;
        socket.on('data', (c: Buffer) => {
          read += c.length;
          if (read >= readBytes) socket.pause();
        });
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, afterMs);
      });
    }

    /** Waits for `done` (up to 10 s, polling every 20 ms). */
    async function until(done: () => boolean): Promise<void> {
      for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
    }

    /** Answers the destination cut off before they were sent whole. */
    let cutOff = 0;
    /**
     * An answer that never ends: it is written as fast as it is read, so it stops only when the vault cuts it. (A
     * finite one could fit whole in the sockets' buffers on a loaded machine and end before any cut.)
     */
    const bigAnswer = (delayMs: number): Handler => (_r, res) => {
      const chunk = 'x'.repeat(64 * 1024);
      res.on('close', () => {
        if (!res.writableFinished) cutOff += 1;
      });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const pump = () => {
          while (!res.destroyed) {
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
        };
        pump();
      }, delayMs);
    };

    // [when, the destination's delay before answering, bytes the caller reads, ms before it hangs up]
    it.each([
      ['midway through a large answer', 0, 100_000, 300],
      ['before it answers', 300, 0, 100],
    ] as const)('stops reading the destination when the caller hangs up %s', async (_when, delayMs, readBytes, afterMs) => {
      // A body limit far above what the buffers hold: only the caller's going away can end the answer.
      await setUp(bigAnswer(delayMs), { SVC_BODY_LIMIT: '64mb' });
      const watch = watchAnswers();
      const server = await listening(h.app);
      try {
        cutOff = 0;
        await hangUp(server.port, readBytes, afterMs);
        // Polled rather than slept on: under load the cut reaches the destination later, but it must reach it.
        // Before the answer came, the call is ended there and then (no answer to read); midway, its reading stops.
        const answered = delayMs === 0 ? 1 : 0;
        await until(() => watch.finished() === answered && cutOff === 1);
        expect(watch.finished()).toBe(answered);
        expect(cutOff).toBe(1);
      } finally {
        await server.close();
      }
    }, 15_000);
  });

  describe('audit of refusals', () => {
    // The route takes any method Node knows; the edge audit's table lists them all.
    it('records a refused call whatever its method', async () => {
      await setUp();
      const noInvoke = await applicationKey(h, { name: 'no invoke', type: 'private', permissions: ['token:read'] });
      for (const method of ['POST', 'PURGE', 'PROPFIND']) expectProblem(await call(method, '/proxy', noInvoke), 403);
      await h.settleAudit();
      const events = (await mgmt().get('/logs?entity_type=proxy&size=100').expect(200)).body.data as Array<{ outcome: string; message: string }>;
      expect(events.filter((e) => e.outcome === 'denied').map((e) => e.message.split(' ')[0]).sort()).toEqual(['POST', 'PROPFIND', 'PURGE']);
    });
  });

  describe('concurrent updates', () => {
    it('loses no acknowledged PATCH when PATCHes of different fields race', async () => {
      await setUp();
      const { id } = await createProxy({});
      const patches = [
        { name: 'Renamed' },
        { timeout: 7 },
        { disable_detokenization: true },
        { configuration: { K: 'v' } },
        { destination_url: destUrl('/v2') },
        { require_auth: true },
        { request_transforms: [{ type: 'append_header', name: 'X-Key', value: '{{ configuration.K | default: "k" }}' }] },
        { response_transforms: [{ type: 'mask', matcher: 'regex', expression: '\\d{4}', replacement: '****' }] },
      ];
      // Each field twice at once: sixteen updates racing.
      const racing = [...patches, ...patches];
      const results = await Promise.all(racing.map((p) => mgmt().patch(`/proxies/${id}`).send(p)));
      expect(results.map((r) => r.status)).toEqual(racing.map(() => 200));
      const got = (await mgmt().get(`/proxies/${id}`).expect(200)).body;
      expect(got).toEqual(expect.objectContaining({ name: 'Renamed', timeout: 7, disable_detokenization: true, configuration: { K: 'v' }, destination_url: destUrl('/v2') }));
      expect(got.request_transforms).toHaveLength(1);
      expect(got.response_transforms).toHaveLength(1);
    });
  });

  describe('concurrent updates, each slow to check', () => {
    it('refuses no PATCH for losing its compare-and-set a few times: the slow ones read again until they win', async () => {
      // Each attempt checks the destination, whose name the outbound policy resolves: here 0 to 7 ms, as DNS varies.
      // Against a real server, 3 of 8 PATCHes answered 409 after five lost rounds.
      let lookups = 0;
      const slow: HostResolver = { resolve: () => new Promise((resolve) => setTimeout(() => resolve({ kind: 'unresolved' }), (lookups++ * 5) % 8)) };
      const hh = await harness({}, undefined, slow);
      const manage = () => as(hh.app, hh.key);
      const created = await manage().post('/proxies').send({ name: 'p', destination_url: 'https://processor.example/a', require_auth: true, configuration: { A: '1' } }).expect(201);
      const patches = [
        { name: 'renamed' },
        { timeout: 17 },
        { require_auth: false },
        { destination_url: 'https://processor.example/b' },
        { disable_detokenization: true },
        { configuration: { B: '2' } },
        { configuration: { C: '3' } },
        { response_transforms: [{ type: 'mask', matcher: 'regex', expression: 'x', replacement: '*' }] },
      ];
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(patches.map((p) => manage().patch(`/proxies/${created.body.id}`).set('Content-Type', 'application/merge-patch+json').send(p)));
        expect(results.map((r) => r.status)).toEqual(patches.map(() => 200));
      }
      const got = (await manage().get(`/proxies/${created.body.id}`).expect(200)).body;
      expect(got).toEqual(expect.objectContaining({ name: 'renamed', timeout: 17, require_auth: false, destination_url: 'https://processor.example/b', disable_detokenization: true }));
      expect(got.response_transforms).toHaveLength(1);
    });
  });

  describe('secrets stay out of logs and audit events', () => {
    it('logs and records no key, configuration value or token plaintext, whatever happens', async () => {
      await setUp((r, res) => {
        res.writeHead(r.url.includes('fail') ? 500 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ echoed: r.body, auth: r.headers.authorization }));
      });
      await applicationKey(h, { name: 'inbound', type: 'private', permissions: ['token:create', 'token:read', 'token:use'] });
      const secret = 'sk_live_configuration_secret';
      const proxy = await createProxy({
        configuration: { API_KEY: secret },
        request_transforms: [{ type: 'append_header', name: 'Authorization', value: 'Bearer {{ configuration.API_KEY }}' }],
        response_transforms: [{ type: 'mask', matcher: '$.echoed', replacement: '***' }],
      });
      const open = await createProxy({ require_auth: false, application_id: await appId('inbound'), request_transforms: [{ type: 'tokenize', matcher: '$.n', token: { type: 'token' } }] });
      const id = await token();
      const plain = 'plain-secret-value-9731';
      await request(h.app).post('/proxy').set('SVC-PROXY-KEY', proxy.key).set('SVC-API-KEY', backend).send({ n: `{{ ${id} }}` }).expect(200);
      await request(h.app).post('/proxy/fail').set('SVC-PROXY-KEY', proxy.key).set('SVC-API-KEY', backend).send({ n: `{{ ${id} }}` }).expect(500);
      await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).send({ n: plain }).expect(200);
      await request(h.app).post(`/proxy?svc-proxy-key=${open.key}`).send({ n: { deep: plain } });
      await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', `https://127.0.0.1:${victim.port}/${plain}?k=${plain}`).send({ n: `{{ ${id} }}` });
      await request(h.app).post(`/proxy/${plain}?q=${plain}`).set('SVC-PROXY-KEY', proxy.key).set('SVC-API-KEY', 'key_wrong_' + plain).send({});
      await request(h.app).get(`/proxy/%zz${plain}`).set('SVC-PROXY-KEY', proxy.key).set('SVC-API-KEY', backend);
      await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', destUrl()).set('X-Card', `{{ ${id} }}\t\u00ff`).send({});
      await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', destUrl()).set('X-Card', `{{ ${await token(`${plain}\u2603`)} }}`).send({});
      await mgmt().patch(`/proxies/${proxy.id}`).send({ configuration: { API_KEY: `${secret}\u0000`, 'bad key': secret } });
      await h.settleAudit();
      const logs = h.logLines.join('\n');
      const audit = [1, 2, 3].map(async (page) => (await mgmt().get(`/logs?size=100&page=${page}`).expect(200)).text);
      const texts = [logs, ...(await Promise.all(audit))];
      expect(texts[1]).toContain('"operation":"invoke"');
      for (const text of texts) {
        for (const s of [secret, proxy.key, open.key, backend, h.key, VISA, plain]) expect(text).not.toContain(s);
      }
    });
  });
});

/** Writes a raw HTTP/1.1 request to 127.0.0.1:port and reads the answer until the server closes. */
function rawHttp(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}
