import { CHAIN_START, chainAfter, verifyAuditChain } from '../../src/audit/audit-chain';
import type { AuditEvent } from '../../src/audit/audit-event';
import type { Store } from '../../src/shared/store';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const KEY = new Uint8Array(32).fill(7);
const BASE = Date.parse('2026-01-01T00:00:00.000Z');

let seq = 0;
/** Events whose ids sort by creation, as the time-ordered generator's do; `at` is milliseconds after BASE. */
export function anAuditEvent(patch: Partial<AuditEvent> & { at?: number } = {}): AuditEvent {
  seq++;
  const { at, ...rest } = patch;
  return {
    id: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    tenantId: T1,
    actorId: 'app-1',
    actorType: 'application',
    entityType: 'token',
    entityId: `tok-${seq}`,
    operation: 'read',
    outcome: 'success',
    message: 'Token read',
    traceId: `trace-${seq}`,
    createdAt: new Date(BASE + (at ?? seq)),
    ...rest,
  };
}

/** Events as compared: what was stored, whether the store keeps absent optional fields as undefined or not at all. */
const plain = (events: readonly AuditEvent[]) =>
  events.map((e) => JSON.parse(JSON.stringify({ ...e, createdAt: e.createdAt.toISOString() })) as unknown);

/** The audit log: appends, the filtered newest-first listing, chaining by compare-and-set, and pruning with anchors. */
export function describeAuditLogContract(open: () => Promise<Store>): void {
  describe('audit log contract', () => {
    const store = useStore(open);
    const log = () => store().auditLog;

    it('stores events whole and lists a tenant\'s newest first, with the total', async () => {
      const events = [anAuditEvent({ at: 1 }), anAuditEvent({ at: 3, traceId: undefined, entityId: undefined }), anAuditEvent({ at: 2 })];
      await log().append(events);
      await log().append([anAuditEvent({ tenantId: T2 })]);
      const page = await log().list(T1, {}, { page: 1, size: 10 });
      expect(page.total).toBe(3);
      expect(plain(page.items)).toEqual(plain([events[1]!, events[2]!, events[0]!]));
      expect(page.items[0]!.traceId).toBeUndefined();
      expect(page.items[0]!.entityId).toBeUndefined();
      expect(page.items[0]!.createdAt).toBeInstanceOf(Date);
    });

    it('orders events of one millisecond by id, descending, and pages without overlap', async () => {
      const events = Array.from({ length: 7 }, () => anAuditEvent({ at: 50 }));
      await log().append([...events].reverse());
      const first = await log().list(T1, {}, { page: 1, size: 3 });
      const third = await log().list(T1, {}, { page: 3, size: 3 });
      expect(first.items.map((e) => e.id)).toEqual(events.slice(4).reverse().map((e) => e.id));
      expect(third.items.map((e) => e.id)).toEqual([events[0]!.id]);
      expect(third.total).toBe(7);
    });

    it('filters by entity type, entity id and a half-open date range', async () => {
      const a = anAuditEvent({ at: 10, entityType: 'application', entityId: 'app-x' });
      const b = anAuditEvent({ at: 20, entityType: 'token', entityId: 'app-x' });
      const c = anAuditEvent({ at: 30, entityType: 'application', entityId: 'app-y' });
      await log().append([a, b, c]);
      const ids = async (filter: Parameters<Store['auditLog']['list']>[1]) =>
        (await log().list(T1, filter, { page: 1, size: 10 })).items.map((e) => e.id);
      expect(await ids({ entityType: 'application' })).toEqual([c.id, a.id]);
      expect(await ids({ entityId: 'app-x' })).toEqual([b.id, a.id]);
      expect(await ids({ entityType: 'application', entityId: 'app-x' })).toEqual([a.id]);
      expect(await ids({ startDate: new Date(BASE + 20) })).toEqual([c.id, b.id]);
      expect(await ids({ endDate: new Date(BASE + 20) })).toEqual([a.id]);
      expect(await ids({ startDate: new Date(BASE + 10), endDate: new Date(BASE + 30) })).toEqual([b.id, a.id]);
      expect(await ids({ entityType: 'webhook' })).toEqual([]);
    });

    it('hands out unchained events oldest first, per tenant, and names the tenants that have them', async () => {
      const later = anAuditEvent({ at: 9 });
      const earlier = anAuditEvent({ at: 4 });
      await log().append([later, earlier, anAuditEvent({ tenantId: T2 })]);
      expect((await log().unchainedTenants(10)).sort()).toEqual([T1, T2].sort());
      expect((await log().unchained(T1, 10)).map((e) => e.id)).toEqual([earlier.id, later.id]);
      expect((await log().unchained(T1, 1)).map((e) => e.id)).toEqual([earlier.id]);
      expect(await log().countUnchainedBefore(T1, new Date(BASE + 5))).toBe(1);
      expect(await log().chainHead(T1)).toEqual(CHAIN_START);
    });

    it('chains by compare-and-set on the head: of two chainers from one head, one wins', async () => {
      const events = [anAuditEvent(), anAuditEvent(), anAuditEvent()];
      await log().append(events);
      const chained = chainAfter(KEY, CHAIN_START, events);
      const results = await Promise.all([log().chain(T1, CHAIN_START, chained), log().chain(T1, CHAIN_START, chained)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await log().unchained(T1, 10)).toEqual([]);
      expect(await log().unchainedTenants(10)).toEqual([]);
      const head = await log().chainHead(T1);
      expect(head).toEqual({ chainSeq: 3, hash: chained[2]!.hash });
      const stored = await log().chained(T1, 0, 10);
      expect(stored.map((e) => [e.id, e.chainSeq, e.prevHash, e.hash])).toEqual(chained.map((e) => [e.id, e.chainSeq, e.prevHash, e.hash]));
      expect(verifyAuditChain(KEY, CHAIN_START, stored)).toMatchObject({ ok: true, checked: 3 });
      // A stale head changes nothing.
      const more = anAuditEvent();
      await log().append([more]);
      expect(await log().chain(T1, CHAIN_START, chainAfter(KEY, CHAIN_START, [more]))).toBe(false);
      expect(await log().chain(T1, head, chainAfter(KEY, head, [more]))).toBe(true);
      expect((await log().chained(T1, 3, 10)).map((e) => e.id)).toEqual([more.id]);
      expect((await log().chained(T1, 1, 2)).map((e) => e.chainSeq)).toEqual([2, 3]);
    });

    it('refuses to chain an event twice, even under a head that matches', async () => {
      const [a, b] = [anAuditEvent(), anAuditEvent()];
      await log().append([a, b]);
      const first = chainAfter(KEY, CHAIN_START, [a]);
      expect(await log().chain(T1, CHAIN_START, first)).toBe(true);
      const head = await log().chainHead(T1);
      // `a` again, after the head: it is chained already, so nothing changes, `b` included.
      expect(await log().chain(T1, head, chainAfter(KEY, head, [a, b]))).toBe(false);
      expect((await log().unchained(T1, 10)).map((e) => e.id)).toEqual([b.id]);
      expect(await log().chainHead(T1)).toEqual(head);
    });

    it('places pending events in one step: oldest first after the head, each once under concurrent chainers', async () => {
      const events = Array.from({ length: 30 }, (_, i) => anAuditEvent({ at: 100 - i }));
      await log().append(events);
      const counts = await Promise.all([log().chainPending(T1, KEY, 10), log().chainPending(T1, KEY, 10), log().chainPending(T1, KEY, 10)]);
      let total = counts.reduce((a, b) => a + b, 0);
      while (total < 30) {
        const placed = await log().chainPending(T1, KEY, 10);
        expect(placed).toBeGreaterThan(0);
        total += placed;
      }
      expect(total).toBe(30);
      expect(await log().chainPending(T1, KEY, 10)).toBe(0);
      const stored = await log().chained(T1, 0, 100);
      expect(stored.map((e) => e.chainSeq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(new Set(stored.map((e) => e.id)).size).toBe(30);
      // Oldest first: the first ten placed are the ten oldest.
      expect(stored.slice(0, 10).map((e) => e.id).sort()).toEqual([...events].slice(20).map((e) => e.id).sort());
      expect(verifyAuditChain(KEY, CHAIN_START, stored)).toMatchObject({ ok: true, checked: 30 });
      expect(await log().chainHead(T1)).toEqual({ chainSeq: 30, hash: stored[29]!.hash });
      expect(await log().unchainedTenants(10)).toEqual([]);
    });

    it('keeps chains per tenant', async () => {
      const [a, b] = [anAuditEvent(), anAuditEvent({ tenantId: T2 })];
      await log().append([a, b]);
      expect(await log().chain(T1, CHAIN_START, chainAfter(KEY, CHAIN_START, [a]))).toBe(true);
      expect(await log().chainHead(T2)).toEqual(CHAIN_START);
      expect(await log().chained(T2, 0, 10)).toEqual([]);
      expect(await log().unchainedTenants(10)).toEqual([T2]);
      expect((await log().streams()).sort()).toEqual([T1, T2].sort());
    });

    it('prunes chained events before a date in chain order, moving the anchor, so the rest still verifies', async () => {
      const events = [anAuditEvent({ at: 1 }), anAuditEvent({ at: 2 }), anAuditEvent({ at: 3 }), anAuditEvent({ at: 100 })];
      const other = anAuditEvent({ at: 1, tenantId: T2 });
      await log().append([...events, other]);
      const chained = chainAfter(KEY, CHAIN_START, events);
      await log().chain(T1, CHAIN_START, chained);
      expect(await log().prune(new Date(BASE + 50), 2)).toBe(2);
      expect(await log().anchor(T1)).toEqual({ chainSeq: 2, hash: chained[1]!.hash });
      expect(await log().prune(new Date(BASE + 50), 100)).toBe(1);
      const anchor = await log().anchor(T1);
      expect(anchor).toEqual({ chainSeq: 3, hash: chained[2]!.hash });
      expect(await log().prune(new Date(BASE + 50), 100)).toBe(0);
      const kept = await log().chained(T1, 0, 10);
      expect(kept.map((e) => e.id)).toEqual([events[3]!.id]);
      expect(verifyAuditChain(KEY, anchor, kept)).toMatchObject({ ok: true, checked: 1 });
      expect((await log().list(T1, {}, { page: 1, size: 10 })).total).toBe(1);
      // Unchained events are never pruned: the chain has not vouched for them yet.
      expect((await log().list(T2, {}, { page: 1, size: 10 })).total).toBe(1);
      // With every event pruned, the head is the anchor.
      await log().prune(new Date(BASE + 1000), 100);
      expect(await log().chainHead(T1)).toEqual({ chainSeq: 4, hash: chained[3]!.hash });
      expect(await log().streams()).toContain(T1);
    });

    it('appends concurrently without losing an event', async () => {
      const batches = Array.from({ length: 10 }, () => Array.from({ length: 20 }, () => anAuditEvent()));
      await Promise.all(batches.map((b) => log().append(b)));
      expect((await log().list(T1, {}, { page: 1, size: 1 })).total).toBe(200);
    });
  });
}
