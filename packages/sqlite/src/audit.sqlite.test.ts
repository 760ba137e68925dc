import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuditEffects,
  type AuditActor,
  ChainAuditEvents,
  CHAIN_START,
  chainAfter,
  CryptoRandomSource,
  Keyring,
  type StoredToken,
  VerifyAuditLog,
  verifyAuditChain,
  type Webhook,
  type WriteEffects,
} from '@svc/core';
import { aStoredToken } from '@svc/core/testing';
import { openConnection } from './connection';
import { migrate } from './schema';
import { openSqliteStore, type SqliteStore } from './sqlite-store';
import { InProcessTokenWriter } from './in-process-writer';
import { SqliteAuditLogRepository } from './sqlite-audit-log.repository';
import { applyBatch, TokenWrites } from './token-writes';

/** SQLite specifics of ADR 4: effects share their write's transaction, migration 15, the indexes the hot paths use. */

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-audit-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T1 = '11111111-0000-4000-8000-000000000001';
const NOW = new Date('2026-01-01T00:00:00.000Z');
const actor: AuditActor = { tenantId: T1, id: 'app-1', type: 'application', traceId: 'trace-1' };
const audit = new AuditEffects();

const created = (token: StoredToken): WriteEffects =>
  audit.effects(actor, NOW, [{ entityType: 'token', entityId: token.id, operation: 'create', message: 'Token created' }], [
    { type: 'token.created', data: { id: token.id } },
  ]);

const hook = (patch: Partial<Webhook> = {}): Webhook => ({
  id: `wh-${++n}`,
  tenantId: T1,
  name: 'hook',
  url: 'https://hooks.example.com/in',
  events: ['token.created', 'token.expired'],
  status: 'enabled',
  sealedSecret: Uint8Array.from([1, 2, 3]),
  createdBy: 'app-1',
  createdAt: NOW,
  ...patch,
});

const count = (store: SqliteStore, table: string): number => store.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe.each([
  ['on the writer thread', true],
  ['in-process', false],
])('token write effects %s', (_name, writerThread) => {
  let store: SqliteStore;
  beforeEach(async () => {
    store = openSqliteStore({ file: join(dir, `effects-${++n}.db`), writerThread });
    await store.webhooks.create(hook(), 50);
  });
  afterEach(() => store.close());

  it('an effect commits with its token or not at all: an effect that cannot be stored undoes its token', async () => {
    const first = aStoredToken().inTenant(T1).build();
    const fx = created(first);
    expect(await store.tokens.create(first, { deduplicate: false, now: NOW, effects: fx })).toEqual({ status: 'created' });
    // A second token carrying the same event id: its event insert fails, and the token goes with it.
    const second = aStoredToken().inTenant(T1).build();
    // (Matched by code: better-sqlite3's SqliteError is not always an Error of the test's realm.)
    const refused: unknown = await store.tokens.create(second, { deduplicate: false, now: NOW, effects: { events: fx.events, messages: [] } }).then(
      () => 'created',
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(await store.tokens.findById(T1, second.id, NOW)).toBeUndefined();
    expect(count(store, 'audit_events')).toBe(1);
    expect(count(store, 'webhook_deliveries')).toBe(1);
  });

  it('fans out to the webhooks a tenant has when each write commits: one added, disabled or enabled between writes counts', async () => {
    const T2 = '22222222-0000-4000-8000-000000000002';
    const other: AuditActor = { ...actor, tenantId: T2 };
    const createIn = async () => {
      const token = aStoredToken().inTenant(T2).build();
      const fx = audit.effects(other, NOW, [{ entityType: 'token', entityId: token.id, operation: 'create', message: 'Token created' }], [
        { type: 'token.created', data: { id: token.id } },
      ]);
      await store.tokens.create(token, { deduplicate: false, now: NOW, effects: fx });
    };
    const deliveriesOf = (tenantId: string) => store.db.prepare('SELECT COUNT(*) FROM webhook_deliveries WHERE tenant_id = ?').pluck().get(tenantId);
    await Promise.all([createIn(), createIn()]);
    expect(deliveriesOf(T2)).toBe(0);
    const added = hook({ tenantId: T2 });
    await store.webhooks.create(added, 50);
    await Promise.all([createIn(), createIn(), createIn()]);
    expect(deliveriesOf(T2)).toBe(3);
    await store.webhooks.update({ ...added, status: 'disabled' });
    await createIn();
    expect(deliveriesOf(T2)).toBe(3);
    await store.webhooks.update({ ...added, status: 'enabled' });
    await createIn();
    expect(deliveriesOf(T2)).toBe(4);
  });

  it('leaves no audit row and no delivery after a createMany refused for a duplicate id', async () => {
    const taken = aStoredToken().inTenant(T1).build();
    await store.tokens.create(taken, { deduplicate: false, now: NOW });
    const fresh = aStoredToken().inTenant(T1).build();
    const outcome = await store.tokens.createMany(
      [
        { token: fresh, deduplicate: false, effects: created(fresh) },
        { token: { ...taken, fingerprint: 'other' }, deduplicate: false, effects: created(taken) },
      ],
      NOW,
    );
    expect(outcome).toEqual({ status: 'duplicate_id', index: 1 });
    expect(count(store, 'tokens')).toBe(1);
    expect(count(store, 'audit_events')).toBe(0);
    expect(count(store, 'webhook_deliveries')).toBe(0);
  });

  it('stores the expiry effects of an expired token whose id a create takes over (the sweeper never sees it)', async () => {
    const old = aStoredToken().inTenant(T1).with({ expiresAt: new Date(NOW.getTime() - 1) }).build();
    await store.tokens.create(old, { deduplicate: false, now: new Date(0) });
    const successor = aStoredToken().inTenant(T1).with({ id: old.id }).build();
    expect(await store.tokens.create(successor, { deduplicate: false, now: NOW, effects: created(successor) })).toEqual({ status: 'created' });
    const events = (await store.auditLog.list(T1, { entityId: old.id }, { page: 1, size: 10 })).items;
    expect(events.map((e) => [e.actorType, e.operation]).sort()).toEqual([
      ['application', 'create'],
      ['system', 'delete'],
    ]);
    const types = store.db.prepare('SELECT event_type FROM webhook_deliveries ORDER BY event_type').pluck().all();
    expect(types).toEqual(['token.created', 'token.expired']);
  });
});

describe('the audit log on the writer thread', () => {
  it('appends and chains through the writer, so the event loop never waits for their commits', async () => {
    const store = openSqliteStore({ file: join(dir, `chain-${++n}.db`) });
    const writer = (store as unknown as { writer: { run(write: { op: string }): Promise<unknown> } }).writer;
    const ops: string[] = [];
    const run = writer.run.bind(writer);
    writer.run = (write) => {
      ops.push(write.op);
      return run(write);
    };
    const event = audit.event(actor, { entityType: 'token', operation: 'search', message: 'Tokens searched' }, NOW);
    await store.auditLog.append([event]);
    const [chained] = chainAfter(Buffer.alloc(32, 1), CHAIN_START, await store.auditLog.unchained(T1, 10));
    expect(await Promise.all([store.auditLog.chain(T1, CHAIN_START, [chained!]), store.auditLog.chain(T1, CHAIN_START, [chained!])])).toEqual([true, false]);
    expect(ops).toEqual(['appendEvents', 'chainEvents', 'chainEvents']);
    expect(await store.auditLog.chainHead(T1)).toEqual({ chainSeq: 1, hash: chained!.hash });
    await store.close();
  });
});

describe('the sweeper on the writer connection', () => {
  it('removes only tokens still expired and as read, and stores the effects of those only', async () => {
    const file = join(dir, `sweep-${++n}.db`);
    const store = openSqliteStore({ file, writerThread: false });
    const expired = aStoredToken().inTenant(T1).with({ expiresAt: new Date(NOW.getTime() - 1) }).build();
    await store.tokens.create(expired, { deduplicate: false, now: new Date(0) });
    const writes = new TokenWrites(store.db);
    const effects = audit.effects(actor, NOW, [{ entityType: 'token', entityId: expired.id, operation: 'delete', message: 'Token expired' }]);
    const stale = { tenantId: T1, id: expired.id, version: expired.version + 1, createdAt: expired.createdAt.getTime(), effects };
    // Read at another version (changed meanwhile), or swept with a `now` before its expiry: left alone.
    expect(writes.apply({ op: 'deleteMany', tokens: [stale], now: NOW.getTime() })).toBe(0);
    const asRead = { ...stale, version: expired.version };
    expect(writes.apply({ op: 'deleteMany', tokens: [asRead], now: NOW.getTime() - 10 })).toBe(0);
    expect(count(store, 'audit_events')).toBe(0);
    expect(writes.apply({ op: 'deleteMany', tokens: [asRead, asRead], now: NOW.getTime() })).toBe(1);
    expect(count(store, 'tokens')).toBe(0);
    expect(count(store, 'audit_events')).toBe(1);
    await store.close();
  });
});

describe('migration 15', () => {
  it('applies on a file an older svc left at version 14, and its webhooks receive deliveries', async () => {
    const file = join(dir, `v14-${++n}.db`);
    const old = openConnection(file);
    migrate(old, 14);
    old
      .prepare(`INSERT INTO webhooks (tenant_id, id, name, url, events, status, notify_email, sealed_secret, created_by, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(T1, 'wh-old', 'old', 'https://hooks.example.com/in', '["token.created"]', 'enabled', null, Buffer.from([1]), 'app-1', NOW.getTime());
    old.close();

    const store = openSqliteStore({ file });
    expect(store.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(15);
    const token = aStoredToken().inTenant(T1).build();
    const fx = created(token);
    await store.tokens.create(token, { deduplicate: false, now: NOW, effects: fx });
    expect((await store.auditLog.list(T1, {}, { page: 1, size: 10 })).items.map((e) => e.id)).toEqual([fx.events[0]!.id]);
    expect((await store.webhookDeliveries.list(T1, 'wh-old', { page: 1, size: 10 })).items.map((d) => d.eventId)).toEqual([fx.messages[0]!.id]);
    // A delete takes the webhook's deliveries with it, also one made by hand in SQL.
    store.db.prepare('DELETE FROM webhooks WHERE id = ?').run('wh-old');
    expect(count(store, 'webhook_deliveries')).toBe(0);
    await store.close();
  });
});

describe('query plans', () => {
  let store: SqliteStore;
  beforeAll(() => {
    store = openSqliteStore({ file: join(dir, `plans-${++n}.db`), writerThread: false });
  });
  afterAll(() => store.close());

  const plan = (sql: string, ...params: unknown[]): string =>
    (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('\n');

  it('fans a message out with a seek on its tenant\'s webhooks, never a scan', () => {
    const detail = plan(`SELECT w.id FROM webhooks w WHERE w.tenant_id = ? AND w.status = 'enabled'
      AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = ?)`, T1, 'token.created');
    expect(detail).toMatch(/SEARCH w USING (INDEX|PRIMARY KEY|COVERING INDEX)/);
    expect(detail).not.toMatch(/SCAN w\b/);
  });

  it('lists, filters and hands out unchained events and due deliveries from indexes', () => {
    expect(plan('SELECT * FROM audit_events WHERE tenant_id = ? ORDER BY created_at DESC, id DESC LIMIT 10', T1)).toMatch(
      /audit_events_by_created/,
    );
    expect(plan('SELECT * FROM audit_events WHERE tenant_id = ? AND entity_id = ? ORDER BY created_at DESC, id DESC LIMIT 10', T1, 'x')).toMatch(
      /audit_events_by_entity_id/,
    );
    expect(plan('SELECT * FROM audit_events WHERE tenant_id = ? AND chain_seq IS NULL ORDER BY created_at, id LIMIT 10', T1)).toMatch(
      /audit_events_unchained/,
    );
    expect(plan('SELECT * FROM audit_events WHERE tenant_id = ? AND chain_seq IS NOT NULL AND chain_seq > ? ORDER BY chain_seq LIMIT 10', T1, 0)).toMatch(
      /audit_events_by_chain/,
    );
    expect(
      plan(`SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
        ORDER BY next_attempt_at, created_at, event_id LIMIT 10`, 0, 0),
    ).toMatch(/webhook_deliveries_due/);
  });
});

describe('the recorded chain head (migration 16)', () => {
  const clock = { now: () => new Date(NOW.getTime() + 3_600_000) };
  const keyringOf = (store: SqliteStore) =>
    new Keyring({ dataKeys: store.dataKeys, random: new CryptoRandomSource(), clock, masterKey: new Uint8Array(32).fill(9) });
  const events = (k: number) =>
    Array.from({ length: k }, (_, i) => audit.event(actor, { entityType: 'token', entityId: `tok-${i}`, operation: 'read', message: 'Token read' }, new Date(NOW.getTime() + i)));

  it('lets verify see the newest events deleted behind svc\'s back, and the chainer does not reuse their places', async () => {
    const store = openSqliteStore({ file: join(dir, `head-${++n}.db`) });
    const keyring = keyringOf(store);
    await store.auditLog.append(events(5));
    expect(await new ChainAuditEvents({ auditLog: store.auditLog, keyring }).execute()).toBe(5);
    const verify = new VerifyAuditLog({ auditLog: store.auditLog, keyring, clock });
    expect(await verify.execute(T1)).toMatchObject([{ ok: true, checked: 5 }]);

    store.db.prepare('DELETE FROM audit_events WHERE tenant_id = ? AND chain_seq >= 4').run(T1);
    expect(await verify.execute(T1)).toEqual([{ tenantId: T1, ok: false, checked: 3, problem: 'truncated', chainSeq: 4 }]);
    // New events go after the recorded head, so the hole stays visible.
    await store.auditLog.append(events(1));
    await new ChainAuditEvents({ auditLog: store.auditLog, keyring }).execute();
    expect((await store.auditLog.chained(T1, 3, 10)).map((e) => e.chainSeq)).toEqual([6]);
    expect(await verify.execute(T1)).toMatchObject([{ ok: false, problem: 'removed', chainSeq: 6 }]);
    await store.close();
  });

  it('keeps the head when the sweep prunes every event, and backfills it on a file of version 15', async () => {
    const file = join(dir, `v15-${++n}.db`);
    const old = openConnection(file);
    migrate(old, 15);
    old.close();
    let store = openSqliteStore({ file });
    const keyring = keyringOf(store);
    await store.auditLog.append(events(3));
    await new ChainAuditEvents({ auditLog: store.auditLog, keyring }).execute();
    const head = await store.auditLog.chainHead(T1);
    await store.close();

    // The same file as version 15 left it: chained events, no head row (nor any table of a later migration).
    const back = openConnection(file);
    back.exec(`DROP TABLE audit_heads; DROP TABLE proxies; DROP TABLE token_metadata;
      CREATE TABLE token_metadata (tenant_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, token_id TEXT NOT NULL,
        PRIMARY KEY (tenant_id, key, value, token_id)) WITHOUT ROWID;
      CREATE INDEX token_metadata_by_token ON token_metadata (tenant_id, token_id)`);
    back.pragma('user_version = 15');
    back.close();
    store = openSqliteStore({ file });
    expect(await store.auditLog.chainHead(T1)).toEqual(head);
    store.db.prepare('DELETE FROM audit_events WHERE chain_seq = 3').run();
    expect(await new VerifyAuditLog({ auditLog: store.auditLog, keyring: keyringOf(store), clock }).execute(T1)).toMatchObject([
      { ok: false, problem: 'truncated', chainSeq: 3 },
    ]);
    expect(await store.auditLog.prune(new Date(NOW.getTime() + 1_000), 100)).toBe(2);
    expect(await store.auditLog.chainHead(T1)).toEqual(head);
    await store.close();
  });
});

describe('chaining as events are written', () => {
  const KEY = new Uint8Array(32).fill(9);
  const eventOf = (i: number) => audit.event(actor, { entityType: 'token', entityId: `t-${i}`, operation: 'read', message: 'Token read' }, new Date(NOW.getTime() + i));

  it.each([
    ['the writer thread', true],
    ['this thread', false],
  ])('on %s, places the events of token writes and appends at once, after any the chainer placed, and they verify', async (_, writerThread) => {
    const store = openSqliteStore({ file: join(dir, `inline-${++n}.db`), writerThread });
    try {
      // Before the store has keys, events wait for the chainer.
      await store.auditLog.append([eventOf(1)]);
      expect(await store.auditLog.unchained(T1, 10)).toHaveLength(1);
      store.auditLog.useChainKeys((tenantId) => Promise.resolve(tenantId === T1 ? KEY : new Uint8Array(32)));
      const token = aStoredToken().inTenant(T1).build();
      await store.tokens.create(token, { deduplicate: false, now: NOW, effects: created(token) });
      await store.auditLog.append([eventOf(2), eventOf(3)]);
      // The create's event and the appended ones are chained already; the one from before the keys is not.
      expect((await store.auditLog.unchained(T1, 10)).map((e) => e.entityId)).toEqual(['t-1']);
      expect(await store.auditLog.chainPending(T1, KEY, 10)).toBe(1);
      const chained = await store.auditLog.chained(T1, 0, 10);
      expect(chained.map((e) => e.chainSeq)).toEqual([1, 2, 3, 4]);
      expect(chained.at(-1)!.entityId).toBe('t-1');
      expect(await store.auditLog.chainHead(T1)).toEqual({ chainSeq: 4, hash: chained[3]!.hash });
      expect(verifyAuditChain(KEY, CHAIN_START, chained)).toMatchObject({ ok: true, checked: 4 });
    } finally {
      await store.close();
    }
  });

  it('stores nothing of a write refused for a taken id, chain head included', async () => {
    const store = openSqliteStore({ file: join(dir, `inline-${++n}.db`) });
    try {
      store.auditLog.useChainKeys(() => Promise.resolve(KEY));
      const token = aStoredToken().inTenant(T1).build();
      await store.tokens.create(token, { deduplicate: false, now: NOW, effects: created(token) });
      const head = await store.auditLog.chainHead(T1);
      expect(await store.tokens.create(token, { deduplicate: false, now: NOW, effects: created(token) })).toEqual({ status: 'duplicate_id' });
      expect(await store.auditLog.chainHead(T1)).toEqual(head);
      expect(await store.auditLog.chained(T1, 0, 10)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe('chain heads moved inside one batch (written once, at its end)', () => {
  const KEY = new Uint8Array(32).fill(7);
  const eventOf = (i: number) => audit.event(actor, { entityType: 'token', entityId: `e-${i}`, operation: 'read', message: 'Token read' }, new Date(NOW.getTime() + i));

  it('go back with a write that is undone, whether it threw or rolled its own savepoint back, and the chain verifies', async () => {
    const db = openConnection(join(dir, `batch-heads-${++n}.db`));
    try {
      migrate(db);
      const writes = new TokenWrites(db);
      const a = aStoredToken().inTenant(T1).build();
      const b = aStoredToken().inTenant(T1).build();
      const c = aStoredToken().inTenant(T1).build();
      const repeated = eventOf(1);
      // A head recorded by an earlier batch: within the next one, heads come from what that batch moved.
      applyBatch(db, writes, [{ op: 'appendEvents', events: [eventOf(0)], auditKeys: { [T1]: KEY } }]);
      const outcomes = applyBatch(db, writes, [
        { op: 'create', token: a, deduplicate: false, now: NOW.getTime(), effects: created(a) },
        // Chained, then undone by its own savepoint: b is new, a is taken.
        { op: 'createMany', now: NOW.getTime(), tokens: [{ token: b, deduplicate: false, effects: created(b) }, { token: a, deduplicate: false, effects: created(a) }] },
        { op: 'appendEvents', events: [repeated] },
        // Chained, then thrown out by the primary key of the second event.
        { op: 'appendEvents', events: [eventOf(2), repeated] },
        { op: 'create', token: c, deduplicate: false, now: NOW.getTime(), effects: created(c) },
        { op: 'appendEvents', events: [eventOf(3)] },
      ]);
      expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, false, true, true]);
      expect(outcomes[1]!.value).toEqual({ status: 'duplicate_id', index: 1 });
      const rows = db.prepare('SELECT entity_id, chain_seq, prev_hash, hash, id FROM audit_events ORDER BY chain_seq').all() as Array<{ entity_id: string; chain_seq: number; hash: string }>;
      expect(rows.map((r) => [r.entity_id, r.chain_seq])).toEqual([['e-0', 1], [a.id, 2], ['e-1', 3], [c.id, 4], ['e-3', 5]]);
      expect(db.prepare('SELECT chain_seq, hash FROM audit_heads WHERE tenant_id = ?').get(T1)).toEqual({ chain_seq: 5, hash: rows[4]!.hash });
      // The next batch starts from the head written by this one.
      applyBatch(db, writes, [{ op: 'appendEvents', events: [eventOf(4)] }]);
      const chained = await new SqliteAuditLogRepository(db, new InProcessTokenWriter(db)).chained(T1, 0, 10);
      expect(verifyAuditChain(KEY, CHAIN_START, chained)).toMatchObject({ ok: true, checked: 6 });
    } finally {
      db.close();
    }
  });

  it('are forgotten with a batch whose transaction failed', () => {
    const db = openConnection(join(dir, `batch-heads-${++n}.db`));
    try {
      migrate(db);
      const writes = new TokenWrites(db);
      applyBatch(db, writes, [{ op: 'appendEvents', events: [eventOf(1)], auditKeys: { [T1]: KEY } }]);
      // A head row that cannot be written (a trigger refuses it) fails the whole batch at its end.
      db.exec(`CREATE TRIGGER refuse_heads BEFORE UPDATE ON audit_heads BEGIN SELECT RAISE(ABORT, 'no'); END`);
      expect(() => applyBatch(db, writes, [{ op: 'appendEvents', events: [eventOf(2)] }])).toThrow('no');
      db.exec('DROP TRIGGER refuse_heads');
      applyBatch(db, writes, [{ op: 'appendEvents', events: [eventOf(3)] }]);
      const rows = db.prepare('SELECT entity_id, chain_seq FROM audit_events ORDER BY chain_seq').all();
      expect(rows).toEqual([{ entity_id: 'e-1', chain_seq: 1 }, { entity_id: 'e-3', chain_seq: 2 }]);
    } finally {
      db.close();
    }
  });
});

describe('deliveries leased by a process that died', () => {
  it('are due again as soon as the file is claimed by the next `svc serve`, not after their lease', async () => {
    const file = join(dir, `leases-${++n}.db`);
    const first = openSqliteStore({ file, exclusive: true });
    const w = hook();
    await first.webhooks.create(w, 50);
    const token = aStoredToken().inTenant(T1).build();
    await first.tokens.create(token, { deduplicate: false, now: NOW, effects: created(token) });
    expect(await first.webhookDeliveries.leaseDue(NOW, new Date(NOW.getTime() + 60_000), 10)).toHaveLength(1);
    await first.close();

    // Opened without the claim (another command beside a running server), leases stand.
    const beside = openSqliteStore({ file });
    expect(await beside.webhookDeliveries.leaseDue(NOW, new Date(NOW.getTime() + 60_000), 10)).toEqual([]);
    await beside.close();

    const next = openSqliteStore({ file, exclusive: true });
    try {
      expect(await next.webhookDeliveries.leaseDue(NOW, new Date(NOW.getTime() + 60_000), 10)).toHaveLength(1);
    } finally {
      await next.close();
    }
  });
});
