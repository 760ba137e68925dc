import { type AuditEvent, SYSTEM_AUDIT_STREAM } from '@svc/core';
import request from 'supertest';
import type { AuditLogUseCases } from '../src/container';
import { TOKENS } from '../src/tokens';
import { as, harness, type Harness } from './harness';

/** An event as `GET /logs` shows it. */
interface LogEvent {
  id: string;
  tenant_id: string;
  actor_id: string;
  actor_type: string;
  entity_type: string;
  entity_id: string | null;
  operation: string;
  outcome: string;
  message: string;
  trace_id: string | null;
  created_at: string;
}

const VISA = '4242424242424242';
const problemFields = (res: request.Response): string[] => Object.keys((res.body as { errors?: object }).errors ?? {});

describe('the audit log over HTTP (beyond.md §5)', () => {
  let h: Harness;
  let api: ReturnType<typeof as>;
  let managementId: string;

  beforeEach(async () => {
    h = await harness();
    api = as(h.app, h.key);
    managementId = h.tenant.management.application.id;
  });

  /** Every event of a tenant but those of reading the log itself, newest first (the list flushes batched events first). */
  async function allEvents(key = h.key): Promise<LogEvent[]> {
    const events: LogEvent[] = [];
    for (let page = 1; ; page++) {
      const res = await as(h.app, key).get(`/logs?size=100&page=${page}`).expect(200);
      events.push(...(res.body.data as LogEvent[]));
      if (page >= res.body.pagination.total_pages) return events.filter((e) => !(e.message.startsWith('GET /logs') && e.outcome === 'success'));
    }
  }

  /** The events about one entity, oldest first. */
  async function eventsOf(entityId: string): Promise<LogEvent[]> {
    const res = await api.get(`/logs?entity_id=${encodeURIComponent(entityId)}&size=100`).expect(200);
    return (res.body.data as LogEvent[]).reverse();
  }

  /** An application with its id and key. */
  async function app(body: object): Promise<{ id: string; key: string }> {
    const res = await api.post('/applications').send(body).expect(201);
    return { id: res.body.id as string, key: res.body.key as string };
  }

  const privateApp = (...permissions: string[]) => app({ name: 'backend', type: 'private', permissions });

  /** A request with a trace id; returns the response and the trace id the server echoed. */
  const traced = (req: request.Test, trace: string) => req.set('SVC-TRACE-ID', trace);

  describe('an event for each operation', () => {
    it('tokens: create, read, reveal, update, delete, search, tokenize, detokenize, each with actor, entity and trace id', async () => {
      const backend = await privateApp('token:create', 'token:read', 'token:use', 'token:update', 'token:delete', 'token:search');
      const masked = await privateApp('token:read');
      const b = as(h.app, backend.key);
      const created = (await traced(b.post('/tokens'), 'trace-create').send({ type: 'card_number', data: VISA }).expect(201)).body;
      await traced(as(h.app, masked.key).get(`/tokens/${created.id}`), 'trace-read').expect(200);
      await traced(b.get(`/tokens/${created.id}`), 'trace-reveal').expect(200);
      await traced(b.patch(`/tokens/${created.id}`), 'trace-update').set('Content-Type', 'application/merge-patch+json').send({ metadata: { a: 'b' } }).expect(200);
      await traced(b.post('/tokens/search'), 'trace-search').send({ query: `data:${VISA}` }).expect(200);
      const tokenized = (await traced(b.post('/tokenize'), 'trace-tokenize').send({ a: 'first secret', b: ['second secret'] }).expect(201)).body;
      await traced(b.post('/detokenize'), 'trace-detokenize').send({ x: `{{ ${created.id} }}`, y: `{{ ${tokenized.a} }}`, z: `{{ ${created.id} }}` }).expect(200);
      const maskedAnswer = await traced(as(h.app, masked.key).post('/detokenize'), 'trace-detokenize-masked').send({ x: `{{ ${created.id} }}` }).expect(200);
      expect(maskedAnswer.body.x).toBe('XXXXXXXXXXXX4242');
      await traced(b.delete(`/tokens/${created.id}`), 'trace-delete').expect(204);

      const base = { tenant_id: h.tenant.tenant.id, actor_id: backend.id, actor_type: 'application', entity_type: 'token', entity_id: created.id, outcome: 'success' };
      expect(await eventsOf(created.id)).toEqual([
        expect.objectContaining({ ...base, operation: 'create', trace_id: 'trace-create' }),
        expect.objectContaining({ ...base, actor_id: masked.id, operation: 'read', trace_id: 'trace-read' }),
        expect.objectContaining({ ...base, operation: 'reveal', trace_id: 'trace-reveal' }),
        expect.objectContaining({ ...base, operation: 'update', trace_id: 'trace-update' }),
        // Detokenize records each token it touches once, however often the body names it.
        // Its message says what the caller was shown: an auditor tells a masked detokenize from a plaintext one.
        expect.objectContaining({ ...base, operation: 'detokenize', trace_id: 'trace-detokenize', message: 'Token detokenized (data revealed)' }),
        expect.objectContaining({ ...base, actor_id: masked.id, operation: 'detokenize', trace_id: 'trace-detokenize-masked', message: 'Token detokenized (data masked)' }),
        expect.objectContaining({ ...base, operation: 'delete', trace_id: 'trace-delete' }),
      ]);
      const all = await allEvents();
      const search = all.filter((e) => e.operation === 'search');
      expect(search).toEqual([expect.objectContaining({ ...base, entity_id: null, operation: 'search', trace_id: 'trace-search' })]);
      expect(search[0]!.message).toContain('data:***');
      expect(JSON.stringify(all)).not.toContain(VISA);
      for (const id of [tokenized.a, tokenized.b[0]]) {
        expect((await eventsOf(id)).map((e) => [e.operation, e.trace_id])).toEqual(
          id === tokenized.a ? [['tokenize', 'trace-tokenize'], ['detokenize', 'trace-detokenize']] : [['tokenize', 'trace-tokenize']],
        );
      }
      expect(JSON.stringify(all)).not.toContain('secret');
    });

    it('lists and searches that show plaintext record a reveal of each token shown so; masked ones do not', async () => {
      const backend = await privateApp('token:create', 'token:read', 'token:use', 'token:search');
      const masked = await privateApp('token:read', 'token:search');
      const b = as(h.app, backend.key);
      const created = (await b.post('/tokens').send({ type: 'card_number', data: VISA }).expect(201)).body;
      const shown = [
        traced(b.get(`/tokens?id=${created.id}`), 'list-v1'),
        traced(b.get('/v2/tokens'), 'list-v2'),
        traced(b.post('/tokens/search').send({ query: `id:${created.id}` }), 'search-v1'),
        traced(b.post('/v2/tokens/search').send({ query: `id:${created.id}` }), 'search-v2'),
      ];
      for (const req of shown) expect((await req.expect(200)).text).toContain(VISA);
      for (const req of [as(h.app, masked.key).get('/v2/tokens'), as(h.app, masked.key).post('/tokens/search').send({ query: `id:${created.id}` })]) {
        expect((await req.expect(200)).text).not.toContain(VISA);
      }
      const reveals = (await eventsOf(created.id)).filter((e) => e.operation === 'reveal');
      expect(reveals.map((e) => [e.actor_id, e.trace_id])).toEqual(['list-v1', 'list-v2', 'search-v1', 'search-v2'].map((t) => [backend.id, t]));
      expect(JSON.stringify(await allEvents())).not.toContain(VISA);
    });

    it('applications: create, read, update, regenerate, key.create, key.delete, delete, by the management application', async () => {
      const made = await privateApp('token:read');
      await api.get(`/applications/${made.id}`).expect(200);
      await api.put(`/applications/${made.id}`).send({ name: 'Renamed', permissions: ['token:read'] }).expect(200);
      await api.post(`/applications/${made.id}/regenerate`).expect(200);
      const key = (await api.post(`/applications/${made.id}/keys`).expect(201)).body;
      await api.delete(`/applications/${made.id}/keys/${key.id}`).expect(204);
      await api.delete(`/applications/${made.id}`).expect(204);
      const events = await eventsOf(made.id);
      expect(events.map((e) => e.operation)).toEqual(['create', 'read', 'update', 'regenerate', 'key.create', 'key.delete', 'delete']);
      for (const e of events) expect(e).toMatchObject({ actor_id: managementId, actor_type: 'application', entity_type: 'application', outcome: 'success' });
    });

    it('sessions: create by the public application, authorize by the backend, and reads by the session name the session', async () => {
      const pub = await app({ name: 'web', type: 'public', permissions: ['session:create'] });
      const backend = await privateApp('token:create', 'token:read', 'token:use', 'session:authorize');
      const tokenId = (await as(h.app, backend.key).post('/tokens').send({ type: 'token', data: 'x' }).expect(201)).body.id;
      const session = (await as(h.app, pub.key).post('/sessions').expect(201)).body;
      await as(h.app, backend.key).post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
      await as(h.app, session.session_key).get(`/tokens/${tokenId}`).expect(200);

      const sessions = (await allEvents()).filter((e) => e.entity_type === 'session').reverse();
      expect(sessions).toEqual([
        expect.objectContaining({ actor_id: pub.id, actor_type: 'application', operation: 'create', outcome: 'success' }),
        expect.objectContaining({ actor_id: backend.id, actor_type: 'application', operation: 'authorize', outcome: 'success' }),
      ]);
      const sessionId = sessions[0]!.entity_id!;
      expect(sessions[1]!.entity_id).toBe(sessionId);
      const read = (await eventsOf(tokenId)).find((e) => e.operation !== 'create');
      expect(read).toMatchObject({ actor_id: sessionId, actor_type: 'session', operation: 'read' });
    });

    it('invitations: create, resend, delete, accept (by svc itself), and members: delete', async () => {
      const first = (await api.post('/tenants/self/invitations').send({ email: 'grace@example.com' }).expect(201)).body;
      await api.post(`/tenants/self/invitations/${first.id}/resend`).expect(200);
      await api.delete(`/tenants/self/invitations/${first.id}`).expect(204);
      const second = (await api.post('/tenants/self/invitations').send({ email: 'ada@example.com' }).expect(201)).body;
      const member = (await request(h.app).post('/invitations/accept').send({ token: h.mailer.lastToken() }).expect(201)).body;
      await api.delete(`/tenants/self/members/${member.id}`).expect(204);

      const mine = { actor_id: managementId, actor_type: 'application', entity_type: 'tenant_invitation', outcome: 'success' };
      expect((await eventsOf(first.id)).map((e) => e.operation)).toEqual(['create', 'resend', 'delete']);
      for (const e of await eventsOf(first.id)) expect(e).toMatchObject(mine);
      expect(await eventsOf(second.id)).toEqual([
        expect.objectContaining({ ...mine, operation: 'create' }),
        expect.objectContaining({ ...mine, actor_id: 'svc', actor_type: 'system', operation: 'accept' }),
      ]);
      expect((await eventsOf(member.id)).map((e) => [e.entity_type, e.operation, e.actor_type])).toEqual([
        ['tenant_member', 'create', 'system'],
        ['tenant_member', 'delete', 'application'],
      ]);
    });

    it('webhooks: create, update, delete', async () => {
      const hook = { name: 'Orders', url: 'https://hooks.example.com/x', events: ['token.created'] };
      const made = (await api.post('/webhooks').send(hook).expect(201)).body;
      await api.put(`/webhooks/${made.id}`).send({ ...hook, name: 'Renamed' }).expect(200);
      await api.delete(`/webhooks/${made.id}`).expect(204);
      const events = await eventsOf(made.id);
      expect(events.map((e) => e.operation)).toEqual(['create', 'update', 'delete']);
      for (const e of events) expect(e).toMatchObject({ actor_id: managementId, entity_type: 'webhook', outcome: 'success' });
    });
  });

  describe('refusals and failures', () => {
    it('records 403 as denied, and 404, 409 and 400 as failed, with no success event for what did not happen', async () => {
      const writer = await privateApp('token:create', 'token:update', 'token:delete');
      const w = as(h.app, writer.key);
      const made = (await w.post('/tokens').send({ id: 'my-token', type: 'token', data: 'x' }).expect(201)).body;
      await traced(w.get(`/tokens/${made.id}`), 'trace-denied').expect(403);
      await traced(w.post('/tokens'), 'trace-conflict').send({ id: 'my-token', type: 'token', data: 'y' }).expect(409);
      await w.patch('/tokens/absent-token').set('Content-Type', 'application/merge-patch+json').send({ metadata: { a: 'b' } }).expect(404);
      await w.delete('/tokens/absent-token').expect(404);
      await w.post('/tokens').send({ id: 'invalid-token', type: 'card_number', data: 'not a card' }).expect(400);

      const base = { actor_id: writer.id, actor_type: 'application', entity_type: 'token' };
      // The fixed clock gives these events one created_at, and events of one millisecond are ordered by their ids,
      // whose low bits are random: compare them by operation.
      const byOperation = (list: Array<{ operation: string }>) => [...list].sort((a, b) => a.operation.localeCompare(b.operation));
      expect(byOperation(await eventsOf('my-token'))).toEqual([
        expect.objectContaining({ ...base, entity_id: 'my-token', operation: 'create', outcome: 'success' }),
        expect.objectContaining({ ...base, entity_id: 'my-token', operation: 'read', outcome: 'denied', trace_id: 'trace-denied' }),
      ]);
      expect(byOperation(await eventsOf('absent-token'))).toEqual([
        expect.objectContaining({ ...base, operation: 'delete', outcome: 'failed' }),
        expect.objectContaining({ ...base, operation: 'update', outcome: 'failed' }),
      ]);
      const all = await allEvents();
      const creates = all.filter((e) => e.operation === 'create' && e.entity_type === 'token');
      expect(creates.map((e) => e.outcome).sort()).toEqual(['failed', 'failed', 'success']);
      expect(all.find((e) => e.trace_id === 'trace-conflict')).toMatchObject({ outcome: 'failed', operation: 'create' });
      expect(JSON.stringify(all)).not.toContain('not a card');
      expect(all.some((e) => e.entity_id === 'invalid-token' && e.outcome === 'success')).toBe(false);
    });

    it('records one success for a write raced by others, and failures for the rest', async () => {
      const writer = await privateApp('token:create', 'token:delete');
      const w = as(h.app, writer.key);
      const id = (await w.post('/tokens').send({ type: 'token', data: 'x' }).expect(201)).body.id as string;
      const answers = await Promise.all(Array.from({ length: 5 }, () => w.delete(`/tokens/${id}`)));
      expect(answers.map((a) => a.status).sort()).toEqual([204, 404, 404, 404, 404]);
      const deletes = (await eventsOf(id)).filter((e) => e.operation === 'delete');
      expect(deletes.map((e) => e.outcome).sort()).toEqual(['failed', 'failed', 'failed', 'failed', 'success']);
    });

    it('records no tokenize success when the call fails, and one create for an idempotent replay', async () => {
      const writer = await privateApp('token:create');
      const w = as(h.app, writer.key);
      await w.post('/tokens').send({ id: 'taken', type: 'token', data: 'x' }).expect(201);
      await w.post('/tokenize').send({ a: { type: 'token', data: 'y' }, b: { id: 'taken', type: 'token', data: 'z' } }).expect(409);
      expect((await allEvents()).filter((e) => e.operation === 'tokenize').map((e) => e.outcome)).toEqual(['failed']);

      const first = await w.post('/tokens').set('SVC-IDEMPOTENCY-KEY', 'once').send({ type: 'token', data: 'q' }).expect(201);
      const replay = await w.post('/tokens').set('SVC-IDEMPOTENCY-KEY', 'once').send({ type: 'token', data: 'q' }).expect(201);
      expect(replay.body.id).toBe(first.body.id);
      expect((await eventsOf(first.body.id)).filter((e) => e.outcome === 'success' && e.operation === 'create')).toHaveLength(1);
    });

    it('records a reused nonce and a session key past its expiry as refused, never as authorized', async () => {
      const pub = await app({ name: 'web', type: 'public', permissions: ['session:create'] });
      const backend = await privateApp('session:authorize', 'token:read');
      const session = (await as(h.app, pub.key).post('/sessions').expect(201)).body;
      await as(h.app, backend.key).post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] }).expect(200);
      const again = await as(h.app, backend.key).post('/sessions/authorize').send({ nonce: session.nonce, permissions: ['token:read'] });
      expect(again.status).toBeGreaterThanOrEqual(400);
      const authorizations = (await allEvents()).filter((e) => e.operation === 'authorize');
      expect(authorizations.map((e) => e.outcome).sort()).toEqual(['failed', 'success']);
    });

    it("records a 401 only in the system stream, which no tenant's GET /logs shows", async () => {
      const other = await h.createTenant('Other');
      await traced(as(h.app, 'key_not_a_real_key').get('/tokens/some-id'), 'trace-401').expect(401);
      await traced(request(h.app).get('/applications'), 'trace-401').expect(401);
      for (const key of [h.key, other.management.key]) {
        expect((await allEvents(key)).filter((e) => e.trace_id === 'trace-401')).toEqual([]);
      }
      await h.settleAudit();
      const system = await h.store.auditLog.list(SYSTEM_AUDIT_STREAM, {}, { page: 1, size: 100 });
      expect(system.items.filter((e) => e.traceId === 'trace-401')).toEqual([
        expect.objectContaining({ tenantId: SYSTEM_AUDIT_STREAM, actorType: 'system', outcome: 'denied' }),
        expect.objectContaining({ tenantId: SYSTEM_AUDIT_STREAM, actorType: 'system', outcome: 'denied' }),
      ]);
      expect(JSON.stringify(system.items)).not.toContain('key_not_a_real_key');
    });

    it('takes the trace id the server answered with: a trace id with odd characters is replaced, never stored', async () => {
      const odd = 'abc<script>alert(1)</script>';
      const res = await api.get('/applications').set('SVC-TRACE-ID', odd).expect(200);
      const [listed] = (await allEvents().then(() => api.get('/logs?entity_type=application&size=1').expect(200))).body.data as LogEvent[];
      expect(listed!.trace_id).toBe(res.headers['svc-trace-id']);
      expect(listed!.trace_id).not.toContain('<');
    });

    it('leaves a huge entity id out of the event, answers without a 500, and refuses it as a filter', async () => {
      const reader = await privateApp('token:read');
      const huge = 'x'.repeat(5_000);
      const res = await as(h.app, reader.key).get(`/tokens/${huge}`);
      expect(res.status).toBeLessThan(500);
      const failed = (await allEvents()).filter((e) => e.actor_id === reader.id);
      expect(failed).toEqual([expect.objectContaining({ entity_type: 'token', entity_id: null, outcome: 'failed' })]);
      expect(failed[0]!.message).not.toContain('xxxxxxxx');
      expect(problemFields(await api.get(`/logs?entity_id=${'y'.repeat(401)}`).expect(400))).toEqual(['entity_id']);
    });
  });

  describe('GET /logs', () => {
    /** Creates one token a minute; returns their ids, oldest first. */
    async function tokensOverTime(n: number): Promise<string[]> {
      const key = (await privateApp('token:create')).key;
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        ids.push((await as(h.app, key).post('/tokens').send({ type: 'token', data: `v${i}` }).expect(201)).body.id);
        h.clock.advanceMinutes(1);
      }
      return ids;
    }

    it('filters by entity type, entity id and a half-open date range, newest first, in pages', async () => {
      const ids = await tokensOverTime(5);
      const tokenEvents = await api.get('/logs?entity_type=token&size=2&page=2').expect(200);
      expect(tokenEvents.body.pagination).toEqual({ total_items: 5, page_number: 2, page_size: 2, total_pages: 3 });
      expect(tokenEvents.body.data.map((e: LogEvent) => e.entity_id)).toEqual([ids[2], ids[1]]);
      const one = await api.get(`/logs?entity_id=${ids[3]}`).expect(200);
      expect(one.body.data.map((e: LogEvent) => [e.entity_id, e.operation])).toEqual([[ids[3], 'create']]);
      // start ≤ created_at < end: minutes 1 and 2 of the five.
      const range = await api.get('/logs?entity_type=token&start_date=2026-01-01T00:01:00Z&end_date=2026-01-01T00:03:00Z').expect(200);
      expect(range.body.data.map((e: LogEvent) => e.entity_id)).toEqual([ids[2], ids[1]]);
      const offset = await api.get('/logs?entity_type=token&start_date=2026-01-01T01:01:00%2B01:00&end_date=2026-01-01T01:03:00%2B01:00').expect(200);
      expect(offset.body.data.map((e: LogEvent) => e.entity_id)).toEqual([ids[2], ids[1]]);
      const day = await api.get('/logs?entity_type=token&start_date=2026-01-01&end_date=2026-01-02').expect(200);
      expect(day.body.pagination.total_items).toBe(5);
      const all = await api.get('/logs?size=100').expect(200);
      const times = all.body.data.map((e: LogEvent) => e.created_at);
      expect([...times].sort().reverse()).toEqual(times);
      expect(all.body.data.find((e: LogEvent) => e.entity_id === ids[4])).toEqual({
        id: expect.any(String),
        tenant_id: h.tenant.tenant.id,
        actor_id: expect.any(String),
        actor_type: expect.any(String),
        entity_type: expect.any(String),
        entity_id: ids[4],
        operation: expect.any(String),
        outcome: expect.any(String),
        message: expect.any(String),
        trace_id: expect.any(String),
        created_at: expect.any(String),
      });
      const past = await api.get('/logs?start_date=2030-01-01').expect(200);
      expect(past.body).toEqual({ pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 }, data: [] });
    });

    it.each([
      ['entity_type=nope', 'entity_type'],
      ['entity_type=TOKEN', 'entity_type'],
      ['start_date=yesterday', 'start_date'],
      ['end_date=2026-13-01', 'end_date'],
      ['start_date=', 'start_date'],
      ['entity_id=', 'entity_id'],
      ['page=0', 'page'],
      ['size=1000', 'size'],
      ['entity_type=token&entity_type=webhook', 'entity_type'],
      ['start_date=2026-01-01&start_date=2026-01-02', 'start_date'],
      ['outcome=denied', 'outcome'],
      ['entity_id[]=x', "['entity_id[]']"],
      ['entity_id[$ne]=x', "['entity_id[$ne]']"],
    ])('answers %s with 400 naming %s', async (query, field) => {
      const res = await api.get(`/logs?${query}`).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(problemFields(res)).toEqual([field]);
    });

    it("needs log:read, and never shows another tenant's events", async () => {
      const noLog = await app({ name: 'no log', type: 'management', permissions: ['application:read'] });
      const refused = await as(h.app, noLog.key).get('/logs').expect(403);
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
      await as(h.app, noLog.key).get('/logs/entity-types').expect(403);
      const other = await h.createTenant('Other');
      const theirs = await as(h.app, other.management.key).post('/applications').send({ name: 'theirs', type: 'private', permissions: ['token:read'] }).expect(201);
      expect(await eventsOf(theirs.body.id)).toEqual([]);
      const theirLog = await as(h.app, other.management.key).get('/logs?size=100').expect(200);
      for (const e of theirLog.body.data as LogEvent[]) expect(e.tenant_id).toBe(other.tenant.id);
      expect((theirLog.body.data as LogEvent[]).some((e) => e.entity_id === theirs.body.id)).toBe(true);
      expect((theirLog.body.data as LogEvent[]).some((e) => e.entity_id === noLog.id)).toBe(false);
      // The refusal is in the refused tenant's own log, as denied.
      const denied = (await allEvents()).filter((e) => e.actor_id === noLog.id);
      expect(denied.map((e) => e.outcome)).toEqual(['denied', 'denied']);
    });

    it('lists the entity types, including the eight of §5', async () => {
      const res = await api.get('/logs/entity-types').expect(200);
      const values = (res.body as Array<{ display_name: string; value: string }>).map((t) => t.value);
      expect(values).toEqual(expect.arrayContaining(['token', 'application', 'session', 'tenant_member', 'tenant_invitation', 'proxy', 'webhook', 'token_intent']));
      for (const t of res.body) expect(t).toEqual({ display_name: expect.any(String), value: expect.any(String) });
      expect(res.body).toContainEqual({ display_name: 'Token', value: 'token' });
    });
  });

  describe('retention', () => {
    it('prunes events older than SVC_LOG_RETENTION, and the chain still verifies from the anchor', async () => {
      h = await harness({ SVC_LOG_RETENTION: '1d' });
      api = as(h.app, h.key);
      const key = (await privateApp('token:create')).key;
      const old = (await as(h.app, key).post('/tokens').send({ type: 'token', data: 'old' }).expect(201)).body.id;
      await h.settleAudit();
      h.clock.advanceMinutes(2 * 24 * 60);
      const kept = (await as(h.app, key).post('/tokens').send({ type: 'token', data: 'new' }).expect(201)).body.id;
      await h.settleAudit();
      await h.sweep();
      await h.settleAudit();
      expect(await eventsOf(old)).toEqual([]);
      expect((await eventsOf(kept)).map((e) => e.operation)).toEqual(['create']);
      const verdicts = await h.container.resolve<AuditLogUseCases>(TOKENS.AuditLogUseCases).verify.execute(h.tenant.tenant.id);
      expect(verdicts).toEqual([expect.objectContaining({ tenantId: h.tenant.tenant.id, ok: true })]);
      expect((verdicts[0] as { anchor: { chainSeq: number } }).anchor.chainSeq).toBeGreaterThan(0);
    });
  });
});

export type { AuditEvent };
