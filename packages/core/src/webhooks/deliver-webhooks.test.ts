import { createHmac } from 'node:crypto';
import { FixedClock } from '../../testing/fixed-clock';
import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import { Keyring } from '../crypto/keyring';
import type { OutboundHttp } from '../outbound/outbound-http';
import { CryptoRandomSource } from '../shared/random';
import { DeliverWebhooks, retryDelay, signWebhook } from './deliver-webhooks';
import type { Webhook, WebhookRepository } from './webhook';
import type { DeliveryAttempt, DeliveryKey, DeliveryNext, WebhookDelivery, WebhookDeliveryRepository } from './webhook-delivery';

describe('webhook signatures and backoff', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 keyed by the secret\'s UTF-8 bytes, as hex', () => {
    const body = '{"event":{"id":"e1"},"delivered_at":"2026-01-01T00:00:00.000Z"}';
    const expected = createHmac('sha256', 'whsec_ünïcode').update(`1767225600.${body}`).digest('hex');
    expect(signWebhook('whsec_ünïcode', 1767225600, body)).toBe(`t=1767225600,v1=${expected}`);
    expect(signWebhook('whsec_other', 1767225600, body)).not.toBe(signWebhook('whsec_ünïcode', 1767225600, body));
    expect(signWebhook('whsec_ünïcode', 1767225601, body)).not.toBe(signWebhook('whsec_ünïcode', 1767225600, body));
  });

  it('backs off from 1 s, doubling, to at most an hour', () => {
    expect([1, 2, 3, 4, 12, 13, 40, 1_000].map(retryDelay)).toEqual([1_000, 2_000, 4_000, 8_000, 2_048_000, 3_600_000, 3_600_000, 3_600_000]);
  });
});

describe('DeliverWebhooks with a secret that cannot be opened', () => {
  const clock = new FixedClock();
  const random = new CryptoRandomSource();

  function setup() {
    const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random, clock, masterKey: new Uint8Array(32).fill(7) });
    const webhooks: Webhook[] = [];
    const recorded: Array<{ key: DeliveryKey; attempt: DeliveryAttempt; next: DeliveryNext }> = [];
    const due: WebhookDelivery[] = [];
    const sent: string[] = [];
    const deliveries = {
      leaseDue: async () => due.splice(0),
      recordAttempt: async (key: DeliveryKey, attempt: DeliveryAttempt, next: DeliveryNext) => (recorded.push({ key, attempt, next }), true),
      failPending: async () => 0,
    } as unknown as WebhookDeliveryRepository;
    const repo = {
      findById: async (tenantId: string, id: string) => webhooks.find((w) => w.tenantId === tenantId && w.id === id),
      update: async () => true,
    } as unknown as WebhookRepository;
    const outbound: OutboundHttp = {
      send: async (request) => (sent.push(request.url), { status: 204, headers: {}, body: new Uint8Array() }) as never,
      open: async () => {
        throw new Error('deliveries never stream');
      },
      close: async () => undefined,
    };
    const run = new DeliverWebhooks({ webhooks: repo, deliveries, keyring, outbound, clock });
    return { keyring, webhooks, due, recorded, sent, run };
  }

  const delivery = (webhookId: string, eventId: string): WebhookDelivery => ({
    tenantId: 'tenant-1',
    webhookId,
    eventId,
    eventType: 'token.created',
    event: '{}',
    status: 'pending',
    attempts: [],
    nextAttemptAt: clock.now(),
    createdAt: clock.now(),
  });

  it('records a failed attempt for it and still attempts the rest of the batch', async () => {
    const s = setup();
    const other = await s.keyring.forTenant('tenant-2');
    const own = await s.keyring.forTenant('tenant-1');
    const base = { tenantId: 'tenant-1', name: 'h', events: ['token.created'], status: 'enabled', createdBy: 'app', createdAt: clock.now() } as const;
    // Sealed under another tenant's key: opening it in tenant-1 fails.
    s.webhooks.push({ ...base, id: 'bad', url: 'https://bad.example.com', sealedSecret: other.sealWebhookSecret('bad', 'whsec_x') });
    s.webhooks.push({ ...base, id: 'good', url: 'https://good.example.com', sealedSecret: own.sealWebhookSecret('good', 'whsec_y') });
    s.due.push(delivery('bad', 'e1'));
    for (let i = 0; i < 10; i++) s.due.push(delivery('good', `e${i + 2}`));

    const result = await s.run.execute();

    expect(result).toEqual({ attempted: 11, delivered: 10 });
    expect(s.sent.filter((u) => u.includes('bad'))).toEqual([]);
    const bad = s.recorded.find((r) => r.key.webhookId === 'bad')!;
    expect(bad.attempt.error).toBe("The webhook's signing secret could not be read.");
    expect(bad.attempt.error).not.toMatch(/whsec|tenant-2/);
    expect(bad.next.status).toBe('pending');
    expect(s.recorded).toHaveLength(11);
  });
});

describe('DeliverWebhooks giving up on a webhook', () => {
  const clock = new FixedClock();
  const random = new CryptoRandomSource();

  /** One enabled webhook, one delivery a day and more old, a receiver answering 500; `update` as given. */
  async function giveUp(update: (webhook: Webhook) => boolean) {
    const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random, clock, masterKey: new Uint8Array(32).fill(7) });
    const own = await keyring.forTenant('tenant-1');
    let stored: Webhook = {
      tenantId: 'tenant-1', id: 'w', name: 'h', url: 'https://hooks.example.com', events: ['token.created'], status: 'enabled',
      createdBy: 'app', createdAt: clock.now(), sealedSecret: own.sealWebhookSecret('w', 'whsec_x'),
    };
    let updates = 0;
    let failed = 0;
    const old = new Date(clock.now().getTime() - 25 * 3_600_000);
    const due: WebhookDelivery[] = [{ tenantId: 'tenant-1', webhookId: 'w', eventId: 'e1', eventType: 'token.created', event: '{}', status: 'pending', attempts: [], nextAttemptAt: old, createdAt: old }];
    const deliveries = {
      leaseDue: async () => due.splice(0),
      recordAttempt: async () => true,
      failPending: async () => (failed++, 0),
    } as unknown as WebhookDeliveryRepository;
    const repo = {
      findById: async () => stored,
      update: async (webhook: Webhook) => {
        updates++;
        if (!update(webhook)) return false;
        stored = webhook;
        return true;
      },
    } as unknown as WebhookRepository;
    const outbound: OutboundHttp = {
      send: async () => ({ status: 500, headers: {}, body: new Uint8Array() }) as never,
      open: async () => {
        throw new Error('deliveries never stream');
      },
      close: async () => undefined,
    };
    await new DeliverWebhooks({ webhooks: repo, deliveries, keyring, outbound, clock }).execute();
    return { updates, failed, status: stored.status };
  }

  it('disables it, then fails its other pending deliveries', async () => {
    expect(await giveUp(() => true)).toEqual({ updates: 1, failed: 1, status: 'disabled' });
  });

  it('leaves its deliveries pending when a change lands between every read and write: it stays enabled', async () => {
    expect(await giveUp(() => false)).toEqual({ updates: 5, failed: 0, status: 'enabled' });
  });
});
