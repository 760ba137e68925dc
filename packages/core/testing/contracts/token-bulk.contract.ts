import type { Store } from '../../src/shared/store';
import type { StoredToken } from '../../src/tokens/token';
import { aStoredToken } from '../builders';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const NOW = new Date('2026-01-01T12:00:00.000Z');
const LATER = new Date('2026-01-02T12:00:00.000Z');

const plain = (token: StoredToken) => ({ token, deduplicate: false });
const deduplicated = (token: StoredToken) => ({ token, deduplicate: true });

/** POST /tokenize stores many tokens in one atomic step; POST /detokenize reads many in one round trip. */
export function describeTokenBulkContract(store: () => Store): void {
  const count = async (tenantId: string, query = { kind: 'all' as const }): Promise<number> =>
    (await store().tokens.search(tenantId, query, { page: 1, size: 1 }, NOW)).total;

  describe('createMany', () => {
    it('stores every token, each readable with its index entries, and answers one outcome per token in order', async () => {
      const tokens = Array.from({ length: 25 }, (_, i) => aStoredToken().inTenant(T1).with({ indexHashes: [`bulk-${i}`] }).build());
      const outcome = await store().tokens.createMany(tokens.map(plain), NOW);
      expect(outcome).toEqual({ status: 'created', outcomes: tokens.map(() => ({ status: 'created' })) });
      for (const [i, token] of tokens.entries()) {
        expect(await store().tokens.findById(T1, token.id, NOW)).toMatchObject({ id: token.id, version: 0 });
        expect((await store().tokens.search(T1, { kind: 'data', value: `bulk-${i}` }, { page: 1, size: 5 }, NOW)).total).toBe(1);
      }
    });

    it('stores nothing when one token has the id of a live token, and names that token', async () => {
      const existing = aStoredToken().inTenant(T1).build();
      await store().tokens.create(existing, { deduplicate: false, now: NOW });
      const batch = [aStoredToken().inTenant(T1).build(), aStoredToken().inTenant(T1).build(), { ...aStoredToken().inTenant(T1).build(), id: existing.id }];
      expect(await store().tokens.createMany(batch.map(plain), NOW)).toEqual({ status: 'duplicate_id', index: 2 });
      expect(await count(T1)).toBe(1);
      for (const token of batch.slice(0, 2)) expect(await store().tokens.findById(T1, token.id, NOW)).toBeUndefined();
    });

    it('treats an id repeated within the call as a duplicate, and stores nothing', async () => {
      const first = aStoredToken().inTenant(T1).build();
      const again = { ...aStoredToken().inTenant(T1).build(), id: first.id };
      expect(await store().tokens.createMany([plain(first), plain(again)], NOW)).toEqual({ status: 'duplicate_id', index: 1 });
      expect(await count(T1)).toBe(0);
    });

    it('deduplicates to a stored token, and a later token of the call to an earlier one of the same fingerprint', async () => {
      const stored = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-old' }).build();
      await store().tokens.create(stored, { deduplicate: false, now: NOW });
      const toOld = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-old' }).build();
      const fresh = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-new' }).build();
      const toFresh = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-new' }).build();
      const outcome = await store().tokens.createMany([deduplicated(toOld), deduplicated(fresh), deduplicated(toFresh)], NOW);
      expect(outcome.status).toBe('created');
      if (outcome.status !== 'created') return;
      expect(outcome.outcomes.map((o) => o.status)).toEqual(['existing', 'created', 'existing']);
      expect(outcome.outcomes[0]).toMatchObject({ token: { id: stored.id } });
      expect(outcome.outcomes[2]).toMatchObject({ token: { id: fresh.id } });
      expect(await count(T1)).toBe(2);
    });

    it('reuses the id of an expired token the sweeper has not removed yet', async () => {
      const expired = aStoredToken().inTenant(T1).with({ expiresAt: NOW }).build();
      await store().tokens.create(expired, { deduplicate: false, now: new Date(NOW.getTime() - 1000) });
      const replacement = { ...aStoredToken().inTenant(T1).build(), id: expired.id };
      expect((await store().tokens.createMany([plain(replacement)], LATER)).status).toBe('created');
      expect(await store().tokens.findById(T1, expired.id, LATER)).toMatchObject({ fingerprint: replacement.fingerprint });
    });

    it('is all or nothing under concurrency: of calls racing for one id, exactly one stores its whole batch', async () => {
      const shared = 'shared-id';
      const calls = Array.from({ length: 8 }, () => [
        aStoredToken().inTenant(T1).build(),
        { ...aStoredToken().inTenant(T1).build(), id: shared },
        aStoredToken().inTenant(T1).build(),
      ]);
      const outcomes = await Promise.all(calls.map((batch) => store().tokens.createMany(batch.map(plain), NOW)));
      expect(outcomes.filter((o) => o.status === 'created')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'duplicate_id').every((o) => o.status === 'duplicate_id' && o.index === 1)).toBe(true);
      expect(await count(T1)).toBe(3);
      const winner = calls[outcomes.findIndex((o) => o.status === 'created')]!;
      for (const token of winner) expect(await store().tokens.findById(T1, token.id, NOW)).toBeDefined();
    });

    it('keeps one token per fingerprint when deduplicating calls race', async () => {
      const calls = Array.from({ length: 8 }, () => [deduplicated(aStoredToken().inTenant(T1).with({ fingerprint: 'fp-race' }).build())]);
      const outcomes = await Promise.all(calls.map((batch) => store().tokens.createMany(batch, NOW)));
      const statuses = outcomes.flatMap((o) => (o.status === 'created' ? o.outcomes.map((x) => x.status) : ['duplicate']));
      expect(statuses.filter((s) => s === 'created')).toHaveLength(1);
      expect(statuses.filter((s) => s === 'existing')).toHaveLength(7);
      expect(await count(T1)).toBe(1);
    });

    it('leaves no trace of a call that stored nothing, also when calls are sent turn after turn and overlap', async () => {
      // Each call deduplicates one new fingerprint, then races for one id; the losers' fingerprints must not be found.
      const calls = Array.from({ length: 6 }, (_, i) => [
        deduplicated(aStoredToken().inTenant(T1).with({ fingerprint: `fp-lost-${i}` }).build()),
        deduplicated(aStoredToken().inTenant(T1).with({ fingerprint: 'fp-shared' }).build()),
        plain({ ...aStoredToken().inTenant(T1).build(), id: 'contested-id' }),
      ]);
      const pending: Array<ReturnType<Store['tokens']['createMany']>> = [];
      for (const batch of calls) {
        pending.push(store().tokens.createMany(batch, NOW));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const outcomes = await Promise.all(pending);
      const winner = outcomes.findIndex((o) => o.status === 'created');
      expect(outcomes.map((o) => o.status).filter((s) => s === 'created')).toHaveLength(1);
      expect(await count(T1)).toBe(3);
      const again = calls.map((_, i) => deduplicated(aStoredToken().inTenant(T1).with({ fingerprint: `fp-lost-${i}` }).build()));
      const retry = await store().tokens.createMany(again, NOW);
      expect(retry.status === 'created' && retry.outcomes.map((o) => o.status)).toEqual(calls.map((_, i) => (i === winner ? 'existing' : 'created')));
    });

    it('answers an empty call with no outcomes', async () => {
      expect(await store().tokens.createMany([], NOW)).toEqual({ status: 'created', outcomes: [] });
    });
  });

  describe('findMany', () => {
    it("answers the live tokens among the ids, of the tenant asked only; unknown, expired and another tenant's are absent", async () => {
      const mine = [aStoredToken().inTenant(T1).build(), aStoredToken().inTenant(T1).build()];
      const expired = aStoredToken().inTenant(T1).with({ expiresAt: new Date(NOW.getTime() + 1000) }).build();
      const theirs = aStoredToken().inTenant(T2).build();
      await store().tokens.createMany([...mine, expired, theirs].map(plain), NOW);
      const found = await store().tokens.findMany(T1, [mine[0]!.id, mine[1]!.id, expired.id, theirs.id, 'no-such-token'], LATER);
      expect([...found.keys()].sort()).toEqual([mine[0]!.id, mine[1]!.id].sort());
      expect(found.get(mine[0]!.id)).toMatchObject({ tenantId: T1, fingerprint: mine[0]!.fingerprint });
      expect((await store().tokens.findMany(T1, [expired.id], NOW)).has(expired.id)).toBe(true);
    });

    it('takes ids with any characters, repeated ids, and none', async () => {
      const odd = { ...aStoredToken().inTenant(T1).build(), id: `a "quoted", 'odd' id ✓ with spaces` };
      await store().tokens.create(odd, { deduplicate: false, now: NOW });
      const found = await store().tokens.findMany(T1, [odd.id, odd.id, `a "quoted"`], NOW);
      expect([...found.keys()]).toEqual([odd.id]);
      expect((await store().tokens.findMany(T1, [], NOW)).size).toBe(0);
    });

    it('reads a hundred tokens in one call', async () => {
      const tokens = Array.from({ length: 100 }, () => aStoredToken().inTenant(T1).build());
      await store().tokens.createMany(tokens.map(plain), NOW);
      const found = await store().tokens.findMany(T1, tokens.map((t) => t.id), NOW);
      expect(found.size).toBe(100);
    });
  });
}
