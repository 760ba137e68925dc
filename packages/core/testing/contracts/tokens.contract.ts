import type { Store } from '../../src/shared/store';
import { aStoredToken } from '../builders';
import { describeTokenUpdateContract } from './token-updates.contract';
import { describeTokenWriteContract } from './token-writes.contract';
import { describeTokenBulkContract } from './token-bulk.contract';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const NOW = new Date('2026-01-01T12:00:00.000Z');
const opts = { deduplicate: false, now: NOW };

const bytes = (value: Uint8Array): number[] => [...value];

/** Sealed tokens: round trips, tenant scoping, ids, dedup, expiry and the cvc queue. */
export function describeTokenContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('token contract', () => {
    const store = useStore(open);

    describe('tokens', () => {
      it('round-trips every field', async () => {
        const token = aStoredToken()
          .inTenant(T1)
          .with({
            type: 'card',
            mask: { number: '{{ data.number | reveal_last: 4 }}' },
            metadata: { Customer: 'ABC', note: 'x' },
            searchIndexes: ['{{ data }}'],
            indexHashes: ['h1', 'h2'],
            deduplicateToken: true,
            modifiedBy: 'm1',
            modifiedAt: new Date('2026-01-01T01:00:00.000Z'),
            expiresAt: new Date('2027-01-01T00:00:00.000Z'),
            cvcExpiresAt: new Date('2026-01-01T01:00:00.000Z'),
            sealedData: Uint8Array.from([0, 255, 7, 42]),
          })
          .build();
        expect(await store().tokens.create(token, opts)).toEqual({ status: 'created' });
        const found = await store().tokens.findById(T1, token.id, NOW);
        expect(found).toBeDefined();
        const { sealedData, indexHashes, ...rest } = found!;
        const { sealedData: expectedData, indexHashes: expectedHashes, ...expectedRest } = token;
        expect(rest).toEqual(expectedRest);
        expect(bytes(sealedData)).toEqual(bytes(expectedData));
        expect([...indexHashes].sort()).toEqual([...expectedHashes].sort());
      });

      it('leaves optional fields undefined', async () => {
        const token = aStoredToken().inTenant(T1).build();
        await store().tokens.create(token, opts);
        const found = await store().tokens.findById(T1, token.id, NOW);
        expect(found?.mask).toBeUndefined();
        expect(found?.expiresAt).toBeUndefined();
        expect(found?.searchIndexes).toBeUndefined();
        expect(found?.deduplicateToken).toBeUndefined();
        expect(found?.indexHashes).toEqual([]);
      });

      it('scopes ids by tenant: the same id may exist in two tenants, each invisible to the other', async () => {
        const mine = aStoredToken().inTenant(T1).with({ id: 'same-id', sealedData: Uint8Array.from([1]) }).build();
        const theirs = aStoredToken().inTenant(T2).with({ id: 'same-id', sealedData: Uint8Array.from([2]) }).build();
        expect((await store().tokens.create(mine, opts)).status).toBe('created');
        expect((await store().tokens.create(theirs, opts)).status).toBe('created');
        expect(bytes((await store().tokens.findById(T1, 'same-id', NOW))!.sealedData)).toEqual([1]);
        expect(await store().tokens.delete(T2, 'same-id')).toBe(true);
        expect(await store().tokens.findById(T1, 'same-id', NOW)).toBeDefined();
        expect(await store().tokens.update({ ...theirs, metadata: { a: 'b' } }, NOW)).toEqual({ status: 'gone' });
      });

      it('refuses a duplicate id in one tenant', async () => {
        const token = aStoredToken().inTenant(T1).build();
        await store().tokens.create(token, opts);
        expect(await store().tokens.create({ ...token, fingerprint: 'other' }, opts)).toEqual({ status: 'duplicate_id' });
      });

      it('hides an expired token and lets its id be reused', async () => {
        const token = aStoredToken().inTenant(T1).with({ expiresAt: NOW }).build();
        await store().tokens.create(token, { deduplicate: false, now: new Date('2026-01-01T00:00:00.000Z') });
        expect(await store().tokens.findById(T1, token.id, new Date(NOW.getTime() - 1))).toBeDefined();
        expect(await store().tokens.findById(T1, token.id, NOW)).toBeUndefined();
        const again = { ...token, expiresAt: undefined, fingerprint: 'fresh' };
        expect((await store().tokens.create(again, opts)).status).toBe('created');
        expect((await store().tokens.findById(T1, token.id, NOW))?.fingerprint).toBe('fresh');
      });

      it('deduplicates on tenant, type and fingerprint, returning the oldest live token', async () => {
        const oldest = aStoredToken().inTenant(T1).with({ fingerprint: 'fp', createdAt: new Date('2026-01-01T00:00:00.000Z') }).build();
        const newer = aStoredToken().inTenant(T1).with({ fingerprint: 'fp', createdAt: new Date('2026-01-01T01:00:00.000Z') }).build();
        await store().tokens.create(oldest, opts);
        await store().tokens.create(newer, opts);
        const candidate = aStoredToken().inTenant(T1).with({ fingerprint: 'fp' }).build();
        const outcome = await store().tokens.create(candidate, { deduplicate: true, now: NOW });
        expect(outcome.status).toBe('existing');
        expect(outcome.status === 'existing' && outcome.token.id).toBe(oldest.id);
        expect(await store().tokens.findById(T1, candidate.id, NOW)).toBeUndefined();
        const otherType = aStoredToken().inTenant(T1).with({ fingerprint: 'fp', type: 'card_number' }).build();
        expect((await store().tokens.create(otherType, { deduplicate: true, now: NOW })).status).toBe('created');
        const otherTenant = aStoredToken().inTenant(T2).with({ fingerprint: 'fp' }).build();
        expect((await store().tokens.create(otherTenant, { deduplicate: true, now: NOW })).status).toBe('created');
      });

      it('does not deduplicate against an expired token', async () => {
        const expired = aStoredToken().inTenant(T1).with({ fingerprint: 'fp', expiresAt: NOW }).build();
        await store().tokens.create(expired, { deduplicate: false, now: new Date('2026-01-01T00:00:00.000Z') });
        const candidate = aStoredToken().inTenant(T1).with({ fingerprint: 'fp' }).build();
        expect((await store().tokens.create(candidate, { deduplicate: true, now: NOW })).status).toBe('created');
      });

      it('creates one token from concurrent deduplicated creates', async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, () => store().tokens.create(aStoredToken().inTenant(T1).with({ fingerprint: 'race' }).build(), { deduplicate: true, now: NOW })),
        );
        expect(outcomes.filter((o) => o.status === 'created')).toHaveLength(1);
        const ids = new Set(outcomes.map((o) => (o.status === 'existing' ? o.token.id : 'created')));
        expect(ids.size).toBe(2);
      });

      it('updates a token, replacing its index hashes', async () => {
        const token = aStoredToken().inTenant(T1).with({ indexHashes: ['a', 'b'] }).build();
        await store().tokens.create(token, opts);
        const updated = { ...token, indexHashes: ['c'], metadata: { k: 'v' }, modifiedAt: NOW, modifiedBy: 'x' };
        expect(await store().tokens.update(updated, NOW)).toEqual({ status: 'updated' });
        const found = await store().tokens.findById(T1, token.id, NOW);
        expect(found?.indexHashes).toEqual(['c']);
        expect(found?.metadata).toEqual({ k: 'v' });
        expect(await store().tokens.update(aStoredToken().inTenant(T1).build(), NOW)).toEqual({ status: 'gone' });
      });

      it('deletes a token once', async () => {
        const token = aStoredToken().inTenant(T1).build();
        await store().tokens.create(token, opts);
        expect(await store().tokens.delete(T1, token.id)).toBe(true);
        expect(await store().tokens.delete(T1, token.id)).toBe(false);
        expect(await store().tokens.findById(T1, token.id, NOW)).toBeUndefined();
      });

      it('sweeps expired tokens only', async () => {
        const past = new Date('2026-01-01T00:00:00.000Z');
        const expired = aStoredToken().inTenant(T1).with({ expiresAt: NOW }).build();
        const live = aStoredToken().inTenant(T2).with({ expiresAt: new Date('2026-02-01T00:00:00.000Z') }).build();
        const forever = aStoredToken().inTenant(T1).build();
        for (const t of [expired, live, forever]) await store().tokens.create(t, { deduplicate: false, now: past });
        expect(await store().tokens.deleteExpired(NOW)).toBe(1);
        expect(await store().tokens.findById(T2, live.id, NOW)).toBeDefined();
        expect(await store().tokens.findById(T1, forever.id, NOW)).toBeDefined();
      });

      it('lists tokens whose cvc is due, up to a limit', async () => {
        const due = aStoredToken().inTenant(T1).with({ cvcExpiresAt: NOW }).build();
        const due2 = aStoredToken().inTenant(T2).with({ cvcExpiresAt: new Date('2026-01-01T11:00:00.000Z') }).build();
        const later = aStoredToken().inTenant(T1).with({ cvcExpiresAt: new Date('2026-01-01T13:00:00.000Z') }).build();
        for (const t of [due, due2, later]) await store().tokens.create(t, opts);
        expect((await store().tokens.findCvcDue(NOW, 10)).map((t) => t.id).sort()).toEqual([due.id, due2.id].sort());
        expect(await store().tokens.findCvcDue(NOW, 1)).toHaveLength(1);
        await store().tokens.update({ ...due, cvcExpiresAt: undefined }, NOW);
        expect((await store().tokens.findCvcDue(NOW, 10)).map((t) => t.id)).toEqual([due2.id]);
      });
    });

    describe('cvc erasure', () => {
      it('replaces the sealed data of a due token and clears its deadline', async () => {
        const due = aStoredToken().inTenant(T1).with({ cvcExpiresAt: NOW, sealedData: Uint8Array.from([1]) }).build();
        await store().tokens.create(due, opts);
        const [read] = await store().tokens.findCvcDue(NOW, 10);
        expect(await store().tokens.eraseCvc(read!, Uint8Array.from([2]))).toBe(true);
        const after = (await store().tokens.findById(T1, due.id, NOW))!;
        expect(bytes(after.sealedData)).toEqual([2]);
        expect(after.cvcExpiresAt).toBeUndefined();
        expect(await store().tokens.findCvcDue(NOW, 10)).toEqual([]);
        expect(await store().tokens.eraseCvc(read!, Uint8Array.from([3]))).toBe(false);
      });

      it('never overwrites a token modified after it was read', async () => {
        const due = aStoredToken().inTenant(T1).with({ cvcExpiresAt: NOW, sealedData: Uint8Array.from([1]) }).build();
        await store().tokens.create(due, opts);
        const [read] = await store().tokens.findCvcDue(NOW, 10);
        await store().tokens.update({ ...due, sealedData: Uint8Array.from([7]), modifiedAt: NOW, modifiedBy: 'someone' }, NOW);
        expect(await store().tokens.eraseCvc(read!, Uint8Array.from([2]))).toBe(false);
        expect(bytes((await store().tokens.findById(T1, due.id, NOW))!.sealedData)).toEqual([7]);
      });
    });

    describeTokenWriteContract(store);
    describeTokenBulkContract(store);
    describeTokenUpdateContract(store);

    describe('data keys', () => {
      it('keeps the first key stored for a tenant', async () => {
        const first = { tenantId: T1, wrapped: Uint8Array.from([1, 2]), createdAt: NOW };
        const second = { tenantId: T1, wrapped: Uint8Array.from([3, 4]), createdAt: NOW };
        expect(bytes((await store().dataKeys.createIfAbsent(first)).wrapped)).toEqual([1, 2]);
        expect(bytes((await store().dataKeys.createIfAbsent(second)).wrapped)).toEqual([1, 2]);
        expect(bytes((await store().dataKeys.find(T1))!.wrapped)).toEqual([1, 2]);
        expect(await store().dataKeys.find(T2)).toBeUndefined();
      });

      it('replaces a wrapping and lists every key', async () => {
        await store().dataKeys.createIfAbsent({ tenantId: T1, wrapped: Uint8Array.from([1]), createdAt: NOW });
        await store().dataKeys.createIfAbsent({ tenantId: T2, wrapped: Uint8Array.from([2]), createdAt: NOW });
        await store().dataKeys.replace({ tenantId: T1, wrapped: Uint8Array.from([9]), createdAt: NOW });
        expect(bytes((await store().dataKeys.find(T1))!.wrapped)).toEqual([9]);
        expect((await store().dataKeys.all()).map((k) => k.tenantId).sort()).toEqual([T1, T2]);
      });
    });
  });
}
