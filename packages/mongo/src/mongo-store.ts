import { type Db, MongoClient } from 'mongodb';
import type { Store } from '@svc/core';
import { collectionsOf } from './collections';
import { ensureIndexes } from './indexes';
import { migrateApplicationKeys } from './application-keys-migration';
import { MongoApplicationRepository } from './mongo-application.repository';
import { MongoDataKeyRepository } from './mongo-data-key.repository';
import { MongoMemberRepository, MongoSystemRepository, MongoTenantRepository, MongoUserRepository } from './mongo-directory';
import { MongoInvitationRepository } from './mongo-invitation.repository';
import { MongoSessionRepository } from './mongo-session.repository';
import { MongoTokenRepository } from './mongo-token.repository';
import { MongoTokenIntentRepository } from './mongo-token-intent.repository';
import { MongoIdempotencyRepository } from './mongo-idempotency.repository';
import { MongoWebhookRepository } from './mongo-webhook.repository';
import { MongoWebhookDeliveryRepository } from './mongo-webhook-delivery.repository';
import { MongoAuditLogRepository } from './mongo-audit-log.repository';
import { MongoProxyRepository } from './mongo-proxy.repository';
import { EffectWrites } from './effect-writes';

export interface MongoStoreOptions {
  /** A MongoDB connection string (`mongodb://…` or `mongodb+srv://…`); it may name the database. */
  readonly uri: string;
  /** The database; default: the one named in `uri`, else `svc`. */
  readonly dbName?: string;
  /**
   * TTL indexes on token and session `expires_at` (default true): the server deletes expired documents about a
   * minute after expiry, between sweeps. Reads filter by expiry anyway. Turned off by tests whose fixed dates lie
   * in the past, where the TTL monitor would delete documents mid-test. Switching it for an existing database needs
   * the `tokens_by_expiry` and `sessions_by_expiry` indexes dropped first.
   */
  readonly ttlIndexes?: boolean;
}

/** The database a connection string names (`mongodb://host/name?…`), or undefined when it names none. */
export function databaseNameOf(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/.exec(uri);
  const name = match?.[1] ? decodeURIComponent(match[1]) : '';
  return name === '' ? undefined : name;
}

/**
 * The MongoDB store. Every write is a single-document operation acknowledged by a majority of the replica set and
 * journaled, so an acknowledged write survives a failover or a crash; uniqueness (token ids, deduplication, keys,
 * flags) is enforced by unique indexes, so several `svc serve` processes can share one database. A write that brings
 * audit events or webhook messages (WriteEffects, ADR 4) stores them in a session transaction with the write (see
 * EffectWrites): the audit log and webhooks need a replica set, as `POST /tokenize` does.
 */
export class MongoStore implements Store {
  readonly tenants: MongoTenantRepository;
  readonly users: MongoUserRepository;
  readonly members: MongoMemberRepository;
  readonly applications: MongoApplicationRepository;
  readonly system: MongoSystemRepository;
  readonly dataKeys: MongoDataKeyRepository;
  readonly tokens: MongoTokenRepository;
  readonly sessions: MongoSessionRepository;
  readonly invitations: MongoInvitationRepository;
  readonly tokenIntents: MongoTokenIntentRepository;
  readonly idempotency: MongoIdempotencyRepository;
  readonly webhooks: MongoWebhookRepository;
  readonly webhookDeliveries: MongoWebhookDeliveryRepository;
  readonly auditLog: MongoAuditLogRepository;
  readonly proxies: MongoProxyRepository;

  constructor(
    private readonly client: MongoClient,
    readonly db: Db,
  ) {
    const c = collectionsOf(db);
    const effects = new EffectWrites(client, c);
    this.tenants = new MongoTenantRepository(c.tenants);
    this.users = new MongoUserRepository(c.users);
    this.members = new MongoMemberRepository(c.members, effects);
    this.applications = new MongoApplicationRepository(c.applications, effects);
    this.system = new MongoSystemRepository(c.systemFlags);
    this.dataKeys = new MongoDataKeyRepository(c.dataKeys);
    this.tokens = new MongoTokenRepository(c.tokens, client, effects, c.tokenIntents);
    this.sessions = new MongoSessionRepository(c.sessions, effects);
    this.invitations = new MongoInvitationRepository(c.invitations, effects);
    this.tokenIntents = new MongoTokenIntentRepository(c.tokenIntents, effects);
    this.idempotency = new MongoIdempotencyRepository(c.idempotency);
    this.webhooks = new MongoWebhookRepository(c.webhooks, c.webhookCounts, c.webhookDeliveries, effects);
    this.webhookDeliveries = new MongoWebhookDeliveryRepository(c.webhookDeliveries);
    this.auditLog = new MongoAuditLogRepository(c.auditEvents, c.auditHeads, c.auditAnchors, client);
    this.proxies = new MongoProxyRepository(c.proxies, c.proxyCounts, effects);
  }

  /** The server's ping, within 5 s (the driver would otherwise wait for server selection far longer). */
  async ping(): Promise<void> {
    await this.db.command({ ping: 1 }, { timeoutMS: 5_000 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** Connects, creates the indexes (idempotently, so every process may) and returns the store. */
export async function openMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const client = new MongoClient(options.uri, {
    appName: 'svc',
    writeConcern: { w: 'majority', journal: true },
    // Undefined fields are left out of documents rather than written as null.
    ignoreUndefined: true,
  });
  try {
    await client.connect();
    const db = client.db(options.dbName ?? databaseNameOf(options.uri) ?? 'svc');
    await migrateApplicationKeys(collectionsOf(db).applications);
    await ensureIndexes(db, { ttl: options.ttlIndexes ?? true });
    return new MongoStore(client, db);
  } catch (error) {
    await client.close();
    throw error;
  }
}
