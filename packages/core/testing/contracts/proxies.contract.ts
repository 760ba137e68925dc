import type { AuditEvent } from '../../src/audit/audit-event';
import type { WriteEffects } from '../../src/audit/write-effects';
import type { Proxy, ProxyTransform } from '../../src/proxies/proxy';
import type { Store } from '../../src/shared/store';
import type { WebhookEventType } from '../../src/webhooks/webhook';
import { anAuditEvent } from './audit-log.contract';
import { useStore } from './use-store';
import { aHook, aMessage } from './write-effects.contract';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const NOW = new Date('2026-01-01T00:00:00.000Z');

/** One transform of each kind, with the optional parts both given and left out. */
const REQUEST_TRANSFORMS: readonly ProxyTransform[] = [
  { type: 'tokenize', matcher: '$.card', token: { type: 'card', containers: ['/pci/'], metadata: { source: 'partner', n: 1 }, deduplicate_token: true } },
  { type: 'detokenize' },
  { type: 'append_header', name: 'Authorization', value: 'Bearer {{ configuration.api_key }}' },
];
const RESPONSE_TRANSFORMS: readonly ProxyTransform[] = [
  { type: 'mask', matcher: 'regex', expression: '\\d{12}(\\d{4})', replacement: '************$1' },
  { type: 'mask', matcher: '$.account.number', replacement: '****' },
  { type: 'mask', matcher: '$.note', expression: '"secret"\\s*%_', replacement: '' },
];

let seq = 0;
/** Ids that sort by creation, as the time-ordered generator's do; every optional field given. */
function aProxy(patch: Partial<Proxy> = {}): Proxy {
  seq++;
  const n = String(seq).padStart(12, '0');
  return {
    id: `00000000-0000-7000-b000-${n}`,
    tenantId: T1,
    name: `proxy ${seq}`,
    destinationUrl: 'https://api.partner.example.com/v1/charges?x=1',
    requestTransforms: REQUEST_TRANSFORMS,
    responseTransforms: RESPONSE_TRANSFORMS,
    applicationId: '00000000-0000-4000-8000-0000000000aa',
    sealedConfiguration: Uint8Array.from([0, 1, 2, 127, 128, 255, seq % 256]),
    requireAuth: true,
    timeoutSeconds: 45,
    disableDetokenization: false,
    keyHash: `${n}`.padStart(64, 'f'),
    version: 1,
    createdBy: 'mgt-app-1',
    createdAt: new Date(NOW.getTime() + seq),
    modifiedBy: 'mgt-app-2',
    modifiedAt: new Date(NOW.getTime() + seq + 60_000),
    ...patch,
  };
}

/** A proxy with nothing optional: no application, timeout nor modification, and no transforms. */
const aBareProxy = (patch: Partial<Proxy> = {}): Proxy =>
  aProxy({
    applicationId: undefined,
    timeoutSeconds: undefined,
    modifiedBy: undefined,
    modifiedAt: undefined,
    requestTransforms: [],
    responseTransforms: [],
    requireAuth: false,
    disableDetokenization: true,
    ...patch,
  });

/** Stores give Buffers or Uint8Arrays back, and leave absent optional fields out: compare plain values. */
const plain = (p: Proxy | undefined) =>
  p && (JSON.parse(JSON.stringify({ ...p, sealedConfiguration: [...p.sealedConfiguration] })) as unknown);

/** The effects of one proxy write: an event about it and, when a type is given, a message of that type. */
function effectsOf(proxyId: string, type?: WebhookEventType, tenantId = T1): WriteEffects {
  return {
    events: [anAuditEvent({ tenantId, entityType: 'proxy', entityId: proxyId, operation: 'update', message: 'Proxy written' })],
    messages: type ? [aMessage(type, { tenantId })] : [],
  };
}

/**
 * Proxies: round trips of every field, tenant scoping, the global key lookup and its uniqueness, filtered pages,
 * compare-and-set updates that keep the key and creation fields, the per-tenant limit and the version under
 * concurrency, and WriteEffects stored only with a write that changed something.
 */
export function describeProxyContract(open: () => Promise<Store>): void {
  describe('proxy contract', () => {
    const store = useStore(open);
    const proxies = () => store().proxies;
    const ids = (items: readonly Proxy[]) => items.map((p) => p.id);

    describe('round trips', () => {
      it('stores a proxy and reads it back whole, by id and by key hash: every transform, the sealed bytes, the version', async () => {
        const p = aProxy({ version: 7 });
        expect(await proxies().create(p, 100)).toBe('created');
        const found = await proxies().findById(T1, p.id);
        expect(plain(found)).toEqual(plain(p));
        expect(found?.sealedConfiguration).toBeInstanceOf(Uint8Array);
        expect([...found!.sealedConfiguration]).toEqual([...p.sealedConfiguration]);
        expect(found?.createdAt).toBeInstanceOf(Date);
        expect(found?.modifiedAt?.getTime()).toBe(p.modifiedAt!.getTime());
        expect(found?.requireAuth).toBe(true);
        expect(found?.disableDetokenization).toBe(false);
        expect(found?.version).toBe(7);
        expect(plain(await proxies().findByKeyHash(p.keyHash))).toEqual(plain(p));
      });

      it('leaves absent optional fields absent, and keeps empty transforms and false flags', async () => {
        const p = aBareProxy();
        await proxies().create(p, 100);
        const found = (await proxies().findById(T1, p.id))!;
        expect(plain(found)).toEqual(plain(p));
        for (const field of ['applicationId', 'timeoutSeconds', 'modifiedBy', 'modifiedAt'] as const) expect(found[field]).toBeUndefined();
        expect(found.requestTransforms).toEqual([]);
        expect(found.responseTransforms).toEqual([]);
        expect(found.requireAuth).toBe(false);
        expect(found.disableDetokenization).toBe(true);
      });

      it('keeps a mask without an expression without one', async () => {
        const p = aProxy({ responseTransforms: [{ type: 'mask', matcher: '$.x', replacement: '*' }] });
        await proxies().create(p, 100);
        const [mask] = (await proxies().findById(T1, p.id))!.responseTransforms;
        expect(mask).toEqual({ type: 'mask', matcher: '$.x', replacement: '*' });
      });
    });

    describe('tenant scoping', () => {
      it("answers another tenant's proxy as absent, for reads, lists, updates and deletes, and changes nothing", async () => {
        const p = aProxy();
        await proxies().create(p, 100);
        expect(await proxies().findById(T2, p.id)).toBeUndefined();
        expect(await proxies().update({ ...p, tenantId: T2, name: 'stolen', version: p.version + 1 })).toBe('absent');
        expect(await proxies().delete(T2, p.id)).toBe(false);
        expect((await proxies().list(T2, {}, { page: 1, size: 50 })).total).toBe(0);
        expect((await proxies().list(T2, { ids: [p.id] }, { page: 1, size: 50 })).items).toEqual([]);
        expect(plain(await proxies().findById(T1, p.id))).toEqual(plain(p));
      });
    });

    describe('key hashes', () => {
      it('finds a proxy by its key hash whatever its tenant, and nothing for an unknown hash', async () => {
        const mine = aProxy();
        const theirs = aProxy({ tenantId: T2 });
        await proxies().create(mine, 100);
        await proxies().create(theirs, 100);
        expect((await proxies().findByKeyHash(mine.keyHash))?.tenantId).toBe(T1);
        expect((await proxies().findByKeyHash(theirs.keyHash))?.id).toBe(theirs.id);
        expect(await proxies().findByKeyHash('0'.repeat(64))).toBeUndefined();
        expect(await proxies().findByKeyHash('')).toBeUndefined();
      });

      it('refuses, by throwing, a second proxy with a stored key hash, in any tenant, and stores nothing of it', async () => {
        const first = aProxy();
        await proxies().create(first, 100);
        // Not toThrow(): a driver's error class may come from another realm under jest (see the directory contract).
        const sameTenant = aProxy({ keyHash: first.keyHash });
        await expect(proxies().create(sameTenant, 100, effectsOf(sameTenant.id, 'proxy.created'))).rejects.toHaveProperty('message');
        const otherTenant = aProxy({ tenantId: T2, keyHash: first.keyHash });
        await expect(proxies().create(otherTenant, 100, effectsOf(otherTenant.id, 'proxy.created', T2))).rejects.toHaveProperty('message');
        expect(await proxies().findById(T1, sameTenant.id)).toBeUndefined();
        expect(await proxies().findById(T2, otherTenant.id)).toBeUndefined();
        expect((await proxies().findByKeyHash(first.keyHash))?.id).toBe(first.id);
        expect((await proxies().list(T1, {}, { page: 1, size: 50 })).total).toBe(1);
        expect((await proxies().list(T2, {}, { page: 1, size: 50 })).total).toBe(0);
        expect((await store().auditLog.list(T1, { entityId: sameTenant.id }, { page: 1, size: 10 })).items).toEqual([]);
        expect((await store().auditLog.list(T2, { entityId: otherTenant.id }, { page: 1, size: 10 })).items).toEqual([]);
        // The limit still counts one proxy.
        expect(await proxies().create(aProxy(), 2)).toBe('created');
      });

      it('refuses, by throwing, a second proxy with a stored id', async () => {
        const first = aProxy();
        await proxies().create(first, 100);
        await expect(proxies().create(aProxy({ id: first.id }), 100)).rejects.toHaveProperty('message');
        expect(plain(await proxies().findById(T1, first.id))).toEqual(plain(first));
        expect((await proxies().list(T1, {}, { page: 1, size: 50 })).total).toBe(1);
      });
    });

    describe('lists', () => {
      it('lists newest first, then by id descending, with totals across pages', async () => {
        const made = [aProxy(), aProxy(), aProxy()];
        const at = new Date(NOW.getTime() + 10_000_000);
        const twins = [aProxy({ createdAt: at }), aProxy({ createdAt: at })];
        for (const p of [...twins.slice().reverse(), ...made]) await proxies().create(p, 100);
        await proxies().create(aProxy({ tenantId: T2 }), 100);
        const first = await proxies().list(T1, {}, { page: 1, size: 2 });
        expect(first).toMatchObject({ total: 5, page: 1, size: 2 });
        expect(ids(first.items)).toEqual([twins[1]!.id, twins[0]!.id]);
        const second = await proxies().list(T1, {}, { page: 2, size: 2 });
        expect(ids(second.items)).toEqual([made[2]!.id, made[1]!.id]);
        const third = await proxies().list(T1, {}, { page: 3, size: 2 });
        expect(ids(third.items)).toEqual([made[0]!.id]);
        expect(third.total).toBe(5);
        const beyond = await proxies().list(T1, {}, { page: 4, size: 2 });
        expect(beyond).toMatchObject({ items: [], total: 5 });
      });

      it('filters by ids, only among the tenant\'s own, and an empty list of ids matches nothing', async () => {
        const [a, b, c] = [aProxy(), aProxy(), aProxy()];
        const foreign = aProxy({ tenantId: T2 });
        for (const p of [a, b, c, foreign]) await proxies().create(p, 100);
        const page = await proxies().list(T1, { ids: [a.id, c.id, foreign.id, '00000000-0000-7000-b000-ffffffffffff'] }, { page: 1, size: 50 });
        expect(ids(page.items)).toEqual([c.id, a.id]);
        expect(page.total).toBe(2);
        expect(await proxies().list(T1, { ids: [] }, { page: 1, size: 50 })).toMatchObject({ items: [], total: 0 });
        const paged = await proxies().list(T1, { ids: [a.id, b.id, c.id] }, { page: 2, size: 2 });
        expect(ids(paged.items)).toEqual([a.id]);
        expect(paged.total).toBe(3);
      });

      it('filters by name: contains, case-insensitively, beyond ASCII too', async () => {
        const names = ['Stripe Payments', 'PAYOUTS', 'Adyen', 'Österreich Gateway', 'repay'];
        const made = names.map((name) => aProxy({ name }));
        for (const p of made) await proxies().create(p, 100);
        await proxies().create(aProxy({ tenantId: T2, name: 'payments of another tenant' }), 100);
        const named = async (name: string) => (await proxies().list(T1, { name }, { page: 1, size: 50 })).items.map((p) => p.name);
        expect(await named('pay')).toEqual(['repay', 'PAYOUTS', 'Stripe Payments']);
        expect(await named('PAYMENTS')).toEqual(['Stripe Payments']);
        expect(await named('österreich')).toEqual(['Österreich Gateway']);
        expect(await named('ÖSTERREICH')).toEqual(['Österreich Gateway']);
        expect(await named('nothing')).toEqual([]);
        expect(await named('')).toHaveLength(5);
        const page = await proxies().list(T1, { name: 'pay' }, { page: 2, size: 2 });
        expect(page.items.map((p) => p.name)).toEqual(['Stripe Payments']);
        expect(page.total).toBe(3);
        const both = await proxies().list(T1, { name: 'pay', ids: [made[0]!.id, made[2]!.id] }, { page: 1, size: 50 });
        expect(ids(both.items)).toEqual([made[0]!.id]);
        expect(both.total).toBe(1);
      });

      it('takes %, _, \\ and regular-expression characters in a name filter literally', async () => {
        const names = ['100% sure', '100 percent', 'a_b', 'axb', 'back\\slash', 'dot.star*', 'dots', '(x)[y]^$|?+{1}'];
        for (const name of names) await proxies().create(aProxy({ name }), 100);
        const named = async (name: string) => (await proxies().list(T1, { name }, { page: 1, size: 50 })).items.map((p) => p.name);
        expect(await named('%')).toEqual(['100% sure']);
        expect(await named('0% s')).toEqual(['100% sure']);
        expect(await named('_')).toEqual(['a_b']);
        expect(await named('a_b')).toEqual(['a_b']);
        expect(await named('\\')).toEqual(['back\\slash']);
        expect(await named('.')).toEqual(['dot.star*']);
        expect(await named('t.s')).toEqual(['dot.star*']);
        expect(await named('*')).toEqual(['dot.star*']);
        expect(await named('(x)[y]^$|?+{1}')).toEqual(['(x)[y]^$|?+{1}']);
      });
    });

    describe('updates', () => {
      it('applies over the version before it and replaces every field but the key hash and the creation fields', async () => {
        const p = aProxy({ version: 1 });
        await proxies().create(p, 100);
        const changed: Proxy = {
          ...p,
          name: 'renamed',
          destinationUrl: 'https://other.example.com/in',
          requestTransforms: [{ type: 'append_header', name: 'X-Key', value: '{{ configuration.key }}' }],
          responseTransforms: [],
          applicationId: undefined,
          sealedConfiguration: Uint8Array.from([9, 9, 0, 9]),
          requireAuth: false,
          timeoutSeconds: undefined,
          disableDetokenization: true,
          keyHash: 'e'.repeat(64),
          version: 2,
          createdBy: 'someone-else',
          createdAt: new Date(NOW.getTime() + 99_000_000),
          modifiedBy: 'mgt-app-3',
          modifiedAt: new Date(NOW.getTime() + 120_000),
        };
        expect(await proxies().update(changed)).toBe('updated');
        const expected = { ...changed, keyHash: p.keyHash, createdBy: p.createdBy, createdAt: p.createdAt };
        const found = await proxies().findById(T1, p.id);
        expect(plain(found)).toEqual(plain(expected));
        expect(found?.applicationId).toBeUndefined();
        expect(found?.timeoutSeconds).toBeUndefined();
        expect(plain(await proxies().findByKeyHash(p.keyHash))).toEqual(plain(expected));
        expect(await proxies().findByKeyHash(changed.keyHash)).toBeUndefined();

        // Optional fields come back with a later update.
        const again: Proxy = { ...changed, version: 3, applicationId: 'app-9', timeoutSeconds: 5, responseTransforms: RESPONSE_TRANSFORMS };
        expect(await proxies().update(again)).toBe('updated');
        expect(plain(await proxies().findById(T1, p.id))).toEqual(plain({ ...again, keyHash: p.keyHash, createdBy: p.createdBy, createdAt: p.createdAt }));
      });

      it('answers conflict over any other version, and changes nothing', async () => {
        const p = aProxy({ version: 3 });
        await proxies().create(p, 100);
        for (const version of [3, 5, 2, 1, 0]) {
          expect(await proxies().update({ ...p, name: `v${version}`, version })).toBe('conflict');
        }
        expect(plain(await proxies().findById(T1, p.id))).toEqual(plain(p));
        expect(await proxies().update({ ...p, name: 'v4', version: 4 })).toBe('updated');
        expect(await proxies().update({ ...p, name: 'v4 again', version: 4 })).toBe('conflict');
        expect((await proxies().findById(T1, p.id))).toMatchObject({ name: 'v4', version: 4 });
      });

      it('answers absent for an unknown, a deleted or another tenant\'s proxy', async () => {
        const p = aProxy();
        await proxies().create(p, 100);
        expect(await proxies().update({ ...aProxy(), version: 2 })).toBe('absent');
        expect(await proxies().update({ ...p, tenantId: T2, version: p.version + 1 })).toBe('absent');
        expect(await proxies().delete(T1, p.id)).toBe(true);
        expect(await proxies().update({ ...p, version: p.version + 1 })).toBe('absent');
        expect(await proxies().findById(T1, p.id)).toBeUndefined();
      });

      it('applies exactly one of concurrent updates over the same version; the others conflict', async () => {
        const p = aProxy({ version: 1 });
        await proxies().create(p, 100);
        const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => proxies().update({ ...p, name: `writer ${i}`, version: 2 })));
        expect(outcomes.filter((o) => o === 'updated')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'conflict')).toHaveLength(9);
        const winner = outcomes.indexOf('updated');
        expect(await proxies().findById(T1, p.id)).toMatchObject({ name: `writer ${winner}`, version: 2 });
      });
    });

    describe('deletes', () => {
      it('deletes once, and the key hash finds nothing after', async () => {
        const p = aProxy();
        await proxies().create(p, 100);
        expect(await proxies().delete(T1, p.id)).toBe(true);
        expect(await proxies().delete(T1, p.id)).toBe(false);
        expect(await proxies().findById(T1, p.id)).toBeUndefined();
        expect(await proxies().findByKeyHash(p.keyHash)).toBeUndefined();
        expect((await proxies().list(T1, {}, { page: 1, size: 50 })).total).toBe(0);
        // The key hash is free again.
        expect(await proxies().create(aProxy({ keyHash: p.keyHash }), 100)).toBe('created');
      });
    });

    describe('the per-tenant limit', () => {
      it('refuses a create past the limit, per tenant, and takes one again after a delete', async () => {
        const first = aProxy();
        expect(await proxies().create(first, 2)).toBe('created');
        expect(await proxies().create(aProxy(), 2)).toBe('created');
        const refused = aProxy();
        expect(await proxies().create(refused, 2)).toBe('limit');
        expect(await proxies().findById(T1, refused.id)).toBeUndefined();
        expect(await proxies().findByKeyHash(refused.keyHash)).toBeUndefined();
        expect(await proxies().create(aProxy({ tenantId: T2 }), 2)).toBe('created');
        await proxies().delete(T1, first.id);
        expect(await proxies().create(aProxy(), 2)).toBe('created');
        expect((await proxies().list(T1, {}, { page: 1, size: 50 })).total).toBe(2);
      });

      it('never passes the limit under concurrent creates', async () => {
        const outcomes = await Promise.all(Array.from({ length: 20 }, () => proxies().create(aProxy(), 5)));
        expect(outcomes.filter((o) => o === 'created')).toHaveLength(5);
        expect(outcomes.filter((o) => o === 'limit')).toHaveLength(15);
        expect((await proxies().list(T1, {}, { page: 1, size: 100 })).total).toBe(5);
      });

      it('never passes the limit under concurrent creates and deletes', async () => {
        const held = [aProxy(), aProxy(), aProxy()];
        for (const p of held) await proxies().create(p, 3);
        const work = await Promise.all([
          ...held.map((p) => proxies().delete(T1, p.id)),
          ...Array.from({ length: 9 }, () => proxies().create(aProxy(), 3)),
        ]);
        const created = work.filter((o) => o === 'created').length;
        expect((await proxies().list(T1, {}, { page: 1, size: 100 })).total).toBe(created);
        expect(created).toBeLessThanOrEqual(3);
        // Once the deletes are done, the tenant fills up to the limit and no further.
        const more = await Promise.all(Array.from({ length: 6 }, () => proxies().create(aProxy(), 3)));
        expect(more.filter((o) => o === 'created')).toHaveLength(3 - created);
        expect((await proxies().list(T1, {}, { page: 1, size: 100 })).total).toBe(3);
      });
    });

    describe('write effects', () => {
      beforeEach(async () => {
        await store().webhooks.create(aHook({ events: ['proxy.created', 'proxy.updated', 'proxy.deleted'] }), 50);
      });

      const events = async (proxyId: string, tenantId = T1): Promise<readonly AuditEvent[]> =>
        (await store().auditLog.list(tenantId, { entityId: proxyId }, { page: 1, size: 100 })).items;
      const eventIds = (all: readonly WriteEffects[]) => all.flatMap((fx) => fx.events.map((e) => e.id)).sort();
      const pending = () => store().webhookDeliveries.countPending();

      it('stores the effects of a create, an update and a delete that happen, and none of those that do not', async () => {
        const p = aProxy();
        const created = effectsOf(p.id, 'proxy.created');
        expect(await proxies().create(p, 100, created)).toBe('created');
        expect(await pending()).toBe(1);

        const over = aProxy();
        expect(await proxies().create(over, 1, effectsOf(over.id, 'proxy.created'))).toBe('limit');
        expect(await events(over.id)).toEqual([]);

        const updated = effectsOf(p.id, 'proxy.updated');
        expect(await proxies().update({ ...p, name: 'renamed', version: p.version + 1 }, updated)).toBe('updated');
        expect(await proxies().update({ ...p, name: 'stale', version: p.version + 1 }, effectsOf(p.id, 'proxy.updated'))).toBe('conflict');
        expect(await proxies().update({ ...p, tenantId: T2, version: p.version + 2 }, effectsOf(p.id, 'proxy.updated', T2))).toBe('absent');
        const ghost = aProxy();
        expect(await proxies().update({ ...ghost, version: 2 }, effectsOf(ghost.id, 'proxy.updated'))).toBe('absent');
        expect(await proxies().delete(T2, p.id, effectsOf(p.id, 'proxy.deleted', T2))).toBe(false);

        const deleted = effectsOf(p.id, 'proxy.deleted');
        expect(await proxies().delete(T1, p.id, deleted)).toBe(true);
        expect(await proxies().delete(T1, p.id, effectsOf(p.id, 'proxy.deleted'))).toBe(false);
        expect(await proxies().update({ ...p, version: p.version + 2 }, effectsOf(p.id, 'proxy.updated'))).toBe('absent');

        expect((await events(p.id)).map((e) => e.id).sort()).toEqual(eventIds([created, updated, deleted]));
        expect(await events(p.id, T2)).toEqual([]);
        expect(await events(ghost.id)).toEqual([]);
        expect(await pending()).toBe(3);
      });

      it('stores the effects of the one concurrent update that wins, and of none that lose', async () => {
        const p = aProxy();
        await proxies().create(p, 100);
        const fxs = Array.from({ length: 5 }, () => effectsOf(p.id, 'proxy.updated'));
        const outcomes = await Promise.all(fxs.map((fx, i) => proxies().update({ ...p, name: `writer ${i}`, version: p.version + 1 }, fx)));
        expect(outcomes.filter((o) => o === 'updated')).toHaveLength(1);
        expect((await events(p.id)).map((e) => e.id)).toEqual(eventIds([fxs[outcomes.indexOf('updated')]!]));
        expect(await pending()).toBe(1);
      });

      it('stores the effects of the concurrent creates that fit under the limit, and of none refused', async () => {
        const made = Array.from({ length: 8 }, () => aProxy());
        const outcomes = await Promise.all(made.map((p) => proxies().create(p, 3, effectsOf(p.id, 'proxy.created'))));
        expect(outcomes.filter((o) => o === 'created')).toHaveLength(3);
        for (const [i, p] of made.entries()) expect(await events(p.id)).toHaveLength(outcomes[i] === 'created' ? 1 : 0);
        expect(await pending()).toBe(3);
      });
    });
  });
}
