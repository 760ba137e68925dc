import { FixedClock } from '../../testing/fixed-clock';
import { SequentialIds } from '../../testing/sequential-ids';
import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import type { Actor } from '../auth/actor';
import { Keyring } from '../crypto/keyring';
import { OutboundPolicy } from '../outbound/outbound-policy';
import { CryptoRandomSource } from '../shared/random';
import type { Webhook, WebhookRepository } from './webhook';
import { CreateWebhook, type WebhookDeps } from './webhook-use-cases';

const actor: Actor = {
  tenantId: 'tenant-1',
  kind: 'application',
  applicationId: 'app-1',
  applicationType: 'management',
  permissions: ['webhook:create', 'webhook:read'],
  rules: [],
  authorized: true,
};

function deps(): WebhookDeps & { stored: Webhook[] } {
  const stored: Webhook[] = [];
  const webhooks: WebhookRepository = {
    create: async (w) => (stored.push(w), 'created'),
    findById: async (tenantId, id) => stored.find((w) => w.tenantId === tenantId && w.id === id),
    list: async () => ({ items: stored, total: stored.length, page: 1, size: 50 }),
    update: async () => true,
    delete: async () => true,
  };
  const random = new CryptoRandomSource();
  const clock = new FixedClock();
  const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random, clock, masterKey: new Uint8Array(32).fill(7) });
  return { webhooks, keyring, clock, ids: new SequentialIds(), random, policy: new OutboundPolicy(), stored };
}

describe('CreateWebhook', () => {
  it('stores the secret sealed, openable only for its own tenant and webhook', async () => {
    const d = deps();
    const { webhook, secret } = await new CreateWebhook(d).execute(actor, { name: 'h', url: 'https://x.example.com', events: ['token.created'] });
    expect(secret).toMatch(/^whsec_/);
    const sealed = d.stored[0]!.sealedSecret;
    expect(Buffer.from(sealed).includes(Buffer.from(secret))).toBe(false);
    const keys = await d.keyring.forTenant('tenant-1');
    expect(keys.openWebhookSecret(webhook.id, sealed)).toBe(secret);
    expect(() => keys.openWebhookSecret('another-webhook', sealed)).toThrow();
    expect(() => keys.openIdempotent(webhook.id, sealed)).toThrow();
    expect(() => keys.open(webhook.id, sealed)).toThrow();
    const other = await d.keyring.forTenant('tenant-2');
    expect(() => other.openWebhookSecret(webhook.id, sealed)).toThrow();
  });
});
