import type { Store } from '@svc/core';
import { sqliteFault } from '@svc/sqlite';
import request from 'supertest';
import { connect, type Socket } from 'node:net';
import { loadConfig, maxConnectionsFor } from '../src/config/load-config';
import { addressKey, type Readiness, RefusalLimit } from '../src/http/operations';
import { Logger } from '../src/logger';
import { startServer } from '../src/server';
import { TOKENS } from '../src/tokens';
import { as, harness, privateKey } from './harness';

const CARD = '4242424242424242';

describe('health probes', () => {
  it('answers /healthz and /readyz without a key, and nothing about the store', async () => {
    const h = await harness();
    expect((await request(h.app).get('/healthz').expect(200)).body).toEqual({ status: 'ok' });
    expect((await request(h.app).get('/readyz').expect(200)).body).toEqual({ status: 'ready' });
  });

  it('is not ready when the store does not answer, or once a shutdown has begun; still alive meanwhile', async () => {
    const h = await harness();
    const ping = jest.spyOn(h.store as Store, 'ping').mockRejectedValueOnce(new Error('database is locked'));
    const down = await request(h.app).get('/readyz').expect(503);
    expect(down.headers['content-type']).toContain('application/problem+json');
    expect(down.text).not.toContain('database is locked');
    ping.mockRestore();
    await request(h.app).get('/readyz').expect(200);
    h.container.resolve<Readiness>(TOKENS.Readiness).stop();
    await request(h.app).get('/readyz').expect(503);
    await request(h.app).get('/healthz').expect(200);
  });

  it('turns readiness off as the first step of a shutdown, before draining', async () => {
    const server = await startServer(loadConfig({ SVC_STORE: 'memory', SVC_PORT: '0', SVC_LOG_LEVEL: 'silent' }), { logger: new Logger('silent') }, () => undefined);
    const readiness = server.container.resolve<Readiness>(TOKENS.Readiness);
    expect(readiness.serving).toBe(true);
    const closing = server.close();
    expect(readiness.serving).toBe(false);
    await closing;
  });
});

describe('SVC_MAX_CONNECTIONS', () => {
  it('closes a connection past the limit at once, and serves again once one closes; the default follows the file limit', async () => {
    const server = await startServer(loadConfig({ SVC_STORE: 'memory', SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', SVC_MAX_CONNECTIONS: '3' }), { logger: new Logger('silent') }, () => undefined);
    const { port } = new URL(server.url);
    const held = await Promise.all(
      Array.from({ length: 3 }, () => new Promise<Socket>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
        socket.on('error', reject);
      })),
    );
    // Idle sockets of someone else's: the next connection is closed without an answer.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    held.pop()!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    for (const socket of held) socket.destroy();
    await server.close();

    expect(maxConnectionsFor('Max open files            40000                40000                files     \n')).toBe(10_000);
    // Half of what is left after 256: each connection may hold a proxy call's socket besides its own.
    expect(maxConnectionsFor('Max open files            20000                20000                files     \n')).toBe(9_872);
    expect(maxConnectionsFor('Max open files            1024                 524288               files     \n')).toBe(384);
    expect(maxConnectionsFor('Max open files            200                  200                  files     \n')).toBe(64);
    expect(maxConnectionsFor('Max open files            unlimited            unlimited            files     \n')).toBe(10_000);
    expect(maxConnectionsFor(undefined)).toBe(1_000);
  });
});

describe('store faults: a full disk, a damaged store', () => {
  const coded = (code: string, message: string): Error => Object.assign(new Error(message), { code });
  /** The harness's store, reading SQLite's codes as the SQLite store does (the memory store raises none). */
  async function faulty() {
    const h = await harness();
    const store = h.store as Store;
    if (!store.fault) Object.assign(store, { fault: sqliteFault });
    const key = await privateKey(h, 'token:create', 'token:read', 'token:use');
    const id = (await as(h.app, key).post('/tokens').send({ type: 'card_number', data: CARD }).expect(201)).body.id as string;
    return { h, store, key, id };
  }

  it('answers a write the full disk refused with 503 and Retry-After, and is not ready for a while; reads go on', async () => {
    const { h, store, key, id } = await faulty();
    jest.spyOn(store.tokens, 'create').mockRejectedValueOnce(coded('SQLITE_FULL', 'database or disk is full'));
    const refused = await as(h.app, key).post('/tokens').send({ type: 'card_number', data: '5555555555554444' }).expect(503);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.body.detail).toMatch(/disk is full: nothing was changed/);
    expect(h.logLines.some((line) => line.includes('store disk full'))).toBe(true);
    expect((await as(h.app, key).get(`/tokens/${id}`).expect(200)).body.data).toBe(CARD);
    expect((await request(h.app).get('/readyz').expect(503)).body.detail).toMatch(/disk is full/);
    h.clock.advance(31_000);
    await request(h.app).get('/readyz').expect(200);
    await as(h.app, key).post('/tokens').send({ type: 'card_number', data: '5555555555554444' }).expect(201);
  });

  it('answers a damaged store with a 500 saying so, and is not ready from then on', async () => {
    const { h, store, key, id } = await faulty();
    jest.spyOn(store.tokens, 'findById').mockRejectedValueOnce(coded('SQLITE_CORRUPT', 'database disk image is malformed'));
    const failed = await as(h.app, key).get(`/tokens/${id}`).expect(500);
    expect(failed.headers['content-type']).toContain('application/problem+json');
    expect(failed.body.detail).toMatch(/store is damaged; its operator must restore it/);
    expect(h.logLines.some((line) => line.includes('store damaged: restore it from a backup'))).toBe(true);
    h.clock.advance(24 * 3600_000);
    expect((await request(h.app).get('/readyz').expect(503)).body.detail).toBe('The store is damaged.');
    await request(h.app).get('/healthz').expect(200);
  });

  it('answers any other store error as the 500 it was, ready as before', async () => {
    const { h, store, key, id } = await faulty();
    jest.spyOn(store.tokens, 'findById').mockRejectedValueOnce(coded('SQLITE_IOERR', 'disk I/O error'));
    expect((await as(h.app, key).get(`/tokens/${id}`).expect(500)).body.detail).toMatch(/An unexpected error occurred/);
    await request(h.app).get('/readyz').expect(200);
  });
});

describe('GET /metrics', () => {
  it('is not served unless SVC_METRICS=1', async () => {
    const h = await harness();
    await request(h.app).get('/metrics').expect(404);
  });

  it('counts requests by route pattern and status, token operations, store operations, and process metrics; no id, key or data in any label', async () => {
    const h = await harness({ SVC_METRICS: '1' });
    const key = await privateKey(h, 'token:create', 'token:read', 'token:use');
    const created = await as(h.app, key).post('/tokens').send({ type: 'card_number', data: CARD }).expect(201);
    await as(h.app, key).get(`/tokens/${created.body.id}`).expect(200);
    await as(h.app, key).get('/tokens/00000000-0000-4000-8000-000000000000').expect(404);
    await request(h.app).get('/nowhere').expect(404);
    const res = await request(h.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.text;
    expect(text).toContain('svc_http_requests_total{method="POST",route="/tokens",status="201"} 1');
    expect(text).toContain('svc_http_requests_total{method="GET",route="/tokens/:id",status="200"} 1');
    expect(text).toContain('svc_http_requests_total{method="GET",route="/tokens/:id",status="404"} 1');
    expect(text).toContain('svc_http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toContain('svc_token_operations_total{operation="create",outcome="success"} 1');
    expect(text).toContain('svc_token_operations_total{operation="read",outcome="failure"} 1');
    // Store operations are timed one call in eight: the first create was not, the eighth is (below).
    expect(text).toMatch(/svc_store_operation_duration_seconds_count\{repository="tokens",operation="create"\} 0\n/);
    expect(text).toContain('svc_http_request_duration_seconds_bucket{method="POST",route="/tokens",le="0.0001"}');
    expect(text).toMatch(/svc_http_request_duration_seconds_bucket\{method="POST",route="\/tokens",le="\+Inf"\} 1\n/);
    expect(text).toContain('# TYPE svc_http_requests_total counter');
    // Every sample line reads as Prometheus's text format: a name, optional quoted labels, a number. NaN in any case
    // (prom-client writes `Nan` for the event-loop lag before its first sample; Prometheus parses it as NaN).
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) {
      expect({ line, ok: /^[a-zA-Z_:][\w:]*(\{([a-zA-Z_]\w*="(?:[^"\\\n]|\\.)*",?)*\})? (?:-?[\d.e+-]+|[Nn][Aa][Nn]|[+-]Inf)$/.test(line) }).toEqual({ line, ok: true });
    }
    expect(text).toMatch(/svc_webhook_deliveries_pending \d+/);
    expect(text).toContain('process_cpu_user_seconds_total');
    if (process.env.SVC_TEST_STORE === 'sqlite') expect(text).toMatch(/svc_writer_batch_writes_count [1-9]/);
    for (const secret of [created.body.id as string, key, CARD, h.key, h.tenant.tenant.id]) expect(text).not.toContain(secret);
    for (let i = 0; i < 7; i++) await as(h.app, key).post('/tokens').send({ type: 'card_number', data: CARD }).expect(201);
    const later = (await request(h.app).get('/metrics').expect(200)).text;
    expect(later).toMatch(/svc_store_operation_duration_seconds_count\{repository="tokens",operation="create"\} 1\n/);
  });

  it('asks for the bearer token when SVC_METRICS_TOKEN is set', async () => {
    const h = await harness({ SVC_METRICS: '1', SVC_METRICS_TOKEN: 'metrics-token-0123456789' });
    const refused = await request(h.app).get('/metrics').expect(401);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.headers['www-authenticate']).toContain('Bearer');
    await request(h.app).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789').expect(401);
    await request(h.app).get('/metrics').set('Authorization', 'Bearer metrics-token-0123456789').expect(200);
  });
});

describe('rate limits (SVC_RATE_LIMIT)', () => {
  it('answers 429 with Retry-After once a key has used its requests in the window, for that key only', async () => {
    const h = await harness({ SVC_RATE_LIMIT: '3/1m' });
    const key = await privateKey(h, 'token:read');
    const other = await privateKey(h, 'token:read');
    for (let i = 0; i < 3; i++) await as(h.app, key).get('/tokens').expect(200);
    const limited = await as(h.app, key).get('/tokens').expect(429);
    expect(limited.headers['content-type']).toContain('application/problem+json');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.body.status).toBe(429);
    expect(limited.text).not.toContain(key);
    // A browser may read it (CORS exposes it beside the trace id).
    const fromBrowser = await as(h.app, key).get('/tokens').set('Origin', 'https://shop.example.com').expect(429);
    expect(String(fromBrowser.headers['access-control-expose-headers']).toLowerCase()).toContain('retry-after');
    await as(h.app, other).get('/tokens').expect(200);
    // A wrong key is limited by its own value too, before it is looked up; no key at all is left to authentication,
    // whose refusals are limited per address (below): this address has had its three.
    for (let i = 0; i < 3; i++) await as(h.app, 'key_pvt_wrong').get('/tokens').expect(401);
    await as(h.app, 'key_pvt_wrong').get('/tokens').expect(429);
    await request(h.app).get('/tokens').expect(429);
    await request(h.app).get('/healthz').expect(200);
    await as(h.app, key).get('/healthz').expect(200);
  });

  it('limits the refusals (401) of one address too, made-up keys and none alike, recording none past the limit', async () => {
    // Each refusal is an audit event kept a year; made-up keys, each its own bucket of the per-key limit, grew the
    // store 7.5 MB a second from one client.
    const h = await harness({ SVC_RATE_LIMIT: '3/1m' });
    const key = await privateKey(h, 'token:read');
    const systemEvents = async (): Promise<number> => {
      await h.settleAudit();
      return (await h.store.auditLog.list('system', {}, { page: 1, size: 1 })).total;
    };
    const before = await systemEvents();
    for (let i = 0; i < 3; i++) await as(h.app, `key_pvt_madeUp${i}`).get('/tokens').expect(401);
    expect(await systemEvents()).toBe(before + 3);
    for (const made of ['key_pvt_madeUp9', undefined]) {
      const call = made ? as(h.app, made).get('/tokens/some-id') : request(h.app).post('/tokens').send({});
      const limited = await call.expect(429);
      expect(limited.headers['content-type']).toContain('application/problem+json');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.body.detail).toMatch(/refused for want of a valid API key/);
    }
    expect(await systemEvents()).toBe(before + 3);
    // A valid key from the same address is not held back; a wrong one is refused again once the window has passed.
    await as(h.app, key).get('/tokens').expect(200);
    h.clock.advance(61_000);
    await as(h.app, 'key_pvt_madeUp10').get('/tokens').expect(401);
  });

  it('counts refusals by IPv4 address or IPv6 /64, and never on the probes or /metrics', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:db8:0:0:ffff::9')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:0db8:0000:0000:1:2:3:4')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:db8:1::1')).toBe('2001:db8:1:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    const limit = new RefusalLimit({ points: 5, windowMs: 10_000 }, () => 0);
    // Twenty thousand addresses of one /64 are one client.
    const answers = Array.from({ length: 20_000 }, (_, i) => limit.refused(`2001:db8::${i.toString(16)}`, '/tokens'));
    expect(answers.filter((a) => a === undefined)).toHaveLength(5);
    expect(limit.refused('2001:db8::1', '/metrics')).toBeUndefined();
    expect(limit.refused('2001:db8:0:1::1', '/tokens')).toBeUndefined();
  });

  it('is off by default, and refuses a malformed setting at start-up', () => {
    expect(loadConfig({ SVC_STORE: 'memory' }).rateLimit).toBeUndefined();
    expect(loadConfig({ SVC_STORE: 'memory', SVC_RATE_LIMIT: '6000/1m' }).rateLimit).toEqual({ points: 6000, windowMs: 60_000 });
    for (const bad of ['100', '0/1s', '10/0', '10/1x', 'x/1s', '10/100ms']) {
      expect(() => loadConfig({ SVC_STORE: 'memory', SVC_RATE_LIMIT: bad })).toThrow(/SVC_RATE_LIMIT/);
    }
    for (const bad of ['yes', '2']) expect(() => loadConfig({ SVC_STORE: 'memory', SVC_METRICS: bad })).toThrow(/SVC_METRICS/);
    expect(() => loadConfig({ SVC_STORE: 'memory', SVC_METRICS_TOKEN: 'short' })).toThrow(/SVC_METRICS_TOKEN/);
  });
});
