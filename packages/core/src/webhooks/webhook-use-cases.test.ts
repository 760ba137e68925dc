import { FixedClock } from '../../testing/fixed-clock';
import { SequentialIds } from '../../testing/sequential-ids';
import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import type { Actor } from '../auth/actor';
import { Keyring } from '../crypto/keyring';
import type { HostResolver } from '../outbound/host-resolver';
import { OutboundPolicy } from '../outbound/outbound-policy';
import { ValidationError } from '../shared/errors';
import { CryptoRandomSource } from '../shared/random';
import type { Webhook, WebhookRepository } from './webhook';
import { CreateWebhook, UpdateWebhook, type WebhookDeps } from './webhook-use-cases';

const actor: Actor = {
  tenantId: 'tenant-1',
  kind: 'application',
  applicationId: 'app-1',
  applicationType: 'management',
  permissions: ['webhook:create', 'webhook:read', 'webhook:update'],
  rules: [],
  authorized: true,
};

/** `vm` and `internal.example.com` resolve to private addresses, `hooks.example.com` to a public one; no other name resolves. */
const resolver: HostResolver = {
  resolve: async (hostname) => {
    const names: Record<string, string[]> = { vm: ['127.0.0.1'], 'internal.example.com': ['93.184.216.34', '10.0.0.8'], 'hooks.example.com': ['93.184.216.34'] };
    const addresses = names[hostname];
    return addresses ? { kind: 'resolved', addresses } : { kind: 'unresolved' };
  },
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
  return { webhooks, keyring, clock, ids: new SequentialIds(), random, policy: new OutboundPolicy(), resolver, stored };
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

describe('a webhook url the outbound policy refuses', () => {
  const input = (url: string) => ({ name: 'h', url, events: ['token.created'] });
  const refusal = async (run: Promise<unknown>) => {
    const error = await run.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors;
  };

  it.each(['https://localhost/', 'https://x.localhost/', 'https://vm/', 'https://internal.example.com/in', 'https://metadata.google.internal/', 'https://example.com:0/', 'https://192.0.2.1/'])(
    'is refused at create and at update, naming url and changing nothing: %s',
    async (url) => {
      const d = deps();
      expect(Object.keys(await refusal(new CreateWebhook(d).execute(actor, input(url))))).toEqual(['url']);
      expect(d.stored).toEqual([]);
      const { webhook } = await new CreateWebhook(d).execute(actor, input('https://hooks.example.com/in'));
      expect(Object.keys(await refusal(new UpdateWebhook(d).execute(actor, webhook.id, input(url))))).toEqual(['url']);
      expect(d.stored.map((w) => w.url)).toEqual(['https://hooks.example.com/in']);
    },
  );

  it('is not a name that does not resolve yet: delivery resolves and checks it again', async () => {
    const { webhook } = await new CreateWebhook(deps()).execute(actor, input('https://later.example.com/in'));
    expect(webhook.url).toBe('https://later.example.com/in');
  });

  it('is not a name SVC_OUTBOUND_ALLOW lists, whatever it resolves to', async () => {
    const d = { ...deps(), policy: OutboundPolicy.fromAllowList('vm,localhost:8443') };
    await new CreateWebhook(d).execute(actor, input('https://vm/in'));
    await new CreateWebhook(d).execute(actor, input('https://localhost:8443/in'));
    expect(d.stored.map((w) => w.url)).toEqual(['https://vm/in', 'https://localhost:8443/in']);
  });
});
