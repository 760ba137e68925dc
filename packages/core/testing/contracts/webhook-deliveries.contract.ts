import type { Store } from '../../src/shared/store';
import type { DeliveryKey, WebhookDelivery } from '../../src/webhooks/webhook-delivery';
import type { Webhook } from '../../src/webhooks/webhook';
import { aStoredToken } from '../builders';
import { aHook, aMessage } from './write-effects.contract';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(BASE + ms);

const keyOf = (d: WebhookDelivery): DeliveryKey => ({ tenantId: d.tenantId, webhookId: d.webhookId, eventId: d.eventId });

/** Deliveries: leasing due ones exactly once, attempts and their outcomes, the listing, failing and pruning. */
export function describeWebhookDeliveryContract(open: () => Promise<Store>): void {
  describe('webhook delivery contract', () => {
    const store = useStore(open);
    const deliveries = () => store().webhookDeliveries;
    let hook: Webhook;

    beforeEach(async () => {
      hook = aHook();
      await store().webhooks.create(hook, 50);
    });

    /** A token create whose message, created at `ms`, becomes a delivery to `hook` due then. */
    async function deliveryAt(ms: number, tenantId = T1): Promise<string> {
      const token = aStoredToken().inTenant(tenantId).build();
      const message = aMessage('token.created', { tenantId, createdAt: at(ms) });
      await store().tokens.create(token, { deduplicate: false, now: at(0), effects: { events: [], messages: [message] } });
      return message.id;
    }

    it('leases due deliveries oldest first, each until its lease runs out', async () => {
      const late = await deliveryAt(300);
      const early = await deliveryAt(100);
      const later = await deliveryAt(5_000);
      const leased = await deliveries().leaseDue(at(1_000), at(31_000), 10);
      expect(leased.map((d) => d.eventId)).toEqual([early, late]);
      expect(await deliveries().leaseDue(at(2_000), at(32_000), 10)).toEqual([]);
      // The lease ran out (the dispatcher died): the delivery is due again.
      expect((await deliveries().leaseDue(at(31_000), at(61_000), 10)).map((d) => d.eventId)).toEqual([early, late, later]);
      expect((await deliveries().leaseDue(at(61_000), at(91_000), 1)).map((d) => d.eventId)).toEqual([early]);
    });

    it('gives each due delivery to one of concurrent leasers', async () => {
      const ids = [];
      for (let i = 0; i < 12; i++) ids.push(await deliveryAt(i));
      const leases = await Promise.all([1, 2, 3, 4].map(() => deliveries().leaseDue(at(1_000), at(60_000), 5)));
      const got = leases.flat().map((d) => d.eventId);
      expect(new Set(got).size).toBe(got.length);
      expect(got.sort()).toEqual([...ids].sort());
    });

    it('records attempts: delivered, retried later, or failed for good', async () => {
      const [a, b, c] = [await deliveryAt(1), await deliveryAt(2), await deliveryAt(3)];
      const leased = await deliveries().leaseDue(at(10), at(30_000), 10);
      const byId = new Map(leased.map((d) => [d.eventId, d]));
      expect(await deliveries().recordAttempt(keyOf(byId.get(a)!), { at: at(20), statusCode: 200, durationMs: 5 }, { status: 'delivered' })).toBe(true);
      expect(
        await deliveries().recordAttempt(keyOf(byId.get(b)!), { at: at(20), statusCode: 500, durationMs: 7 }, { status: 'pending', nextAttemptAt: at(1_020) }),
      ).toBe(true);
      expect(await deliveries().recordAttempt(keyOf(byId.get(c)!), { at: at(20), error: 'timed out', durationMs: 10_000 }, { status: 'failed' })).toBe(true);
      // The retry is due at its time, lease or no lease (recording released it).
      expect(await deliveries().leaseDue(at(1_000), at(40_000), 10)).toEqual([]);
      const retry = await deliveries().leaseDue(at(1_020), at(40_000), 10);
      expect(retry.map((d) => d.eventId)).toEqual([b]);
      expect(retry[0]!.attempts).toEqual([{ at: at(20), statusCode: 500, durationMs: 7 }]);

      const listed = new Map((await deliveries().list(T1, hook.id, { page: 1, size: 10 })).items.map((d) => [d.eventId, d]));
      expect(listed.get(a)).toMatchObject({ status: 'delivered', attempts: [{ at: at(20), statusCode: 200, durationMs: 5 }] });
      expect(listed.get(a)!.nextAttemptAt).toBeUndefined();
      expect(listed.get(c)).toMatchObject({ status: 'failed', attempts: [{ at: at(20), error: 'timed out', durationMs: 10_000 }] });
      expect(listed.get(b)).toMatchObject({ status: 'pending', nextAttemptAt: at(1_020) });
      expect(await deliveries().countPending()).toBe(1);
      expect(await deliveries().recordAttempt({ tenantId: T1, webhookId: hook.id, eventId: 'nope' }, { at: at(1), durationMs: 1 }, { status: 'delivered' })).toBe(false);
    });

    it('lists a webhook\'s deliveries newest first with the total, and none of another tenant\'s', async () => {
      const ids = [await deliveryAt(1), await deliveryAt(3), await deliveryAt(2)];
      const first = await deliveries().list(T1, hook.id, { page: 1, size: 2 });
      expect(first.total).toBe(3);
      expect(first.items.map((d) => d.eventId)).toEqual([ids[1], ids[2]]);
      expect((await deliveries().list(T1, hook.id, { page: 2, size: 2 })).items.map((d) => d.eventId)).toEqual([ids[0]]);
      expect((await deliveries().list(T2, hook.id, { page: 1, size: 10 })).total).toBe(0);
    });

    it('keeps an attempt that ends after its delivery was failed, and the delivery stays failed', async () => {
      const id = await deliveryAt(1);
      const [leased] = await deliveries().leaseDue(at(10), at(100), 10);
      expect(await deliveries().failPending(T1, hook.id)).toBe(1);
      const late = { at: at(20), statusCode: 500, durationMs: 3 };
      expect(await deliveries().recordAttempt(keyOf(leased!), late, { status: 'pending', nextAttemptAt: at(1_020) })).toBe(true);
      const [listed] = (await deliveries().list(T1, hook.id, { page: 1, size: 10 })).items;
      expect(listed).toMatchObject({ eventId: id, status: 'failed', attempts: [late] });
      expect(listed!.nextAttemptAt).toBeUndefined();
      expect(await deliveries().leaseDue(at(5_000), at(6_000), 10)).toEqual([]);
      expect(await deliveries().countPending()).toBe(0);
    });

    it('fails every pending delivery of a disabled webhook, and only of it', async () => {
      const other = aHook();
      await store().webhooks.create(other, 50);
      await deliveryAt(1);
      await deliveryAt(2);
      expect(await deliveries().failPending(T1, hook.id)).toBe(2);
      expect((await deliveries().list(T1, hook.id, { page: 1, size: 10 })).items.map((d) => d.status)).toEqual(['failed', 'failed']);
      expect(await deliveries().countPending()).toBe(2);
      expect(await deliveries().failPending(T2, other.id)).toBe(0);
      expect((await deliveries().leaseDue(at(10), at(100), 10)).every((d) => d.webhookId === other.id)).toBe(true);
    });

    it('prunes finished deliveries created before a date, never pending ones', async () => {
      const [a, b] = [await deliveryAt(1), await deliveryAt(2)];
      await deliveryAt(3);
      const leased = await deliveries().leaseDue(at(10), at(100), 10);
      for (const d of leased.filter((x) => x.eventId === a || x.eventId === b)) {
        await deliveries().recordAttempt(keyOf(d), { at: at(20), statusCode: 204, durationMs: 1 }, { status: 'delivered' });
      }
      expect(await deliveries().pruneFinished(at(2))).toBe(1);
      expect(await deliveries().pruneFinished(at(10_000))).toBe(1);
      expect((await deliveries().list(T1, hook.id, { page: 1, size: 10 })).items.map((d) => d.status)).toEqual(['pending']);
    });
  });
}
