import { indexPlan } from './indexes';

const GLOBAL_LOOKUPS = ['key_hash', 'keys.key_hash', 'nonce_hash', 'secret_hash', 'email_lower', 'expires_at', 'cvc_expires_at', 'status', 'chain_seq'];

describe('index plan', () => {
  const plan = indexPlan({ ttl: true });
  const all = Object.entries(plan).flatMap(([collection, indexes]) => (indexes ?? []).map((index) => ({ collection, ...index })));

  it('pins the token indexes: tenant-led lookups, the unique id and deduplication keys, expiry and cvc queues', () => {
    expect(plan.tokens).toEqual([
      { key: { tenant_id: 1, id: 1 }, name: 'tokens_by_id', unique: true },
      { key: { tenant_id: 1, created_at: -1, id: -1 }, name: 'tokens_by_created' },
      { key: { tenant_id: 1, type: 1, created_at: -1, id: -1 }, name: 'tokens_by_type' },
      { key: { tenant_id: 1, container: 1, created_at: -1, id: -1 }, name: 'tokens_by_container' },
      { key: { tenant_id: 1, fingerprint: 1, type: 1, created_at: 1 }, name: 'tokens_by_fingerprint' },
      { key: { tenant_id: 1, type: 1, fingerprint: 1 }, name: 'tokens_dedup_claim', unique: true, partialFilterExpression: { dedup_claim: true } },
      { key: { tenant_id: 1, index_hashes: 1 }, name: 'tokens_by_index_hash' },
      { key: { tenant_id: 1, metadata_pairs: 1 }, name: 'tokens_by_metadata' },
      { key: { tenant_id: 1, created_by: 1 }, name: 'tokens_by_creator' },
      { key: { expires_at: 1 }, name: 'tokens_by_expiry', partialFilterExpression: { expires_at: { $exists: true } }, expireAfterSeconds: 0 },
      { key: { cvc_expires_at: 1 }, name: 'tokens_by_cvc_due', partialFilterExpression: { cvc_expires_at: { $exists: true } } },
    ]);
  });

  it('leads every other index with tenant_id, except the global key, nonce, secret, e-mail, expiry and queue lookups', () => {
    for (const index of all) {
      const [first] = Object.keys(index.key);
      expect(first === 'tenant_id' || GLOBAL_LOOKUPS.includes(first!)).toBe(true);
    }
  });

  it('makes keys, nonces, secrets, e-mails, memberships, audit event ids, deliveries and proxy keys unique', () => {
    const unique = all.filter((i) => i.unique).map((i) => i.name);
    expect(unique.sort()).toEqual(
      [
        'applications_by_key_hash',
        'audit_events_by_id',
        'invitations_by_email',
        'invitations_by_secret',
        'members_by_user',
        'proxies_by_key_hash',
        'sessions_by_key',
        'sessions_by_nonce',
        'tokens_by_id',
        'tokens_dedup_claim',
        'users_by_email',
        'webhook_deliveries_by_key',
      ].sort(),
    );
  });

  it('puts a TTL on token and session expiry only, and none when TTL is off', () => {
    expect(all.filter((i) => i.expireAfterSeconds !== undefined).map((i) => [i.name, i.expireAfterSeconds])).toEqual([
      ['tokens_by_expiry', 0],
      ['sessions_by_expiry', 0],
    ]);
    const off = Object.values(indexPlan({ ttl: false })).flatMap((indexes) => indexes ?? []);
    expect(off.some((i) => i.expireAfterSeconds !== undefined)).toBe(false);
    expect(off.map((i) => i.name)).toEqual(all.map((i) => i.name));
  });

  it('serves the audit log: listing, filters, the chain, unchained events, and no TTL on events', () => {
    expect(plan.audit_events?.map((i) => [i.name, i.key])).toEqual([
      ['audit_events_by_id', { tenant_id: 1, id: 1 }],
      ['audit_events_by_created', { tenant_id: 1, created_at: -1, id: -1 }],
      ['audit_events_by_entity_type', { tenant_id: 1, entity_type: 1, created_at: -1, id: -1 }],
      ['audit_events_by_entity', { tenant_id: 1, entity_id: 1, created_at: -1, id: -1 }],
      ['audit_events_by_chain', { tenant_id: 1, chain_seq: 1, created_at: 1, id: 1 }],
      ['audit_events_unchained', { chain_seq: 1, tenant_id: 1 }],
    ]);
  });

  it('serves the delivery queue in lease order, and a webhook\'s deliveries newest first', () => {
    expect(plan.webhook_deliveries?.map((i) => [i.name, i.key])).toEqual([
      ['webhook_deliveries_by_key', { tenant_id: 1, webhook_id: 1, event_id: 1 }],
      ['webhook_deliveries_by_webhook', { tenant_id: 1, webhook_id: 1, created_at: -1, event_id: -1 }],
      ['webhook_deliveries_due', { status: 1, next_attempt_at: 1, created_at: 1, event_id: 1, webhook_id: 1 }],
    ]);
  });

  it('finds a proxy by its key hash across tenants, and lists a tenant\'s proxies in list order', () => {
    expect(plan.proxies).toEqual([
      { key: { key_hash: 1 }, name: 'proxies_by_key_hash', unique: true },
      { key: { tenant_id: 1, created_at: -1, _id: -1 }, name: 'proxies_by_tenant' },
    ]);
  });

  it('names every index once', () => {
    expect(new Set(all.map((i) => i.name)).size).toBe(all.length);
  });
});
