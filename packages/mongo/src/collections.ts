import type { Collection, Db } from 'mongodb';
import type { ApplicationDocument } from './application-document';
import type { MemberDocument, SystemFlagDocument, TenantDocument, UserDocument } from './directory-documents';
import type { InvitationDocument } from './invitation-document';
import type { DataKeyDocument } from './mongo-data-key.repository';
import type { SessionDocument } from './session-document';
import type { TokenDocument } from './token-document';
import type { TokenIntentDocument } from './token-intent-document';
import type { IdempotencyDocument } from './mongo-idempotency.repository';
import type { WebhookCountDocument, WebhookDocument } from './mongo-webhook.repository';
import type { AuditEventDocument, ChainPointDocument } from './audit-event-document';
import type { WebhookDeliveryDocument } from './webhook-delivery-document';
import type { ProxyCountDocument, ProxyDocument } from './proxy-document';

/** The collection of each kind of document, by name. */
export const COLLECTIONS = {
  tenants: 'tenants',
  users: 'users',
  members: 'members',
  applications: 'applications',
  systemFlags: 'system_flags',
  dataKeys: 'data_keys',
  tokens: 'tokens',
  sessions: 'sessions',
  invitations: 'invitations',
  tokenIntents: 'token_intents',
  idempotency: 'idempotency_keys',
  webhooks: 'webhooks',
  webhookCounts: 'webhook_counts',
  webhookDeliveries: 'webhook_deliveries',
  auditEvents: 'audit_events',
  auditHeads: 'audit_heads',
  auditAnchors: 'audit_anchors',
  proxies: 'proxies',
  proxyCounts: 'proxy_counts',
} as const;

export type CollectionName = (typeof COLLECTIONS)[keyof typeof COLLECTIONS];

/** The store's collections, typed by their documents. */
export interface MongoCollections {
  readonly tenants: Collection<TenantDocument>;
  readonly users: Collection<UserDocument>;
  readonly members: Collection<MemberDocument>;
  readonly applications: Collection<ApplicationDocument>;
  readonly systemFlags: Collection<SystemFlagDocument>;
  readonly dataKeys: Collection<DataKeyDocument>;
  readonly tokens: Collection<TokenDocument>;
  readonly sessions: Collection<SessionDocument>;
  readonly invitations: Collection<InvitationDocument>;
  readonly tokenIntents: Collection<TokenIntentDocument>;
  readonly idempotency: Collection<IdempotencyDocument>;
  readonly webhooks: Collection<WebhookDocument>;
  readonly webhookCounts: Collection<WebhookCountDocument>;
  readonly webhookDeliveries: Collection<WebhookDeliveryDocument>;
  readonly auditEvents: Collection<AuditEventDocument>;
  readonly auditHeads: Collection<ChainPointDocument>;
  readonly auditAnchors: Collection<ChainPointDocument>;
  readonly proxies: Collection<ProxyDocument>;
  readonly proxyCounts: Collection<ProxyCountDocument>;
}

export function collectionsOf(db: Db): MongoCollections {
  return {
    tenants: db.collection<TenantDocument>(COLLECTIONS.tenants),
    users: db.collection<UserDocument>(COLLECTIONS.users),
    members: db.collection<MemberDocument>(COLLECTIONS.members),
    applications: db.collection<ApplicationDocument>(COLLECTIONS.applications),
    systemFlags: db.collection<SystemFlagDocument>(COLLECTIONS.systemFlags),
    dataKeys: db.collection<DataKeyDocument>(COLLECTIONS.dataKeys),
    tokens: db.collection<TokenDocument>(COLLECTIONS.tokens),
    sessions: db.collection<SessionDocument>(COLLECTIONS.sessions),
    invitations: db.collection<InvitationDocument>(COLLECTIONS.invitations),
    tokenIntents: db.collection<TokenIntentDocument>(COLLECTIONS.tokenIntents),
    idempotency: db.collection<IdempotencyDocument>(COLLECTIONS.idempotency),
    webhooks: db.collection<WebhookDocument>(COLLECTIONS.webhooks),
    webhookCounts: db.collection<WebhookCountDocument>(COLLECTIONS.webhookCounts),
    webhookDeliveries: db.collection<WebhookDeliveryDocument>(COLLECTIONS.webhookDeliveries),
    auditEvents: db.collection<AuditEventDocument>(COLLECTIONS.auditEvents),
    auditHeads: db.collection<ChainPointDocument>(COLLECTIONS.auditHeads),
    auditAnchors: db.collection<ChainPointDocument>(COLLECTIONS.auditAnchors),
    proxies: db.collection<ProxyDocument>(COLLECTIONS.proxies),
    proxyCounts: db.collection<ProxyCountDocument>(COLLECTIONS.proxyCounts),
  };
}
