import type { Db, IndexDescription } from 'mongodb';
import { type CollectionName, COLLECTIONS } from './collections';
import { errorCode } from './mongo-errors';

export interface IndexPlanOptions {
  /** TTL on token and session expiry (default true); see {@link MongoStoreOptions.ttlIndexes}. */
  readonly ttl: boolean;
}

const exists = (field: string): { [field: string]: { $exists: true } } => ({ [field]: { $exists: true } });

/** Expiry: a partial index (only documents that expire), with the TTL monitor deleting them when `ttl` is on. */
function expiryIndex(name: string, field: string, ttl: boolean): IndexDescription {
  return { key: { [field]: 1 }, name, partialFilterExpression: exists(field), ...(ttl ? { expireAfterSeconds: 0 } : {}) };
}

/**
 * Every index of the store, by collection. Tenant-scoped lookups lead with `tenant_id`, so one tenant's queries
 * read only that tenant's keys (and `tenant_id` is the natural shard key). List indexes end with the list order,
 * `created_at` then id, both descending, so a page is read in index order without a sort. Collections not named
 * here (tenants, system_flags, data_keys) are read by `_id` only.
 */
export function indexPlan(options: IndexPlanOptions): Readonly<Partial<Record<CollectionName, readonly IndexDescription[]>>> {
  return {
    [COLLECTIONS.tokens]: [
      { key: { tenant_id: 1, id: 1 }, name: 'tokens_by_id', unique: true },
      { key: { tenant_id: 1, created_at: -1, id: -1 }, name: 'tokens_by_created' },
      { key: { tenant_id: 1, type: 1, created_at: -1, id: -1 }, name: 'tokens_by_type' },
      { key: { tenant_id: 1, container: 1, created_at: -1, id: -1 }, name: 'tokens_by_container' },
      { key: { tenant_id: 1, fingerprint: 1, type: 1, created_at: 1 }, name: 'tokens_by_fingerprint' },
      { key: { tenant_id: 1, type: 1, fingerprint: 1 }, name: 'tokens_dedup_claim', unique: true, partialFilterExpression: { dedup_claim: true } },
      { key: { tenant_id: 1, index_hashes: 1 }, name: 'tokens_by_index_hash' },
      { key: { tenant_id: 1, metadata_pairs: 1 }, name: 'tokens_by_metadata' },
      { key: { tenant_id: 1, created_by: 1 }, name: 'tokens_by_creator' },
      expiryIndex('tokens_by_expiry', 'expires_at', options.ttl),
      { key: { cvc_expires_at: 1 }, name: 'tokens_by_cvc_due', partialFilterExpression: exists('cvc_expires_at') },
    ],
    [COLLECTIONS.applications]: [
      // Partial: an application whose every key was revoked holds an empty array, which a plain unique index would
      // count as one shared null value.
      { key: { 'keys.key_hash': 1 }, name: 'applications_by_key_hash', unique: true, partialFilterExpression: exists('keys.key_hash') },
      { key: { tenant_id: 1, created_at: -1, _id: -1 }, name: 'applications_by_tenant' },
      // No TTL: the sweeper deletes expired applications, and authentication already refuses them.
      expiryIndex('applications_by_expiry', 'expires_at', false),
    ],
    [COLLECTIONS.users]: [{ key: { email_lower: 1 }, name: 'users_by_email', unique: true }],
    [COLLECTIONS.members]: [
      { key: { tenant_id: 1, user_id: 1 }, name: 'members_by_user', unique: true },
      { key: { tenant_id: 1, created_at: -1, _id: -1 }, name: 'members_by_tenant' },
    ],
    [COLLECTIONS.sessions]: [
      { key: { key_hash: 1 }, name: 'sessions_by_key', unique: true },
      { key: { nonce_hash: 1 }, name: 'sessions_by_nonce', unique: true },
      { key: { tenant_id: 1, application_id: 1 }, name: 'sessions_by_application' },
      // Every session expires, so the index holds them all (no partial filter).
      { key: { expires_at: 1 }, name: 'sessions_by_expiry', ...(options.ttl ? { expireAfterSeconds: 0 } : {}) },
    ],
    [COLLECTIONS.invitations]: [
      { key: { tenant_id: 1, email_lower: 1 }, name: 'invitations_by_email', unique: true },
      { key: { secret_hash: 1 }, name: 'invitations_by_secret', unique: true },
      { key: { tenant_id: 1, created_at: -1, _id: -1 }, name: 'invitations_by_tenant' },
    ],
    // Read by `_id` (and tenant); the sweeper finds expired ones by expiry. No TTL: see MongoTokenIntentRepository.
    [COLLECTIONS.tokenIntents]: [{ key: { expires_at: 1 }, name: 'token_intents_by_expiry' }],
    // Unique by `_id` (tenant, caller, key); the sweeper deletes expired ones (no TTL: claims take expired ones over).
    [COLLECTIONS.idempotency]: [{ key: { expires_at: 1 }, name: 'idempotency_keys_by_expiry' }],
    // Read by `_id` and tenant; listed newest first per tenant. The counters (webhook_counts) are read by `_id` only.
    [COLLECTIONS.webhooks]: [{ key: { tenant_id: 1, created_at: -1, _id: -1 }, name: 'webhooks_by_tenant' }],
    [COLLECTIONS.webhookDeliveries]: [
      // One delivery of an event to a webhook; also a webhook's pending ones (failPending) and its deletion.
      { key: { tenant_id: 1, webhook_id: 1, event_id: 1 }, name: 'webhook_deliveries_by_key', unique: true },
      { key: { tenant_id: 1, webhook_id: 1, created_at: -1, event_id: -1 }, name: 'webhook_deliveries_by_webhook' },
      // The dispatcher's queue across tenants, in lease order (DUE_ORDER); also the backlog count and the prune.
      { key: { status: 1, next_attempt_at: 1, created_at: 1, event_id: 1, webhook_id: 1 }, name: 'webhook_deliveries_due' },
    ],
    // No TTL: the retention sweep deletes events in chain order and moves the anchor (a TTL would break the chain).
    [COLLECTIONS.auditEvents]: [
      { key: { tenant_id: 1, id: 1 }, name: 'audit_events_by_id', unique: true },
      { key: { tenant_id: 1, created_at: -1, id: -1 }, name: 'audit_events_by_created' },
      { key: { tenant_id: 1, entity_type: 1, created_at: -1, id: -1 }, name: 'audit_events_by_entity_type' },
      { key: { tenant_id: 1, entity_id: 1, created_at: -1, id: -1 }, name: 'audit_events_by_entity' },
      // A tenant's chain in order, and (chain_seq null) its unchained events oldest first.
      { key: { tenant_id: 1, chain_seq: 1, created_at: 1, id: 1 }, name: 'audit_events_by_chain' },
      // The tenants with unchained events, across tenants (the chainer asks every 100 ms).
      { key: { chain_seq: 1, tenant_id: 1 }, name: 'audit_events_unchained' },
    ],
    // audit_heads and audit_anchors are read by `_id` (the tenant) only.
    // A key finds its proxy whatever the tenant (unique); listed newest first per tenant. Counters: by `_id` only.
    [COLLECTIONS.proxies]: [
      { key: { key_hash: 1 }, name: 'proxies_by_key_hash', unique: true },
      { key: { tenant_id: 1, created_at: -1, _id: -1 }, name: 'proxies_by_tenant' },
    ],
  };
}

/** Codes a concurrent start may see while another process creates the same collection or index. */
const RETRIED_CODES = new Set([48 /* NamespaceExists */, 68 /* IndexAlreadyExists */, 276 /* IndexBuildAlreadyInProgress */]);
const ATTEMPTS = 5;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function createIndexes(db: Db, name: string, indexes: readonly IndexDescription[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.collection(name).createIndexes([...indexes]);
      return;
    } catch (error) {
      const code = errorCode(error);
      if (attempt >= ATTEMPTS || code === undefined || !RETRIED_CODES.has(code)) throw error;
      await pause(200 * attempt);
    }
  }
}

/**
 * Creates every index of {@link indexPlan}. Idempotent: an index that exists with the same name, keys and options
 * is left as it is, so every process runs this on start. An index that exists with other options (TTL switched
 * on or off) is an error naming it: drop it and start again.
 */
export async function ensureIndexes(db: Db, options: IndexPlanOptions): Promise<void> {
  await Promise.all(Object.entries(indexPlan(options)).map(([name, indexes]) => createIndexes(db, name, indexes)));
}
