import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import type { Handler, TestServer } from '@svc/outbound/testing';
import { proxyHarness, useTestDestinations } from './proxy-fixture';
import request from 'supertest';
import { applicationKey, as, harness, type Harness, resolving } from './harness';

const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';

/** A destination that answers JSON echoing what it received. */
const echo: Handler = (received, res) => {
  res.writeHead(201, { 'content-type': 'application/json', 'x-processor': 'stand-in', 'set-cookie': ['a=1', 'b=2'], 'strict-transport-security': 'max-age=100', 'cache-control': 'max-age=60' });
  res.end(JSON.stringify({ ok: true, method: received.method, url: received.url }));
};

describe('the proxy over HTTP', () => {
  const destinations = useTestDestinations();
  const https = (handler: Handler = echo) => destinations.https(handler);
  let h: Harness;
  let dest: TestServer;
  /** A private key that may create, reveal and proxy tokens. */
  let backend: string;


  async function setUp(handler: Handler = echo, env: Record<string, string> = {}): Promise<void> {
    dest = await https(handler);
    ({ h, backend } = await proxyHarness(dest, destinations.certs(), env));
  }

  const card = async (number = VISA): Promise<string> =>
    (await as(h.app, backend).post('/tokens').send({ type: 'card_number', data: number }).expect(201)).body.id as string;

  const proxy = (key = backend) => ({
    post: (path = '/proxy') => request(h.app).post(path).set('SVC-API-KEY', key).set('SVC-PROXY-URL', `https://127.0.0.1:${dest.port}/v1/charges`),
    get: (path = '/proxy') => request(h.app).get(path).set('SVC-API-KEY', key).set('SVC-PROXY-URL', `https://127.0.0.1:${dest.port}/v1/charges`),
  });

  describe('ephemeral', () => {
    it('replaces tokens in a JSON body before it leaves, and answers with the destination status, headers and body', async () => {
      await setUp();
      const id = await card();
      const res = await proxy().post('/proxy/extra?amount=100').send({ card: { number: `{{ ${id} }}`, cvc: '123' }, note: 'card {{ ' + id + " | json: '$' }}!" });
      expect(res.status).toBe(201);
      expect(res.headers['svc-proxy-destination-status']).toBe('201');
      expect(res.headers['x-processor']).toBe('stand-in');
      // Served from the vault's origin: sandboxed, never cached, no statement about the destination's origin, no
      // cookie stored for the vault's.
      expect(res.headers['content-security-policy']).toBe('sandbox');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.body).toEqual({ ok: true, method: 'POST', url: '/v1/charges/extra?amount=100' });
      expect(dest.received).toHaveLength(1);
      expect(JSON.parse(dest.received[0]!.body)).toEqual({ card: { number: VISA, cvc: '123' }, note: `card ${VISA}!` });
    });

    it('replaces tokens in headers, form and text bodies', async () => {
      await setUp();
      const id = await card();
      await proxy().post().set('X-Card', `{{ ${id} }}`).type('form').send({ number: `{{ ${id} }}`, other: 'a b&c' }).expect(201);
      expect(dest.received[0]!.headers['x-card']).toBe(VISA);
      expect(new URLSearchParams(dest.received[0]!.body).get('number')).toBe(VISA);
      expect(new URLSearchParams(dest.received[0]!.body).get('other')).toBe('a b&c');
      await proxy().post().set('Content-Type', 'text/plain').send(`pay with {{${id}}} now`).expect(201);
      expect(dest.received[1]!.body).toBe(`pay with ${VISA} now`);
    });

    it('ends the call to the destination, and its socket, when the caller hangs up before the answer', async () => {
      const closed: Array<Promise<void>> = [];
      await setUp((_received, response) => {
        closed.push(new Promise((resolve) => response.once('close', () => resolve())));
        // Never answers: only the caller's hang-up can end this call before the proxy's 25 s timeout.
      });
      const vault = h.app.listen(0, '127.0.0.1');
      await new Promise((resolve) => vault.once('listening', resolve));
      try {
        const headers = { 'SVC-API-KEY': backend, 'SVC-PROXY-URL': `https://127.0.0.1:${dest.port}/v1/charges`, 'Content-Type': 'application/json' };
        const call = httpRequest({ host: '127.0.0.1', port: (vault.address() as AddressInfo).port, method: 'POST', path: '/proxy', headers });
        call.on('error', () => undefined);
        call.end('{"a":1}');
        while (closed.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        call.destroy();
        await closed[0];
      } finally {
        vault.close();
      }
      // Its event says the caller went away, not that it failed with a status no one was sent.
      let messages: string[] = [];
      for (let i = 0; i < 100 && !messages.some((m) => m.includes('went away')); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await h.settleAudit();
        messages = ((await as(h.app, h.key).get('/logs?entity_type=proxy').expect(200)).body.data as Array<{ message: string }>).map((e) => e.message);
      }
      expect(messages).toEqual(['POST /proxy ended: the caller went away before the answer']);
    });

    it('rewrites only the form values that held tokens: the other pairs go as written, bytes of another charset too', async () => {
      await setUp();
      const id = await card();
      const form = `name=Jos%E9&card={{ ${id} }}&n=1+2&&n=%2A&?q=%7e`;
      await proxy().post().set('Content-Type', 'application/x-www-form-urlencoded; charset=iso-8859-1').send(form).expect(201);
      expect(dest.received[0]!.body).toBe(`name=Jos%E9&card=${VISA}&n=1+2&&n=%2A&?q=%7e`);
      // A value the proxy would rewrite must read back as sent: with bytes that are not UTF-8 it is a 400, never sent.
      const refused = await proxy().post().set('Content-Type', 'application/x-www-form-urlencoded').send(`card=Jos%E9+{{ ${id} }}`).expect(400);
      expect(Object.keys(refused.body.errors)).toEqual(['body']);
      expect(dest.received).toHaveLength(1);
    });

    it('writes a JSON object with a repeated key once, as it was read, its large numbers kept', async () => {
      await setUp();
      const id = await card();
      const text = `{"id":"x","id":"{{ ${id} }}","amount":12345678901234567891,"big":1e400,"f":1.50}`;
      await proxy().post().set('Content-Type', 'application/json').send(text).expect(201);
      expect(dest.received[0]!.body).toBe(`{"id":"${VISA}","amount":12345678901234567891,"big":1e400,"f":1.50}`);
    });

    it('forwards headers except hop-by-hop ones, the API key and SVC-PROXY-*; bodies without tokens pass byte for byte', async () => {
      await setUp();
      const raw = '{ "a" : 1,\n "b": [1, 2] }';
      await proxy()
        .post()
        .set('Content-Type', 'application/json')
        .set('X-Trace', 'abc')
        .set('Connection', 'keep-alive, x-drop')
        .set('X-Drop', 'gone')
        .set('Authorization', 'Bearer destination-key')
        .set('BT-PROXY-URL', 'https://elsewhere.example.com')
        .send(raw)
        .expect(201);
      const sent = dest.received[0]!;
      expect(sent.body).toBe(raw);
      expect(sent.headers['x-trace']).toBe('abc');
      expect(sent.headers.authorization).toBe('Bearer destination-key');
      expect(sent.headers['svc-api-key']).toBeUndefined();
      expect(sent.headers['svc-proxy-url']).toBeUndefined();
      expect(sent.headers['bt-proxy-url']).toBeUndefined();
      expect(sent.headers['x-drop']).toBeUndefined();
      expect(sent.headers.host).toBe(`127.0.0.1:${dest.port}`);
    });

    it('refuses a token the caller may not reveal (403) and an unknown one (400), sending nothing', async () => {
      await setUp();
      const id = await card();
      const masked = await applicationKey(h, { name: 'masked', type: 'private', permissions: ['token:read', 'proxy:invoke'] });
      const refused = await proxy(masked).post().send({ number: `{{ ${id} }}` }).expect(403);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(Object.keys(refused.body.errors)).toEqual(['body.number']);
      const unknown = await proxy().post().set('X-Card', '{{ 00000000-0000-4000-8000-000000000000 }}').send({}).expect(400);
      expect(Object.keys(unknown.body.errors)).toEqual(['headers.x-card']);
      expect(dest.received).toHaveLength(0);
      expect(dest.connections()).toBe(0);
    });

    it('refuses more than 20 tokens in one request, and keys without proxy:invoke', async () => {
      await setUp();
      const ids = await Promise.all(Array.from({ length: 21 }, () => card()));
      const res = await proxy().post().send(ids.map((id) => `{{ ${id} }}`)).expect(400);
      expect(JSON.stringify(res.body)).toContain('20');
      const noInvoke = await applicationKey(h, { name: 'no invoke', type: 'private', permissions: ['token:read', 'token:use'] });
      await proxy(noInvoke).post().send({}).expect(403);
      await request(h.app).post('/proxy').set('SVC-PROXY-URL', `https://127.0.0.1:${dest.port}/`).send({}).expect(401);
      expect(dest.received).toHaveLength(0);
    });

    it('refuses destinations the outbound policy refuses without contacting them', async () => {
      await setUp();
      const other = await https();
      for (const url of [`https://127.0.0.1:${other.port}/`, `http://127.0.0.1:${dest.port}/`.replace('http:', 'ftp:'), `https://localhost:${other.port}/`, 'not a url']) {
        const res = await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', url).send({}).expect(400);
        expect(Object.keys(res.body.errors)).toEqual(['SVC-PROXY-URL']);
      }
      await request(h.app).post('/proxy').set('SVC-API-KEY', backend).send({}).expect(400);
      expect(other.connections()).toBe(0);
    });

    it('answers 502 when the destination is down and 504 when it does not answer in time', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const downPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const slow = await https(() => undefined);
      await setUp(echo, { SVC_OUTBOUND_ALLOW: `127.0.0.1`, SVC_PROXY_TIMEOUT: '1' });
      const down = await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', `https://127.0.0.1:${downPort}/`).send({}).expect(502);
      expect(down.headers['content-type']).toContain('application/problem+json');
      const late = await request(h.app).post('/proxy').set('SVC-API-KEY', backend).set('SVC-PROXY-URL', `https://127.0.0.1:${slow.port}/`).send({}).expect(504);
      expect(late.body.status).toBe(504);
    });

    it('refuses dot segments in the path suffix', async () => {
      await setUp();
      const res = await proxy().get('/proxy/%2e%2e/admin').expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['path']);
      expect(dest.received).toHaveLength(0);
    });

    it('streams a large answer back whole, and refuses one over the body limit', async () => {
      const big = 'x'.repeat(600_000);
      await setUp((received, res) => {
        const body = received.url.includes('huge') ? big + big : big;
        if (received.url.includes('chunked')) {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write(body.slice(0, 100_000));
          setTimeout(() => res.end(body.slice(100_000)), 20);
        } else {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) });
          res.end(body);
        }
      }, { SVC_BODY_LIMIT: '1mb' });
      const ok = await proxy().get('/proxy/big/chunked').expect(200);
      expect(ok.text).toBe(big);
      // Stated too large: refused before anything is answered.
      await proxy().get('/proxy/huge').expect(502);
      // Found too large midway: the answer has begun, so the connection is cut rather than the body ending short.
      const cut = await proxy().get('/proxy/huge/chunked').then(() => 'answered', (error: Error) => error.message);
      expect(cut).toMatch(/aborted|socket hang up|ECONNRESET/);
    });

    it('records the invocation and every token it revealed in the audit log, never the data', async () => {
      await setUp();
      const id = await card();
      await proxy().post().send({ n: `{{ ${id} }}` }).expect(201);
      await h.settleAudit();
      const logs = await as(h.app, h.key).get('/logs?size=100').expect(200);
      const events = logs.body.data as Array<{ entity_type: string; entity_id?: string; operation: string; message: string }>;
      expect(events).toEqual(expect.arrayContaining([
        expect.objectContaining({ entity_type: 'token', entity_id: id, operation: 'proxy' }),
        expect.objectContaining({ entity_type: 'proxy', operation: 'invoke', message: 'Proxy invoked; the destination answered 201' }),
      ]));
      expect(logs.text).not.toContain(VISA);
    });
  });

  describe('pre-configured', () => {
    const mgmt = () => as(h.app, h.key);

    it('creates a proxy with its key shown once and its configuration sealed at rest; reads, lists, patches and deletes it', async () => {
      await setUp();
      const created = await mgmt()
        .post('/proxies')
        .send({ name: 'Charges', destination_url: `https://127.0.0.1:${dest.port}/v1`, configuration: { API_KEY: 'sk_live_secret_value' } })
        .expect(201);
      expect(created.body).toEqual(expect.objectContaining({
        id: expect.any(String),
        key: expect.stringMatching(/^key_prx_/),
        name: 'Charges',
        require_auth: true,
        disable_detokenization: false,
        request_transforms: [],
        response_transforms: [],
        configuration: { API_KEY: 'sk_live_secret_value' },
      }));
      const stored = await h.store.proxies.findById(h.tenant.tenant.id, created.body.id);
      expect(Buffer.from(stored!.sealedConfiguration).toString('latin1')).not.toContain('sk_live_secret_value');
      expect(stored!.keyHash).not.toContain(created.body.key);
      const got = await mgmt().get(`/proxies/${created.body.id}`).expect(200);
      expect(got.body.key).toBeUndefined();
      const listed = await mgmt().get('/proxies?name=charg').expect(200);
      expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
      expect(listed.text).not.toContain(created.body.key);
      const patched = await mgmt().patch(`/proxies/${created.body.id}`).set('Content-Type', 'application/merge-patch+json').send({ name: 'Renamed' }).expect(200);
      expect(patched.body).toEqual(expect.objectContaining({ name: 'Renamed', destination_url: `https://127.0.0.1:${dest.port}/v1`, configuration: { API_KEY: 'sk_live_secret_value' } }));
      // A JSON null is a body and no proxy (RFC 7386 would replace the whole proxy with it): a 400, nothing changed.
      for (const type of ['application/merge-patch+json', 'application/json']) {
        const refused = await mgmt().patch(`/proxies/${created.body.id}`).set('Content-Type', type).send('null').expect(400);
        expect(Object.keys(refused.body.errors)).toEqual(['body']);
      }
      await mgmt().put(`/proxies/${created.body.id}`).set('Content-Type', 'application/json').send('null').expect(400);
      expect((await mgmt().get(`/proxies/${created.body.id}`).expect(200)).body).toEqual(patched.body);
      const other = await h.createTenant('Other');
      await as(h.app, other.management.key).get(`/proxies/${created.body.id}`).expect(404);
      await as(h.app, other.management.key).delete(`/proxies/${created.body.id}`).expect(404);
      await mgmt().delete(`/proxies/${created.body.id}`).expect(204);
      await mgmt().get(`/proxies/${created.body.id}`).expect(404);
      expect(h.logLines.join('\n')).not.toContain('sk_live_secret_value');
      expect(h.logLines.join('\n')).not.toContain(created.body.key);
    });

    it('sends proxy.created, proxy.updated and proxy.deleted to subscribed webhooks, without the key or the configuration', async () => {
      await setUp();
      const hook = await mgmt()
        .post('/webhooks')
        .send({ name: 'proxies', url: 'https://hooks.example.com/in', events: ['proxy.created', 'proxy.updated', 'proxy.deleted'] })
        .expect(201);
      const created = await mgmt().post('/proxies').send({ name: 'P', destination_url: 'https://processor.example.com/', configuration: { K: 'sk_hidden' } }).expect(201);
      await mgmt().put(`/proxies/${created.body.id}`).send({ name: 'Q', destination_url: 'https://processor.example.com/' }).expect(200);
      await mgmt().delete(`/proxies/${created.body.id}`).expect(204);
      const listed = await mgmt().get(`/webhooks/${hook.body.id}/deliveries?size=10`).expect(200);
      const events = (listed.body.data as Array<{ event_type: string; event: { data: { id: string; name: string } } }>).map((d) => [d.event_type, d.event.data.id, d.event.data.name]);
      expect(events.sort()).toEqual([
        ['proxy.created', created.body.id, 'P'],
        ['proxy.deleted', created.body.id, 'Q'],
        ['proxy.updated', created.body.id, 'Q'],
      ]);
      expect(listed.text).not.toContain('sk_hidden');
      expect(listed.text).not.toContain(created.body.key);
    });

    it('names every broken field of a proxy', async () => {
      await setUp();
      const res = await mgmt()
        .post('/proxies')
        .send({
          name: '',
          destination_url: 'http://example.com',
          request_transforms: [{ type: 'mask' }, { type: 'tokenize', matcher: '$..[?(@.x)]', token: { data: 'x' } }, { type: 'append_header', name: 'Host', value: '{{ nope | nofilter }}' }],
          response_transforms: [{ type: 'mask', matcher: 'regex', expression: '(a)\\1', replacement: '*' }],
          timeout: 0,
          application_id: '00000000-0000-4000-8000-000000000000',
          configuration: { 'bad key': 'x' },
        })
        .expect(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(
        [
          'application_id',
          'configuration.bad key',
          'destination_url',
          'name',
          'request_transforms[0].type',
          'request_transforms[1].matcher',
          'request_transforms[1].token.data',
          'request_transforms[1].token.type',
          'request_transforms[2].name',
          'request_transforms[2].value',
          'response_transforms[0].expression',
          'timeout',
        ].sort(),
      );
      expect((await mgmt().get('/proxies').expect(200)).body.data).toEqual([]);
    });

    it('looks the destination up at create and update: a name that resolves to an address the policy refuses is a 400 naming destination_url', async () => {
      const resolved = await harness({}, undefined, resolving({ vm: ['127.0.0.1'], 'db.corp.example': ['10.0.0.5'], 'split.example.com': ['93.184.216.34', 'fd00::1'] }));
      const m = as(resolved.app, resolved.key);
      const good = { name: 'P', destination_url: 'https://processor.example.com/v1' };
      for (const url of ['https://vm/', 'https://db.corp.example:8443/in', 'https://split.example.com/in']) {
        const res = await m.post('/proxies').send({ ...good, destination_url: url }).expect(400);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(Object.keys(res.body.errors)).toEqual(['destination_url']);
        expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|10\.0\.0\.5|fd00/);
      }
      const id = (await m.post('/proxies').send(good).expect(201)).body.id as string;
      expect(Object.keys((await m.put(`/proxies/${id}`).send({ ...good, destination_url: 'https://vm/' }).expect(400)).body.errors)).toEqual(['destination_url']);
      expect(Object.keys((await m.patch(`/proxies/${id}`).send({ destination_url: 'https://split.example.com/' }).expect(400)).body.errors)).toEqual(['destination_url']);
      const kept = await m.get(`/proxies/${id}`).expect(200);
      expect(kept.body.destination_url).toBe(good.destination_url);
      expect((await m.get('/proxies').expect(200)).body.data).toHaveLength(1);
      // A name that does not resolve (yet) is taken: every call looks it up again.
      await m.post('/proxies').send({ ...good, destination_url: 'https://not-yet.example.com/' }).expect(201);
      // A name SVC_OUTBOUND_ALLOW lists is not looked up.
      const allowed = await harness({ SVC_OUTBOUND_ALLOW: 'vm' }, undefined, resolving({ vm: ['127.0.0.1'] }));
      await as(allowed.app, allowed.key).post('/proxies').send({ ...good, destination_url: 'https://vm/' }).expect(201);
    });

    it('refuses a configured header that names a configuration key not set, or renders what no header may carry', async () => {
      await setUp();
      const header = (value: string, configuration: Record<string, string> = { KEY: 'k' }) =>
        mgmt().post('/proxies').send({ name: 'H', destination_url: 'https://processor.example.com/', configuration, request_transforms: [{ type: 'append_header', name: 'X-Key', value }] });
      for (const [value, configuration] of [['{{ configuration.MISSING }}', undefined], ['{{ configuration.KEY }}', { KEY: 'a\nb' }], ['{{ configuration.KEY }}', { KEY: '名' }]] as const) {
        const res = await header(value, configuration).expect(400);
        expect(Object.keys(res.body.errors)).toEqual(['request_transforms[0].value']);
      }
      await header('Bearer {{ configuration.KEY }}').expect(201);
    });

    it('refuses at save a configured header naming a key not set anywhere in its text, or rendering no text; PUT and PATCH too', async () => {
      await setUp();
      const body = (value: string, name = 'Authorization') => ({
        name: 'H',
        destination_url: `https://127.0.0.1:${dest.port}/v1`,
        configuration: { API_KEY: 'sk_live_1' },
        request_transforms: [{ type: 'append_header', name, value }],
      });
      const made = (await mgmt().post('/proxies').send(body('Bearer {{ configuration.API_KEY }}')).expect(201)).body as { id: string; key: string };
      for (const value of ['Bearer {{ configuration.MISSING }}', 'Bearer {{ configuration }}', '{{ configuration.API_KEY }}:{{ configuration.api_key }}', 'Bearer {{ configuration.MISSING | default: "x" }}']) {
        for (const res of [
          await mgmt().post('/proxies').send(body(value)),
          await mgmt().put(`/proxies/${made.id}`).send(body(value)),
          await mgmt().patch(`/proxies/${made.id}`).send({ request_transforms: body(value).request_transforms }),
        ]) {
          expect([value, res.status, res.headers['content-type']]).toEqual([value, 400, expect.stringContaining('application/problem+json')]);
          expect(Object.keys(res.body.errors)).toEqual(['request_transforms[0].value']);
          expect(JSON.stringify(res.body)).not.toContain('sk_live_1');
        }
      }
      // Removing the key a header names is refused as well; the proxy still sends its credential.
      expect(Object.keys((await mgmt().patch(`/proxies/${made.id}`).send({ configuration: { OTHER: 'x' } }).expect(400)).body.errors)).toEqual(['request_transforms[0].value']);
      expect((await mgmt().get('/proxies').expect(200)).body.data).toHaveLength(1);
      await request(h.app).get('/proxy').set('SVC-PROXY-KEY', made.key).set('SVC-API-KEY', backend).expect(201);
      expect(dest.received.at(-1)!.headers.authorization).toBe('Bearer sk_live_1');
    });

    it('refuses at save an Expect header, in any case, naming the field', async () => {
      await setUp();
      for (const name of ['Expect', 'expect', 'EXPECT', 'eXpEcT']) {
        const res = await mgmt()
          .post('/proxies')
          .send({ name: 'E', destination_url: `https://127.0.0.1:${dest.port}/v1`, request_transforms: [{ type: 'append_header', name, value: '100-continue' }] })
          .expect(400);
        expect(res.headers['content-type']).toContain('application/problem+json');
        expect(Object.keys(res.body.errors)).toEqual(['request_transforms[0].name']);
      }
      // Basis Theory's SDK spelling too.
      const sdk = await mgmt()
        .post('/proxies')
        .send({ name: 'E', destination_url: `https://127.0.0.1:${dest.port}/v1`, request_transforms: [{ type: 'append_header', options: { location: 'Expect', value: '100-continue' } }] })
        .expect(400);
      expect(Object.keys(sdk.body.errors)).toEqual(['request_transforms[0].name']);
      expect((await mgmt().get('/proxies').expect(200)).body.data).toEqual([]);
    });

    it('never sends a Proxy-* header a proxy saved before they were refused still appends: the call is a 409 naming it', async () => {
      await setUp();
      const made = await mgmt()
        .post('/proxies')
        .send({ name: 'P', destination_url: `https://127.0.0.1:${dest.port}/v1`, request_transforms: [{ type: 'append_header', name: 'X-Token', value: 'secret' }] })
        .expect(201);
      // As an older svc stored it.
      const stored = (await h.store.proxies.findById(h.tenant.tenant.id, made.body.id))!;
      const older = { ...stored, version: stored.version + 1, requestTransforms: [{ type: 'append_header' as const, name: 'Proxy-Token', value: 'secret' }] };
      expect(await h.store.proxies.update(older)).toBe('updated');
      const id = await card();
      const res = await request(h.app).post('/proxy').set('SVC-PROXY-KEY', made.body.key).set('SVC-API-KEY', backend).send({ card: `{{ ${id} }}` }).expect(409);
      expect(Object.keys(res.body.errors)).toEqual(['request_transforms[0].name']);
      expect(dest.received).toHaveLength(0);
      // Refused before any step: no token was revealed for it.
      await h.settleAudit();
      const events = (await as(h.app, h.key).get(`/logs?entity_id=${id}`).expect(200)).body.data as Array<{ operation: string }>;
      expect(events.map((e) => e.operation)).toEqual(['create']);
    });

    it("refuses at save a tokenize transform's token that no create request could make, naming the field", async () => {
      await setUp();
      await applicationKey(h, { name: 'capture', type: 'private', permissions: ['token:create'] });
      const apps = await mgmt().get('/applications?size=50').expect(200);
      const appId = (apps.body.data as Array<{ id: string; name: string }>).find((a) => a.name === 'capture')!.id;
      const body = (token: Record<string, unknown>) => ({
        name: 'T',
        destination_url: `https://127.0.0.1:${dest.port}/cards`,
        application_id: appId,
        request_transforms: [{ type: 'tokenize', matcher: '$.number', token }],
      });
      const made = (await mgmt().post('/proxies').send(body({ type: 'card_number', expires_at: '2027-01-01T00:00:00Z' })).expect(201)).body as { id: string };
      for (const [token, field] of [
        [{ type: 'nope' }, 'request_transforms[0].token.type'],
        [{ type: 'card_number', containers: ['bad container'] }, 'request_transforms[0].token.containers[0]'],
        [{ type: 'card_number', expires_at: '2025-06-01T00:00:00Z' }, 'request_transforms[0].token.expires_at'],
        [{ type: 'card_number', expires_at: '2026-01-01T00:00:00Z' }, 'request_transforms[0].token.expires_at'],
        [{ type: 'card_number', search_indexes: ['{{ data }}'] }, 'request_transforms[0].token.search_indexes'],
      ] as const) {
        for (const res of [
          await mgmt().post('/proxies').send(body(token)),
          await mgmt().put(`/proxies/${made.id}`).send(body(token)),
          await mgmt().patch(`/proxies/${made.id}`).send({ request_transforms: body(token).request_transforms }),
        ]) {
          expect([token, res.status, res.headers['content-type']]).toEqual([token, 400, expect.stringContaining('application/problem+json')]);
          expect(Object.keys(res.body.errors)).toEqual([field]);
        }
      }
      const kept = (await mgmt().get('/proxies').expect(200)).body.data as Array<{ request_transforms: Array<{ token: unknown }> }>;
      expect(kept.map((p) => p.request_transforms[0]!.token)).toEqual([{ type: 'card_number', expires_at: '2027-01-01T00:00:00Z' }]);
    });

    it('tokenizes what a partner posts to an open inbound proxy, so the backend receives token ids only', async () => {
      await setUp();
      const inbound = await applicationKey(h, { name: 'inbound', type: 'private', permissions: ['token:create', 'token:read', 'token:use'] });
      void inbound;
      const apps = await mgmt().get('/applications?size=50').expect(200);
      const appId = (apps.body.data as Array<{ id: string; name: string }>).find((a) => a.name === 'inbound')!.id;
      const created = await mgmt()
        .post('/proxies')
        .send({
          name: 'Inbound',
          destination_url: `https://127.0.0.1:${dest.port}/cards`,
          require_auth: false,
          application_id: appId,
          request_transforms: [{ type: 'tokenize', matcher: '$.cards[*].number', token: { type: 'card_number', metadata: { source: 'partner' } } }],
        })
        .expect(201);
      const res = await request(h.app)
        .post(`/proxy?svc-proxy-key=${created.body.key}`)
        .send({ cards: [{ number: VISA }, { number: MASTERCARD }], ref: 'order-1' })
        .expect(201);
      expect(res.headers['svc-proxy-destination-status']).toBe('201');
      const forwarded = JSON.parse(dest.received[0]!.body) as { cards: Array<{ number: string }>; ref: string };
      expect(dest.received[0]!.url).toBe('/cards');
      expect(dest.received[0]!.body).not.toContain(VISA);
      expect(forwarded.ref).toBe('order-1');
      const token = await as(h.app, backend).get(`/tokens/${forwarded.cards[0]!.number}`).expect(200);
      expect(token.body.data).toBe(VISA);
      expect(token.body.metadata).toEqual({ source: 'partner' });
      // A wrong key is refused before anything is sent.
      await request(h.app).post('/proxy').set('SVC-PROXY-KEY', 'key_prx_nope').send({}).expect(401);
      expect(dest.received).toHaveLength(1);
    });

    it('makes the tokens of its tokenize steps only once every step has passed: a refused call stores nothing', async () => {
      await setUp();
      await applicationKey(h, { name: 'inbound', type: 'private', permissions: ['token:create', 'token:read', 'token:use'] });
      const apps = await mgmt().get('/applications?size=50').expect(200);
      const appId = (apps.body.data as Array<{ id: string; name: string }>).find((a) => a.name === 'inbound')!.id;
      const tokens = async (): Promise<number> => (await as(h.app, backend).get('/tokens?size=1').expect(200)).body.pagination.total_items as number;
      const proxyWith = async (request_transforms: unknown[], require_auth = false): Promise<string> =>
        (
          await mgmt()
            .post('/proxies')
            .send({ name: 'Inbound', destination_url: `https://127.0.0.1:${dest.port}/cards`, require_auth, application_id: appId, request_transforms })
            .expect(201)
        ).body.key as string;
      const tokenize = (matcher: string) => ({ type: 'tokenize', matcher, token: { type: 'card_number' } });
      const before = await tokens();

      // A second tokenize step's invalid value; a detokenize after a tokenize naming a token that is not there; a
      // token the caller may not reveal: each was a 4xx that left the first step's card number stored.
      const twoSteps = await proxyWith([tokenize('$.a'), tokenize('$.b')]);
      const bad = await request(h.app).post('/proxy').set('SVC-PROXY-KEY', twoSteps).send({ a: VISA, b: '123' }).expect(400);
      expect(Object.keys(bad.body.errors)).toEqual(['body.b.data']);
      const thenDetokenize = await proxyWith([tokenize('$.card'), { type: 'detokenize' }], true);
      const missing = await request(h.app)
        .post('/proxy')
        .set('SVC-PROXY-KEY', thenDetokenize)
        .set('SVC-API-KEY', backend)
        .send({ card: VISA, other: '{{ no-such-token }}' })
        .expect(400);
      expect(Object.keys(missing.body.errors)).toEqual(['body.other']);
      const masked = await applicationKey(h, { name: 'masked', type: 'private', permissions: ['token:create', 'token:read', 'proxy:invoke'] });
      const hidden = await card(MASTERCARD);
      await request(h.app).post('/proxy').set('SVC-PROXY-KEY', thenDetokenize).set('SVC-API-KEY', masked).send({ card: VISA, other: `{{ ${hidden} }}` }).expect(403);
      expect(await tokens()).toBe(before + 1);
      expect(dest.received).toHaveLength(0);

      // A value one step tokenizes, or what holds it, is not tokenized again by a later step. (What a value held is
      // gone once it is tokenized: `$.a` then `$.a.n` tokenizes `a` alone, as it did when each step made its tokens.)
      for (const [first, second, field] of [
        ['$.a', '$.a', 'body.a'],
        ['$.a.n', '$.a', 'body.a'],
      ] as const) {
        const again = await proxyWith([first, second].map((matcher) => ({ type: 'tokenize', matcher, token: { type: 'token' } })));
        const res = await request(h.app).post('/proxy').set('SVC-PROXY-KEY', again).send({ a: first === second ? VISA : { n: VISA } }).expect(400);
        expect(Object.keys(res.body.errors)).toEqual([field]);
      }
      expect(await tokens()).toBe(before + 1);
      expect(dest.received).toHaveLength(0);

      // Within one step, a value inside another selected one goes with it: one token, its id in the outer place.
      const descent = await proxyWith([{ type: 'tokenize', matcher: '$..*', token: { type: 'token' } }]);
      const whole = await request(h.app).post('/proxy').set('SVC-PROXY-KEY', descent).send({ a: { n: VISA } }).expect(201);
      expect(whole.headers['svc-proxy-destination-status']).toBe('201');
      const outer = (JSON.parse(dest.received.at(-1)!.body) as { a: string }).a;
      expect((await as(h.app, backend).get(`/tokens/${outer}`).expect(200)).body.data).toEqual({ n: VISA });
      expect(await tokens()).toBe(before + 2);
      dest.received.length = 0;

      // Every step passing: both steps' tokens made, each id in its place.
      const res = await request(h.app).post('/proxy').set('SVC-PROXY-KEY', twoSteps).send({ a: VISA, b: MASTERCARD, ref: 'r' }).expect(201);
      expect(res.headers['svc-proxy-destination-status']).toBe('201');
      const forwarded = JSON.parse(dest.received[0]!.body) as { a: string; b: string; ref: string };
      expect(forwarded.ref).toBe('r');
      expect((await as(h.app, backend).get(`/tokens/${forwarded.a}`).expect(200)).body.data).toBe(VISA);
      expect((await as(h.app, backend).get(`/tokens/${forwarded.b}`).expect(200)).body.data).toBe(MASTERCARD);
      expect(await tokens()).toBe(before + 4);
    });

    it('asks for an API key of its own tenant when require_auth is true, appends configured headers and masks answers', async () => {
      await setUp((_received, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '70' });
        res.end(JSON.stringify({ card: '4242424242424242', last4: '4242', status: 'ok' }).padEnd(70, ' '));
      });
      const created = await mgmt()
        .post('/proxies')
        .send({
          name: 'Processor',
          destination_url: `https://127.0.0.1:${dest.port}/pay`,
          configuration: { API_KEY: 'sk_test_123' },
          request_transforms: [{ type: 'append_header', name: 'Authorization', value: 'Bearer {{ configuration.API_KEY }}' }],
          response_transforms: [
            { type: 'mask', matcher: '$.card', replacement: 'XXXX' },
            { type: 'mask', matcher: 'regex', expression: 'ok', replacement: 'fine' },
          ],
        })
        .expect(201);
      const key = created.body.key as string;
      const other = await h.createTenant('Other');
      const foreign = await applicationKey({ ...h, key: other.management.key }, { name: 'x', type: 'private', permissions: ['proxy:invoke'] });
      // Without an API key, with a made-up one, or with another tenant's, a real proxy key answers exactly as a made-up
      // proxy key does: a proxy key found somewhere cannot be tried for being real.
      const refusals = new Set<string>();
      for (const proxyKey of [key, 'key_prx_madeUpAndNeverIssued1234567890']) {
        for (const apiKey of [undefined, 'key_pvt_madeUpAndNeverIssued1234567890', foreign]) {
          const call = request(h.app).post('/proxy').set('SVC-PROXY-KEY', proxyKey);
          const res = await (apiKey ? call.set('SVC-API-KEY', apiKey) : call).send({}).expect(401);
          refusals.add(JSON.stringify(res.body));
        }
      }
      expect([...refusals].map((r) => JSON.parse(r).detail)).toEqual(['The proxy key is invalid, or its proxy needs a valid API key with it.']);
      expect(dest.received).toHaveLength(0);
      const id = await card();
      const res = await request(h.app).post('/proxy').set('BT-PROXY-KEY', key).set('BT-API-KEY', backend).send({ number: `{{ ${id} }}` }).expect(200);
      expect(dest.received[0]!.headers.authorization).toBe('Bearer sk_test_123');
      expect(JSON.parse(dest.received[0]!.body)).toEqual({ number: VISA });
      expect(res.body).toEqual({ card: 'XXXX', last4: '4242', status: 'fine' });
      expect(res.text).not.toContain(VISA);
    });
  });
});
