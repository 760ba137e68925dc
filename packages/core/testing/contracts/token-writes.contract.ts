import type { Store } from '../../src/shared/store';
import type { StoredToken } from '../../src/tokens/token';
import { aStoredToken } from '../builders';

const T1 = '11111111-0000-4000-8000-000000000001';
const NOW = new Date('2026-01-01T12:00:00.000Z');
const opts = { deduplicate: false, now: NOW };
const WRITERS = 10;

const bytes = (value: Uint8Array): number[] => [...value];
const count = <T>(items: readonly T[], wanted: T): number => items.filter((item) => item === wanted).length;

/** Token writes are compare-and-set on the version read, so racing writers are refused rather than lost. */
export function describeTokenWriteContract(store: () => Store): void {
  const stored = async (token: StoredToken): Promise<StoredToken> => {
    expect(await store().tokens.create(token, opts)).toEqual({ status: 'created' });
    return (await store().tokens.findById(token.tenantId, token.id, NOW))!;
  };
  const find = (id: string): Promise<StoredToken | undefined> => store().tokens.findById(T1, id, NOW);

  describe('token versions', () => {
    it('creates a token at version 0 and moves the version on by one with every update', async () => {
      const first = await stored(aStoredToken().inTenant(T1).build());
      expect(first.version).toBe(0);
      expect(await store().tokens.update({ ...first, metadata: { a: '1' } }, NOW)).toEqual({ status: 'updated' });
      const second = (await find(first.id))!;
      expect(second).toMatchObject({ version: 1, metadata: { a: '1' } });
      expect(await store().tokens.update({ ...second, metadata: { a: '1', b: '2' } }, NOW)).toEqual({ status: 'updated' });
      expect(await find(first.id)).toMatchObject({ version: 2, metadata: { a: '1', b: '2' } });
    });

    it('refuses an update made from a stale read as a conflict and changes nothing', async () => {
      const read = await stored(aStoredToken().inTenant(T1).with({ indexHashes: ['h0'] }).build());
      expect(await store().tokens.update({ ...read, metadata: { a: '1' } }, NOW)).toEqual({ status: 'updated' });
      expect(await store().tokens.update({ ...read, metadata: { b: '2' }, indexHashes: ['h-stale'] }, NOW)).toEqual({ status: 'conflict' });
      expect(await find(read.id)).toMatchObject({ version: 1, metadata: { a: '1' }, indexHashes: ['h0'] });
      expect((await store().tokens.search(T1, { kind: 'data', value: 'h-stale' }, { page: 1, size: 10 }, NOW)).total).toBe(0);
    });

    it('lets exactly one of concurrent updates from the same read through, and keeps what that one wrote', async () => {
      const read = await stored(aStoredToken().inTenant(T1).build());
      const writes = Array.from({ length: WRITERS }, (_, i) => ({
        ...read,
        metadata: { writer: String(i) },
        indexHashes: [`h-writer-${i}`],
        sealedData: Uint8Array.from([i]),
      }));
      const outcomes = (await Promise.all(writes.map((write) => store().tokens.update(write, NOW)))).map((o) => o.status);
      expect(count(outcomes, 'updated')).toBe(1);
      expect(count(outcomes, 'conflict')).toBe(WRITERS - 1);
      const winner = outcomes.indexOf('updated');
      const after = (await find(read.id))!;
      expect(after).toMatchObject({ version: 1, metadata: { writer: String(winner) }, indexHashes: [`h-writer-${winner}`] });
      expect(bytes(after.sealedData)).toEqual([winner]);
      for (let i = 0; i < WRITERS; i++) {
        const found = await store().tokens.search(T1, { kind: 'data', value: `h-writer-${i}` }, { page: 1, size: 10 }, NOW);
        expect(found.total).toBe(i === winner ? 1 : 0);
      }
    });

    it('reports an update of a deleted token as gone and never brings it back, even racing the delete', async () => {
      const read = await stored(aStoredToken().inTenant(T1).build());
      expect(await store().tokens.delete(T1, read.id)).toBe(true);
      expect(await store().tokens.update({ ...read, metadata: { a: '1' } }, NOW)).toEqual({ status: 'gone' });
      expect(await find(read.id)).toBeUndefined();

      const raced = await stored(aStoredToken().inTenant(T1).build());
      const [deleted, updated] = await Promise.all([
        store().tokens.delete(T1, raced.id),
        store().tokens.update({ ...raced, metadata: { a: '1' } }, NOW),
      ]);
      expect(deleted).toBe(true);
      expect(['updated', 'gone']).toContain(updated.status);
      expect(await find(raced.id)).toBeUndefined();
    });

    it('reports an update of a token expired at the given time as gone', async () => {
      const token = aStoredToken().inTenant(T1).with({ expiresAt: NOW }).build();
      await store().tokens.create(token, { deduplicate: false, now: new Date(NOW.getTime() - 1) });
      const read = (await store().tokens.findById(T1, token.id, new Date(NOW.getTime() - 1)))!;
      expect(await store().tokens.update({ ...read, expiresAt: undefined }, NOW)).toEqual({ status: 'gone' });
      expect(await find(token.id)).toBeUndefined();
    });

    it('treats a token deleted and created again under its id as another token: an update read from the old one conflicts', async () => {
      const old = await stored(aStoredToken().inTenant(T1).with({ id: 'reused-id', sealedData: Uint8Array.from([1]) }).build());
      expect(await store().tokens.delete(T1, old.id)).toBe(true);
      const reborn = aStoredToken()
        .inTenant(T1)
        .with({ id: 'reused-id', sealedData: Uint8Array.from([9]) })
        .createdAt('2026-01-01T06:00:00.000Z')
        .build();
      await stored(reborn);
      expect(await store().tokens.update({ ...old, metadata: { stale: 'yes' } }, NOW)).toEqual({ status: 'conflict' });
      const after = (await find('reused-id'))!;
      expect(bytes(after.sealedData)).toEqual([9]);
      expect(after.metadata).toEqual({});
    });

    it('lets exactly one of concurrent deletes report the deletion', async () => {
      const token = await stored(aStoredToken().inTenant(T1).build());
      const outcomes = await Promise.all(Array.from({ length: WRITERS }, () => store().tokens.delete(T1, token.id)));
      expect(count(outcomes, true)).toBe(1);
      expect(await find(token.id)).toBeUndefined();
    });

    it('creates one token from concurrent creates of one id; the others are duplicate ids', async () => {
      const creates = Array.from({ length: WRITERS }, (_, i) =>
        aStoredToken().inTenant(T1).with({ id: 'contested-id', fingerprint: `fp-${i}`, sealedData: Uint8Array.from([i]) }).build(),
      );
      const outcomes = (await Promise.all(creates.map((token) => store().tokens.create(token, opts)))).map((o) => o.status);
      expect(count(outcomes, 'created')).toBe(1);
      expect(count(outcomes, 'duplicate_id')).toBe(WRITERS - 1);
      const winner = outcomes.indexOf('created');
      const after = (await find('contested-id'))!;
      expect(after.fingerprint).toBe(`fp-${winner}`);
      expect(bytes(after.sealedData)).toEqual([winner]);
    });
  });

  describe('cvc erasure and updates', () => {
    const due = (): StoredToken => aStoredToken().inTenant(T1).with({ cvcExpiresAt: NOW, modifiedAt: NOW, sealedData: Uint8Array.from([1]) }).build();

    it('never overwrites an update made in the same millisecond as the sweeper read', async () => {
      const token = await stored(due());
      const [read] = await store().tokens.findCvcDue(NOW, 10);
      expect(await store().tokens.update({ ...token, sealedData: Uint8Array.from([7]), modifiedAt: NOW }, NOW)).toEqual({ status: 'updated' });
      expect(await store().tokens.eraseCvc(read!, Uint8Array.from([2]))).toBe(false);
      expect(bytes((await find(token.id))!.sealedData)).toEqual([7]);
    });

    it('moves the version on, so an update read before the erasure conflicts and cannot bring the cvc back', async () => {
      const token = await stored(due());
      const [read] = await store().tokens.findCvcDue(NOW, 10);
      expect(await store().tokens.eraseCvc(read!, Uint8Array.from([2]))).toBe(true);
      expect(await store().tokens.update({ ...token, metadata: { late: 'yes' } }, NOW)).toEqual({ status: 'conflict' });
      const after = (await find(token.id))!;
      expect(after.version).toBe(1);
      expect(after.cvcExpiresAt).toBeUndefined();
      expect(bytes(after.sealedData)).toEqual([2]);
    });
  });
}
