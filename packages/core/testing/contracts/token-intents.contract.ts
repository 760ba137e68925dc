import type { Store } from '../../src/shared/store';
import type { StoredTokenIntent } from '../../src/token-intents/token-intent';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const at = (iso: string): Date => new Date(iso);
const CREATED = at('2026-01-01T00:00:00.000Z');
const EXPIRES = at('2026-01-02T00:00:00.000Z');
const BEFORE = at('2026-01-01T12:00:00.000Z');

function intent(id: string, patch: Partial<StoredTokenIntent> = {}): StoredTokenIntent {
  return {
    id,
    tenantId: T1,
    type: 'card',
    sealedData: Uint8Array.from([1, 2, 3, 250, 0, 7]),
    fingerprint: `fp-${id}`,
    createdBy: 'app-1',
    createdAt: CREATED,
    expiresAt: EXPIRES,
    ...patch,
  };
}

/** Stores give Buffers or Uint8Arrays back: compare the bytes. */
const plain = (i: StoredTokenIntent | undefined) => i && { ...i, sealedData: [...i.sealedData] };

/** Token intents: sealed bytes kept as given, tenant scoping, expiry, and the atomic take that uses one up. */
export function describeTokenIntentContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('token intent contract', () => {
    const store = useStore(open);
    const intents = () => store().tokenIntents;

    describe('token intents', () => {
      it('keeps an intent as given, sealed bytes included', async () => {
        await intents().create(intent('i1'));
        await intents().create(intent('i2', { type: 'bank', createdBy: 'app-2' }));
        expect(plain(await intents().findById(T1, 'i1', BEFORE))).toEqual(plain(intent('i1')));
        expect(plain(await intents().findById(T1, 'i2', BEFORE))).toEqual(plain(intent('i2', { type: 'bank', createdBy: 'app-2' })));
        expect(await intents().findById(T1, 'i3', BEFORE)).toBeUndefined();
      });

      it("hides another tenant's intent from reads and takes", async () => {
        await intents().create(intent('i1'));
        expect(await intents().findById(T2, 'i1', BEFORE)).toBeUndefined();
        expect(await intents().take(T2, 'i1', BEFORE)).toBeUndefined();
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeDefined();
      });

      it('treats an intent as gone from its expiry on, and the sweep deletes it', async () => {
        await intents().create(intent('i1'));
        await intents().create(intent('i2', { expiresAt: at('2026-01-03T00:00:00.000Z') }));
        expect(await intents().findById(T1, 'i1', at('2026-01-01T23:59:59.999Z'))).toBeDefined();
        expect(await intents().findById(T1, 'i1', EXPIRES)).toBeUndefined();
        expect(await intents().take(T1, 'i1', EXPIRES)).toBeUndefined();
        expect(await intents().deleteExpired(EXPIRES)).toBe(1);
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeUndefined();
        expect(await intents().findById(T1, 'i2', EXPIRES)).toBeDefined();
        expect(await intents().deleteExpired(EXPIRES)).toBe(0);
      });

      it('takes an intent once: it is returned, then gone', async () => {
        await intents().create(intent('i1'));
        expect(plain(await intents().take(T1, 'i1', BEFORE))).toEqual(plain(intent('i1')));
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeUndefined();
        expect(await intents().take(T1, 'i1', BEFORE)).toBeUndefined();
      });

      it('gives an intent to exactly one of many concurrent takes', async () => {
        await intents().create(intent('i1'));
        await intents().create(intent('i2'));
        const takes = await Promise.all(Array.from({ length: 12 }, () => intents().take(T1, 'i1', BEFORE)));
        expect(takes.filter((t) => t !== undefined)).toHaveLength(1);
        expect(await intents().findById(T1, 'i2', BEFORE)).toBeDefined();
      });

      it('puts back a taken intent as it was, to be taken again', async () => {
        await intents().create(intent('i1'));
        const taken = (await intents().take(T1, 'i1', BEFORE))!;
        await intents().create(taken);
        expect(plain(await intents().findById(T1, 'i1', BEFORE))).toEqual(plain(intent('i1')));
        expect(await intents().take(T1, 'i1', BEFORE)).toBeDefined();
      });
    });
  });
}
