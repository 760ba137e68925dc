import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DeliveryRun, WEBHOOK_EVENT_TYPES } from '@svc/core';
import request from 'supertest';
import { as, harness, type Harness } from './harness';

/**
 * Webhook deliveries end to end (beyond.md §6, ADR 4): writes fan their events out into deliveries, the dispatcher
 * (`h.deliver()`, one run of what `svc serve` runs every 250 ms) signs and posts them to a real HTTP server on
 * 127.0.0.1 (let through by SVC_OUTBOUND_ALLOW), records every attempt, backs off, and disables a webhook failing
 * for a day. The fixed clock stands still during an attempt, so backoff times are exact.
 */

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The raw body, as the signature covers it. */
  readonly body: string;
}

/** How the receiver answers one request: a status (and body), or not at all until released. */
type Answer = { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> } | 'hang';

interface Receiver {
  readonly port: number;
  readonly url: string;
  readonly received: Received[];
  /** Answers the nth request (from 0); 200 unless changed. */
  answer: (n: number) => Answer;
  /** Answers every request left hanging. */
  release(status?: number): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const waiters: Array<() => void> = [];
  const self = {
    received,
    answer: (_n: number): Answer => ({ status: 200, body: 'ok' }),
  } as Receiver;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const n = received.length;
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      waiters.splice(0).forEach((w) => w());
      const answer = self.answer(n);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(self, {
    port,
    url: `http://127.0.0.1:${port}`,
    release: (status = 200) => {
      for (const res of hanging.splice(0)) if (!res.writableEnded && !res.destroyed) res.writeHead(status).end();
    },
    waitFor: async (count: number) => {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/**
 * The receiver side the docs show: recompute `HMAC-SHA256("<t>.<raw body>")` keyed by the secret's UTF-8 bytes,
 * compare in constant time, and refuse a `t` more than five minutes from the receiver's clock (a replay).
 */
function verifyWebhook(secret: string, header: string | undefined, rawBody: string, nowSeconds: number): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || typeof parts.v1 !== 'string' || !/^[0-9a-f]{64}$/.test(parts.v1)) return false;
  if (Math.abs(nowSeconds - t) > 300) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${rawBody}`, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'));
}

interface ListedDelivery {
  event_id: string;
  event_type: string;
  webhook_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Array<{ attempted_at: string; status_code: number | null; error: string | null; duration_ms: number }>;
  next_attempt_at: string | null;
  created_at: string;
  event: { id: string; type: string; data: Record<string, unknown> };
}

describe('webhook deliveries', () => {
  let rx: Receiver;
  let h: Harness;
  let api: ReturnType<typeof as>;
  let tokens: ReturnType<typeof as>;
  let appId: string;

  beforeEach(async () => {
    rx = await receiver();
    h = await harness({ SVC_OUTBOUND_ALLOW: `127.0.0.1:${rx.port}` });
    api = as(h.app, h.key);
    const app = await api
      .post('/applications')
      .send({ name: 'writer', type: 'private', permissions: ['token:create', 'token:read', 'token:update', 'token:delete'] })
      .expect(201);
    appId = app.body.id as string;
    tokens = as(h.app, app.body.key as string);
  });

  afterEach(() => rx.close());

  const hook = async (events: readonly string[] = ['token.created', 'token.deleted'], extra: object = {}): Promise<{ id: string; secret: string }> => {
    const res = await api.post('/webhooks').send({ name: 'Receiver', url: `${rx.url}/hooks?src=svc`, events, ...extra }).expect(201);
    return { id: res.body.id as string, secret: res.body.secret as string };
  };
  const deliveries = async (webhookId: string): Promise<ListedDelivery[]> =>
    (await api.get(`/webhooks/${webhookId}/deliveries?size=100`).expect(200)).body.data as ListedDelivery[];
  const createToken = async (body: object = {}): Promise<string> =>
    (await tokens.post('/tokens').send({ type: 'token', data: 'the secret plaintext', metadata: { order: '42' }, ...body }).expect(201)).body.id as string;

  describe('to a real receiver', () => {
    it('posts one signed event with the documented body, never the token data, and lists it delivered', async () => {
      const { id, secret } = await hook(['token.created', 'token.updated', 'application.created']);
      const created = await tokens
        .post('/tokens')
        .set('SVC-TRACE-ID', 'trace-webhook-1')
        .send({ type: 'token', data: 'the secret plaintext', metadata: { order: '42' }, containers: ['/pci/'] })
        .expect(201);
      h.clock.advance(1500);
      expect(await h.deliver()).toEqual({ attempted: 1, delivered: 1 });

      expect(rx.received).toHaveLength(1);
      const got = rx.received[0]!;
      expect(got.method).toBe('POST');
      expect(got.url).toBe('/hooks?src=svc');
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.body).not.toContain('the secret plaintext');
      expect(got.body).not.toContain(secret);
      const now = Math.floor(h.clock.now().getTime() / 1000);
      expect(got.headers['svc-signature']).toBe(`t=${now},v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${now}.${got.body}`).digest('hex')}`);
      expect(verifyWebhook(secret, got.headers['svc-signature'] as string, got.body, now)).toBe(true);

      const body = JSON.parse(got.body) as { event: { id: string } };
      expect(body).toEqual({
        event: {
          id: expect.any(String),
          type: 'token.created',
          timestamp: '2026-01-01T00:00:00.000Z',
          tenant_id: h.tenant.tenant.id,
          trace_id: 'trace-webhook-1',
          data: {
            id: created.body.id,
            type: 'token',
            tenant_id: h.tenant.tenant.id,
            containers: ['/pci/'],
            metadata: { order: '42' },
            created_by: appId,
            created_at: '2026-01-01T00:00:00.000Z',
            modified_by: null,
            modified_at: null,
            expires_at: null,
            actor: { id: appId, type: 'application' },
          },
        },
        delivered_at: '2026-01-01T00:00:01.500Z',
      });
      expect(got.headers['svc-event-id']).toBe(body.event.id);
      expect(got.headers['svc-event-type']).toBe('token.created');

      const listed = await deliveries(id);
      expect(listed).toEqual([
        {
          event_id: body.event.id,
          event_type: 'token.created',
          webhook_id: id,
          status: 'delivered',
          attempts: [{ attempted_at: '2026-01-01T00:00:01.500Z', status_code: 200, error: null, duration_ms: 0 }],
          next_attempt_at: null,
          created_at: '2026-01-01T00:00:00.000Z',
          event: (body as { event: unknown }).event,
        },
      ]);
      // Delivered once: a later run sends nothing.
      expect(await h.deliver()).toEqual({ attempted: 0, delivered: 0 });
      expect(rx.received).toHaveLength(1);
    });

    it('lets a receiver verify the signature and refuse a tampered body, another secret or a replay older than five minutes', async () => {
      const { secret } = await hook();
      const other = await hook();
      await createToken();
      await h.deliver();
      expect(rx.received).toHaveLength(2);
      const mine = rx.received.find((r) => verifyWebhook(secret, r.headers['svc-signature'] as string, r.body, Math.floor(h.clock.now().getTime() / 1000)));
      expect(mine).toBeDefined();
      const t = Number(/t=(\d+)/.exec(mine!.headers['svc-signature'] as string)![1]);
      const sig = mine!.headers['svc-signature'] as string;
      expect(verifyWebhook(secret, sig, mine!.body, t + 299)).toBe(true);
      expect(verifyWebhook(secret, sig, mine!.body, t + 301)).toBe(false);
      expect(verifyWebhook(secret, sig, mine!.body.replace('"42"', '"43"'), t)).toBe(false);
      expect(verifyWebhook(other.secret, sig, mine!.body, t)).toBe(false);
      expect(verifyWebhook(secret, sig.replace(/t=\d+/, `t=${t + 1}`), mine!.body, t)).toBe(false);
      expect(verifyWebhook(secret, undefined, mine!.body, t)).toBe(false);
    });

    it('retries after a 500 one second later, then delivers: two attempts listed', async () => {
      const { id } = await hook();
      rx.answer = (n) => (n === 0 ? { status: 500, body: 'down' } : { status: 204 });
      await createToken();
      expect(await h.deliver()).toEqual({ attempted: 1, delivered: 0 });
      let [d] = await deliveries(id);
      expect(d).toMatchObject({
        status: 'pending',
        next_attempt_at: '2026-01-01T00:00:01.000Z',
        attempts: [{ attempted_at: '2026-01-01T00:00:00.000Z', status_code: 500, error: null }],
      });
      // Not due yet: nothing is sent.
      h.clock.advance(999);
      expect(await h.deliver()).toEqual({ attempted: 0, delivered: 0 });
      h.clock.advance(1);
      expect(await h.deliver()).toEqual({ attempted: 1, delivered: 1 });
      [d] = await deliveries(id);
      expect(d!.status).toBe('delivered');
      expect(d!.next_attempt_at).toBeNull();
      expect(d!.attempts.map((a) => a.status_code)).toEqual([500, 204]);
      expect(rx.received).toHaveLength(2);
      // The same event both times (receivers deduplicate by its id), each signed at its own attempt.
      const [first, second] = rx.received.map((r) => JSON.parse(r.body) as { event: { id: string }; delivered_at: string });
      expect(second!.event).toEqual(first!.event);
      expect([first!.delivered_at, second!.delivered_at]).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z']);
    });

    it('gives up after 24 hours of failures, backing off 1 s doubling to 1 h: delivery failed, webhook disabled by svc, its other deliveries failed', async () => {
      const { id } = await hook();
      rx.answer = () => ({ status: 500 });
      const start = h.clock.now().getTime();
      await createToken();
      h.clock.advance(30 * 60_000);
      await createToken(); // a second, younger delivery of the same webhook
      h.clock.advance(-30 * 60_000);
      const gaps: number[] = [];
      let last = start;
      for (let i = 0; i < 100; i++) {
        await h.deliver();
        const oldest = (await deliveries(id)).at(-1)!;
        if (oldest.status !== 'pending') break;
        const next = Date.parse(oldest.next_attempt_at!);
        gaps.push(next - last);
        last = next;
        h.clock.set(new Date(next));
      }
      const [younger, oldest] = await deliveries(id);
      expect(oldest!.status).toBe('failed');
      expect(oldest!.next_attempt_at).toBeNull();
      expect(gaps.slice(0, 13)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600].map((s) => s * 1000));
      expect(new Set(gaps.slice(12))).toEqual(new Set([3_600_000]));
      const lastAttempt = Date.parse(oldest!.attempts.at(-1)!.attempted_at);
      expect(lastAttempt - start).toBeLessThan(24 * 3_600_000);
      expect(lastAttempt - start).toBeGreaterThan(23 * 3_600_000);
      expect(oldest!.attempts.every((a) => a.status_code === 500)).toBe(true);
      expect({ status: younger!.status, last: younger!.attempts.at(-1) }).toEqual({ status: 'failed', last: oldest!.attempts.at(-1) });

      const webhook = (await api.get(`/webhooks/${id}`).expect(200)).body;
      expect(webhook).toMatchObject({ status: 'disabled', modified_by: 'svc' });
      await h.settleAudit();
      const logs = (await api.get(`/logs?entity_id=${id}`).expect(200)).body.data as Array<Record<string, unknown>>;
      expect(logs).toEqual(expect.arrayContaining([expect.objectContaining({ operation: 'update', entity_type: 'webhook', entity_id: id })]));
      const disabledBySvc = logs.find((l) => l.operation === 'update')!;
      expect(JSON.stringify(disabledBySvc)).toContain('svc');

      // Disabled: new events are not queued for it, and nothing more is sent.
      const sent = rx.received.length;
      await createToken();
      h.clock.advance(3_600_000);
      await h.deliver();
      expect(rx.received).toHaveLength(sent);
      expect(await deliveries(id)).toHaveLength(2);
    });

    it('records a refused connection as an error without a status, naming no address, and retries', async () => {
      // The allow list names the receiver's port only; this harness allows any port of 127.0.0.1, one of them closed.
      const closed = await receiver();
      const port = closed.port;
      await closed.close();
      const open = await harness({ SVC_OUTBOUND_ALLOW: '127.0.0.1' });
      const openApi = as(open.app, open.key);
      const made = (await openApi.post('/webhooks').send({ name: 'closed', url: `http://127.0.0.1:${port}/gone`, events: ['application.created'] }).expect(201)).body;
      await openApi.post('/applications').send({ name: 'x', type: 'private', permissions: ['token:read'] }).expect(201);
      expect(await open.deliver()).toEqual({ attempted: 1, delivered: 0 });
      const [d] = (await openApi.get(`/webhooks/${made.id}/deliveries`).expect(200)).body.data as ListedDelivery[];
      expect(d).toMatchObject({ status: 'pending', next_attempt_at: '2026-01-01T00:00:01.000Z' });
      expect(d!.attempts).toEqual([{ attempted_at: '2026-01-01T00:00:00.000Z', status_code: null, error: 'The destination could not be reached.', duration_ms: 0 }]);
      expect(JSON.stringify(d)).not.toContain(String(port));
    });
  });

  describe('against hostile or broken receivers', () => {
    it('checks the outbound policy again at delivery: a stored destination it now refuses is never contacted', async () => {
      const { id } = await hook(['token.created']);
      const bystander = await receiver();
      try {
        const stored = (await h.store.webhooks.findById(h.tenant.tenant.id, id))!;
        // Destinations accepted under an older policy (or written before it): not listed, metadata, a name that
        // resolves to loopback over https (checked on the resolved address), plain http to a name not listed.
        for (const url of [`http://127.0.0.1:${bystander.port}/in`, 'https://169.254.169.254/latest', `https://localhost:${bystander.port}/in`, `http://localhost:${rx.port}/in`]) {
          await h.store.webhooks.update({ ...stored, url });
          await createToken();
          h.clock.advance(10);
        }
        expect(await h.deliver()).toEqual({ attempted: 4, delivered: 0 });
        const listed = await deliveries(id);
        expect(listed).toHaveLength(4);
        for (const d of listed) {
          expect(d.status).toBe('pending');
          // Each delivery goes to the URL stored now (the last one); all refused before a socket opens.
          expect(d.attempts).toEqual([{ attempted_at: expect.any(String), status_code: null, error: 'The outbound policy refused the destination.', duration_ms: 0 }]);
        }
        expect(bystander.received).toEqual([]);
        expect(rx.received).toEqual([]);
        // Each URL on its own: the metadata address and the loopback name are refused too.
        for (const url of [`http://127.0.0.1:${bystander.port}/in`, 'https://169.254.169.254/latest', `https://localhost:${bystander.port}/in`]) {
          await h.store.webhooks.update({ ...stored, url });
          h.clock.advance(3_600_000);
          await h.deliver();
          for (const d of await deliveries(id)) expect(d.attempts.at(-1)!.error).toBe('The outbound policy refused the destination.');
        }
        expect(bystander.received).toEqual([]);
      } finally {
        await bystander.close();
      }
    });

    it('does not follow a redirect: a 301 is a failed attempt, retried at the same URL', async () => {
      const { id } = await hook(['token.created']);
      rx.answer = (n) => (n === 0 ? { status: 301, headers: { location: `${rx.url}/elsewhere` } } : { status: 200 });
      await createToken();
      expect(await h.deliver()).toEqual({ attempted: 1, delivered: 0 });
      expect(rx.received.map((r) => r.url)).toEqual(['/hooks?src=svc']);
      const [d] = await deliveries(id);
      expect(d).toMatchObject({ status: 'pending', attempts: [{ status_code: 301, error: null }] });
      h.clock.advance(1000);
      expect(await h.deliver()).toEqual({ attempted: 1, delivered: 1 });
      expect(rx.received.map((r) => r.url)).toEqual(['/hooks?src=svc', '/hooks?src=svc']);
    });

    it('times out a receiver that never answers, records it, and still delivers the other deliveries of the run', async () => {
      const a = await hook(['token.created']);
      const b = await hook(['token.created']);
      rx.answer = (n) => (n === 0 ? 'hang' : { status: 200 });
      await createToken();
      const started = Date.now();
      expect(await h.deliver()).toEqual({ attempted: 2, delivered: 1 });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(9_000);
      expect(took).toBeLessThan(15_000);
      const hung = JSON.parse(rx.received[0]!.body).event.id === (await deliveries(a.id))[0]!.event_id ? a : b;
      const answered = hung === a ? b : a;
      const [d] = await deliveries(hung.id);
      expect(d).toMatchObject({ status: 'pending', attempts: [{ status_code: null, error: 'The destination did not answer in time.' }] });
      expect((await deliveries(answered.id))[0]!.status).toBe('delivered');
      rx.release(200);
      h.clock.advance(1000);
      expect(await h.deliver()).toEqual({ attempted: 1, delivered: 1 });
    }, 30_000);

    it('counts a 2xx with a huge answer body as delivered without reading it all', async () => {
      const { id } = await hook(['token.created']);
      const big = 'x'.repeat(12 * 1024 * 1024);
      rx.answer = () => ({ status: 200, body: big });
      await createToken();
      const run = await h.deliver();
      const [d] = await deliveries(id);
      expect({ run, status: d!.status, attempts: d!.attempts.map((a) => [a.status_code, a.error]) }).toEqual({
        run: { attempted: 1, delivered: 1 },
        status: 'delivered',
        attempts: [[200, null]],
      });
    });

    it('survives the webhook being deleted while its delivery is in flight', async () => {
      const { id } = await hook(['token.created']);
      rx.answer = (n) => (n === 0 ? 'hang' : { status: 200 });
      await createToken();
      const run = h.deliver();
      await rx.waitFor(1);
      await api.delete(`/webhooks/${id}`).expect(204);
      rx.release(500);
      await expect(run).resolves.toEqual({ attempted: 1, delivered: 0 });
      await api.get(`/webhooks/${id}/deliveries`).expect(404);
      expect((await h.store.webhookDeliveries.list(h.tenant.tenant.id, id, { page: 1, size: 10 })).items).toEqual([]);
      h.clock.advance(3_600_000);
      expect(await h.deliver()).toEqual({ attempted: 0, delivered: 0 });
      expect(rx.received).toHaveLength(1);
    });

    /** Fails the delivery of `id` attempt after attempt until the next one is its last before giving up (the clock at it). */
    const untilLastAttempt = async (id: string): Promise<void> => {
      for (;;) {
        await h.deliver();
        const [d] = await deliveries(id);
        const next = Date.parse(d!.next_attempt_at!);
        h.clock.set(new Date(next));
        if (next + 3_600_000 >= Date.parse('2026-01-02T00:00:00.000Z')) return;
      }
    };

    /** A webhook whose receiver fails, its delivery's last attempt before giving up sent and held by the receiver. */
    const lastAttemptInFlight = async (): Promise<{ id: string; run: Promise<DeliveryRun> }> => {
      const { id } = await hook(['token.created']);
      rx.answer = () => ({ status: 500 });
      await createToken();
      await untilLastAttempt(id);
      rx.answer = () => 'hang';
      const sent = rx.received.length;
      const run = h.deliver();
      await rx.waitFor(sent + 1);
      return { id, run };
    };

    it('survives the webhook being deleted while its last attempt before giving up is in flight', async () => {
      const { id, run } = await lastAttemptInFlight();
      await api.delete(`/webhooks/${id}`).expect(204);
      rx.release(500);
      await expect(run).resolves.toEqual({ attempted: 1, delivered: 0 });
      await api.get(`/webhooks/${id}`).expect(404);
      expect((await api.get('/webhooks').expect(200)).body.data).toEqual([]);
    });

    it('keeps a change made while the last attempt was in flight when it disables the webhook', async () => {
      const { id, run } = await lastAttemptInFlight();
      await api.put(`/webhooks/${id}`).send({ name: 'Renamed meanwhile', url: `${rx.url}/v2`, events: ['token.created', 'token.deleted'] }).expect(200);
      rx.release(500);
      await run;
      const webhook = (await api.get(`/webhooks/${id}`).expect(200)).body;
      expect(webhook).toMatchObject({ status: 'disabled', name: 'Renamed meanwhile', url: `${rx.url}/v2`, events: ['token.created', 'token.deleted'] });
    });

    it('sends each delivery once when two dispatcher runs overlap', async () => {
      const { id } = await hook(['token.created']);
      for (let i = 0; i < 30; i++) await createToken();
      rx.answer = () => ({ status: 200 });
      const runs = await Promise.all([h.deliver(), h.deliver(), h.deliver()]);
      expect(runs.reduce((n, r) => n + r.attempted, 0)).toBe(30);
      expect(runs.reduce((n, r) => n + r.delivered, 0)).toBe(30);
      const ids = rx.received.map((r) => r.headers['svc-event-id']);
      expect(new Set(ids).size).toBe(30);
      expect(ids).toHaveLength(30);
      expect((await deliveries(id)).every((d) => d.status === 'delivered' && d.attempts.length === 1)).toBe(true);
    });
  });

  describe('every event type writes produce', () => {
    it('queues one delivery per event for a subscribed webhook, and none for an unsubscribed or disabled one', async () => {
      const all = await hook(WEBHOOK_EVENT_TYPES);
      const unsubscribed = await hook(['proxy.created', 'proxy.deleted']);
      const disabled = await hook(WEBHOOK_EVENT_TYPES, { status: 'disabled' });
      const tokensOnly = await hook(['token.created']);

      const id = await createToken();
      await tokens.patch(`/tokens/${id}`).set('Content-Type', 'application/merge-patch+json').send({ metadata: { order: '43' } }).expect(200);
      await tokens.delete(`/tokens/${id}`).expect(204);
      await createToken({ expires_at: '2026-01-01T00:10:00Z' });
      h.clock.advance(11 * 60_000);
      await h.sweep();

      const app = (await api.post('/applications').send({ name: 'hooked', type: 'private', permissions: ['token:read'] }).expect(201)).body;
      await api.put(`/applications/${app.id}`).send({ name: 'renamed', permissions: ['token:read'] }).expect(200);
      const key = (await api.post(`/applications/${app.id}/keys`).send({}).expect(201)).body;
      await api.delete(`/applications/${app.id}/keys/${key.id}`).expect(204);
      await api.delete(`/applications/${app.id}`).expect(204);

      await api.post('/tenants/self/invitations').send({ email: 'grace@example.com' }).expect(201);
      const member = await request(h.app).post('/invitations/accept').send({ token: h.mailer.lastToken(), first_name: 'Grace', last_name: 'Hopper' }).expect(201);
      await api.delete(`/tenants/self/members/${member.body.id}`).expect(204);

      const expected = [
        'token.created',
        'token.updated',
        'token.deleted',
        'token.created',
        'token.expired',
        'application.created',
        'application.updated',
        'application.key.created',
        'application.key.deleted',
        'application.deleted',
        'tenant.invitation.created',
        'tenant.invitation.accepted',
        'tenant.member.created',
        'tenant.member.deleted',
      ];
      const listed = await deliveries(all.id);
      expect(listed.map((d) => d.event_type).sort()).toEqual([...expected].sort());
      expect(listed.every((d) => d.status === 'pending')).toBe(true);
      expect(await deliveries(unsubscribed.id)).toEqual([]);
      expect(await deliveries(disabled.id)).toEqual([]);
      expect((await deliveries(tokensOnly.id)).map((d) => d.event_type)).toEqual(['token.created', 'token.created']);
      const expiredEvent = listed.find((d) => d.event_type === 'token.expired')!.event;
      expect(expiredEvent.data.actor).toEqual({ id: 'svc', type: 'system' });
      const keyEvent = listed.find((d) => d.event_type === 'application.key.created')!.event;
      expect(keyEvent.data.key_id).toBe(key.id);
      expect(JSON.stringify(listed)).not.toContain(key.key ?? 'no key shown');
      expect(JSON.stringify(listed)).not.toContain('the secret plaintext');
      expect(JSON.stringify(listed)).not.toContain(h.mailer.lastToken());

      // All of them reach the receiver, each signed for its webhook.
      const run = await h.deliver();
      expect(run).toEqual({ attempted: expected.length + 2, delivered: expected.length + 2 });
      expect(rx.received.map((r) => r.headers['svc-event-type']).sort()).toEqual([...expected, 'token.created', 'token.created'].sort());
      for (const r of rx.received) {
        const secret = r.headers['svc-event-type'] === 'token.created' && verifyWebhook(tokensOnly.secret, r.headers['svc-signature'] as string, r.body, Math.floor(h.clock.now().getTime() / 1000)) ? tokensOnly.secret : all.secret;
        expect(verifyWebhook(secret, r.headers['svc-signature'] as string, r.body, Math.floor(h.clock.now().getTime() / 1000))).toBe(true);
      }
    });

    it("never fans one tenant's events out to another tenant's webhook", async () => {
      const mine = await hook(WEBHOOK_EVENT_TYPES);
      const other = await h.createTenant('Other');
      const otherApi = as(h.app, other.management.key);
      const theirs = (await otherApi.post('/webhooks').send({ name: 'theirs', url: `${rx.url}/other`, events: [...WEBHOOK_EVENT_TYPES] }).expect(201)).body;
      await createToken();
      expect((await deliveries(mine.id)).length).toBe(1);
      expect((await otherApi.get(`/webhooks/${theirs.id}/deliveries`).expect(200)).body.data).toEqual([]);
      await api.get(`/webhooks/${theirs.id}/deliveries`).expect(404);
    });
  });
});
