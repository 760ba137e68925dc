import type { Store } from '../../src/shared/store';
import type { StoredTokenIntent } from '../../src/token-intents/token-intent';
import { useStore } from './use-store';
import { aStoredToken } from '../builders';
import { anAuditEvent } from './audit-log.contract';

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

/**
 * Token intents: sealed bytes kept as given, tenant scoping, expiry, the atomic take that deletes one, and token creates
 * that use one up in their own atomic step.
 */
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

    describe('tokens made of intents', () => {
      const tokens = () => store().tokens;
      const aToken = () => aStoredToken().inTenant(T1).build();
      const count = async (): Promise<number> => (await tokens().search(T1, { kind: 'all' }, { page: 1, size: 1 }, BEFORE)).total;

      it('uses the intent up with the token: a second create naming it stores nothing', async () => {
        await intents().create(intent('i1'));
        const first = aToken();
        expect(await tokens().create(first, { deduplicate: false, now: BEFORE, intentId: 'i1' })).toEqual({ status: 'created' });
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeUndefined();
        const second = aToken();
        expect(await tokens().create(second, { deduplicate: false, now: BEFORE, intentId: 'i1' })).toEqual({ status: 'intent_gone' });
        expect(await tokens().findById(T1, second.id, BEFORE)).toBeUndefined();
        expect(await tokens().findById(T1, first.id, BEFORE)).toBeDefined();
      });

      it("stores nothing for an intent that is expired, unknown or another tenant's", async () => {
        await intents().create(intent('i1'));
        await intents().create(intent('i2', { tenantId: T2 }));
        const token = aToken();
        expect(await tokens().create(token, { deduplicate: false, now: EXPIRES, intentId: 'i1' })).toEqual({ status: 'intent_gone' });
        expect(await tokens().create(token, { deduplicate: false, now: BEFORE, intentId: 'nope' })).toEqual({ status: 'intent_gone' });
        expect(await tokens().create(token, { deduplicate: false, now: BEFORE, intentId: 'i2' })).toEqual({ status: 'intent_gone' });
        expect(await count()).toBe(0);
        expect(await intents().findById(T2, 'i2', BEFORE)).toBeDefined();
      });

      it('keeps the intent when the token has the id of a live token', async () => {
        const existing = aToken();
        await tokens().create(existing, { deduplicate: false, now: BEFORE });
        await intents().create(intent('i1'));
        const clash = { ...aToken(), id: existing.id };
        expect(await tokens().create(clash, { deduplicate: false, now: BEFORE, intentId: 'i1' })).toEqual({ status: 'duplicate_id' });
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeDefined();
      });

      it('writes nothing on a deduplication and leaves the intent, for the caller to take with its answer', async () => {
        const existing = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-same' }).build();
        await tokens().create(existing, { deduplicate: true, now: BEFORE });
        await intents().create(intent('i1'));
        const again = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-same' }).build();
        const outcome = await tokens().create(again, { deduplicate: true, now: BEFORE, intentId: 'i1' });
        expect(outcome).toMatchObject({ status: 'existing', token: { id: existing.id } });
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeDefined();
      });

      it('in a bulk create, uses up the intent of a deduplicated token too, with its effectsIfExisting', async () => {
        const existing = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-same' }).build();
        await tokens().create(existing, { deduplicate: true, now: BEFORE });
        await intents().create(intent('i1'));
        const again = aStoredToken().inTenant(T1).with({ fingerprint: 'fp-same' }).build();
        const convert = { events: [anAuditEvent({ tenantId: T1, entityType: 'token_intent', entityId: 'i1', operation: 'convert', message: 'converted' })], messages: [] };
        const outcome = await tokens().createMany([{ token: again, deduplicate: true, intentId: 'i1', effectsIfExisting: convert }], BEFORE);
        expect(outcome).toMatchObject({ status: 'created', outcomes: [{ status: 'existing', token: { id: existing.id } }] });
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeUndefined();
        const logged = await store().auditLog.list(T1, { entityId: 'i1' }, { page: 1, size: 10 });
        expect(logged.items.map((e) => e.operation)).toEqual(['convert']);
      });

      it('makes exactly one token of an intent named by many concurrent creates', async () => {
        await intents().create(intent('i1'));
        const outcomes = await Promise.all(
          Array.from({ length: 12 }, () => tokens().create(aToken(), { deduplicate: false, now: BEFORE, intentId: 'i1' })),
        );
        expect(outcomes.filter((o) => o.status === 'created')).toHaveLength(1);
        expect(outcomes.filter((o) => o.status === 'intent_gone')).toHaveLength(11);
        expect(await count()).toBe(1);
      });

      it('in a bulk create, uses every intent up with its token, or stores nothing and names the first gone', async () => {
        await intents().create(intent('i1'));
        await intents().create(intent('i2'));
        const twice = [aToken(), aToken(), aToken()];
        const named = (intentId?: string) => (token: ReturnType<typeof aToken>) => ({ token, deduplicate: false, intentId });
        const outcome = await tokens().createMany([named('i1')(twice[0]!), named()(twice[1]!), named('i1')(twice[2]!)], BEFORE);
        expect(outcome).toEqual({ status: 'intent_gone', index: 2 });
        expect(await count()).toBe(0);
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeDefined();

        const existing = aToken();
        await tokens().create(existing, { deduplicate: false, now: BEFORE });
        const clash = await tokens().createMany([named('i1')(aToken()), named('i2')({ ...aToken(), id: existing.id })], BEFORE);
        expect(clash).toEqual({ status: 'duplicate_id', index: 1 });
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeDefined();
        expect(await intents().findById(T1, 'i2', BEFORE)).toBeDefined();

        const both = await tokens().createMany([named('i1')(aToken()), named()(aToken()), named('i2')(aToken())], BEFORE);
        expect(both).toEqual({ status: 'created', outcomes: [{ status: 'created' }, { status: 'created' }, { status: 'created' }] });
        expect(await intents().findById(T1, 'i1', BEFORE)).toBeUndefined();
        expect(await intents().findById(T1, 'i2', BEFORE)).toBeUndefined();
        expect(await count()).toBe(4);
      });
    });
  });
}
