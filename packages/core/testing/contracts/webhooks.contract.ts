import type { Store } from '../../src/shared/store';
import type { Webhook } from '../../src/webhooks/webhook';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const NOW = new Date('2026-01-01T00:00:00.000Z');

let seq = 0;
/** Ids that sort by creation, as the time-ordered generator's do. */
function webhook(patch: Partial<Webhook> = {}): Webhook {
  seq++;
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    tenantId: T1,
    name: `hook ${seq}`,
    url: 'https://hooks.example.com/in',
    events: ['token.created', 'application.deleted'],
    status: 'enabled',
    notifyEmail: 'ops@example.com',
    sealedSecret: Uint8Array.from([1, 2, 3, 0, 255, seq % 256]),
    createdBy: 'app-1',
    createdAt: new Date(NOW.getTime() + seq),
    ...patch,
  };
}

/** Stores give Buffers or Uint8Arrays back, and leave absent optional fields out: compare plain values. */
const plain = (w: Webhook | undefined) =>
  w && JSON.parse(JSON.stringify({ ...w, events: [...w.events], sealedSecret: [...w.sealedSecret] })) as unknown;

/** Webhooks: round trips, tenant scoping, paging, updates that keep the secret, and the per-tenant limit under concurrency. */
export function describeWebhookContract(open: () => Promise<Store>): void {
  describe('webhook contract', () => {
    const store = useStore(open);
    const hooks = () => store().webhooks;

    it('stores a webhook and reads it back whole, the sealed secret byte for byte', async () => {
      const w = webhook();
      expect(await hooks().create(w, 50)).toBe('created');
      expect(plain(await hooks().findById(T1, w.id))).toEqual(plain(w));
      const bare = webhook({ notifyEmail: undefined, status: 'disabled', events: ['proxy.deleted'] });
      await hooks().create(bare, 50);
      expect(plain(await hooks().findById(T1, bare.id))).toEqual(plain(bare));
      expect((await hooks().findById(T1, bare.id))?.notifyEmail).toBeUndefined();
    });

    it("answers another tenant's webhook as absent, for reads, updates and deletes", async () => {
      const w = webhook();
      await hooks().create(w, 50);
      expect(await hooks().findById(T2, w.id)).toBeUndefined();
      expect(await hooks().update({ ...w, tenantId: T2, name: 'stolen' })).toBe(false);
      expect(await hooks().delete(T2, w.id)).toBe(false);
      expect((await hooks().list(T2, { page: 1, size: 50 })).total).toBe(0);
      expect((await hooks().findById(T1, w.id))?.name).toBe(w.name);
    });

    it('lists newest first with totals across pages', async () => {
      const made = [webhook(), webhook(), webhook()];
      for (const w of made) await hooks().create(w, 50);
      await hooks().create(webhook({ tenantId: T2 }), 50);
      const first = await hooks().list(T1, { page: 1, size: 2 });
      expect(first.total).toBe(3);
      expect(first.items.map((w) => w.id)).toEqual([made[2]!.id, made[1]!.id]);
      const second = await hooks().list(T1, { page: 2, size: 2 });
      expect(second.items.map((w) => w.id)).toEqual([made[0]!.id]);
    });

    it('updates the fields but never the sealed secret nor the creation fields; absent fields are removed', async () => {
      const w = webhook();
      await hooks().create(w, 50);
      const modifiedAt = new Date(NOW.getTime() + 60_000);
      const changed: Webhook = {
        ...w,
        name: 'renamed',
        url: 'https://other.example.com/x',
        events: ['token.deleted'],
        status: 'disabled',
        notifyEmail: undefined,
        sealedSecret: Uint8Array.from([7, 7, 7]),
        createdBy: 'someone-else',
        createdAt: modifiedAt,
        modifiedBy: 'app-2',
        modifiedAt,
      };
      expect(await hooks().update(changed)).toBe(true);
      expect(plain(await hooks().findById(T1, w.id))).toEqual(
        plain({ ...changed, sealedSecret: w.sealedSecret, createdBy: w.createdBy, createdAt: w.createdAt }),
      );
      expect(await hooks().update({ ...changed, id: webhook().id })).toBe(false);
    });

    it('updates as read only: a write made on a read older than the last change is refused and changes nothing', async () => {
      const w = webhook();
      await hooks().create(w, 50);
      const at = (ms: number) => new Date(NOW.getTime() + ms);
      // Never modified: the read without a modification holds until the first change.
      const disabled: Webhook = { ...w, status: 'disabled', modifiedBy: 'svc', modifiedAt: at(1_000) };
      expect(await hooks().update(disabled, undefined, w)).toBe(true);
      // A user's change made on the read from before the disabling: refused, the disabling stays.
      expect(await hooks().update({ ...w, name: 'renamed', modifiedBy: 'app-2', modifiedAt: at(2_000) }, undefined, w)).toBe(false);
      expect((await hooks().findById(T1, w.id))?.status).toBe('disabled');
      expect((await hooks().findById(T1, w.id))?.name).toBe(w.name);
      // Read again, it goes through; a write on that same read then no longer does.
      const current = (await hooks().findById(T1, w.id))!;
      expect(await hooks().update({ ...current, name: 'renamed', modifiedAt: at(3_000) }, undefined, current)).toBe(true);
      expect(await hooks().update({ ...current, name: 'again', modifiedAt: at(4_000) }, undefined, current)).toBe(false);
      expect((await hooks().findById(T1, w.id))?.name).toBe('renamed');
      // Absent, or another tenant's: false as without a read.
      expect(await hooks().update({ ...current, tenantId: T2 }, undefined, current)).toBe(false);
    });

    it('lets exactly one of concurrent updates made on one read through', async () => {
      const w = webhook();
      await hooks().create(w, 50);
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => hooks().update({ ...w, name: `writer ${i}`, modifiedAt: new Date(NOW.getTime() + 1_000 + i) }, undefined, w)),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = outcomes.indexOf(true);
      expect((await hooks().findById(T1, w.id))?.name).toBe(`writer ${winner}`);
    });

    it('deletes once', async () => {
      const w = webhook();
      await hooks().create(w, 50);
      expect(await hooks().delete(T1, w.id)).toBe(true);
      expect(await hooks().delete(T1, w.id)).toBe(false);
      expect(await hooks().findById(T1, w.id)).toBeUndefined();
    });

    it('refuses a create past the limit, per tenant, and takes one again after a delete', async () => {
      const first = webhook();
      expect(await hooks().create(first, 2)).toBe('created');
      expect(await hooks().create(webhook(), 2)).toBe('created');
      const refused = webhook();
      expect(await hooks().create(refused, 2)).toBe('limit');
      expect(await hooks().findById(T1, refused.id)).toBeUndefined();
      expect(await hooks().create(webhook({ tenantId: T2 }), 2)).toBe('created');
      await hooks().delete(T1, first.id);
      expect(await hooks().create(webhook(), 2)).toBe('created');
      expect((await hooks().list(T1, { page: 1, size: 50 })).total).toBe(2);
    });

    it('never passes the limit under concurrent creates', async () => {
      await hooks().create(webhook(), 50);
      const outcomes = await Promise.all(Array.from({ length: 60 }, () => hooks().create(webhook(), 50)));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(49);
      expect(outcomes.filter((o) => o === 'limit')).toHaveLength(11);
      expect((await hooks().list(T1, { page: 1, size: 100 })).total).toBe(50);
    });
  });
}
