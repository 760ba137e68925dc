/**
 * Audit events (beyond.md §5): who did what to which object, and how it ended. An event never holds token data, keys,
 * nonces or invitation secrets: its message is a fixed text from core that names ids only.
 */

/** What the log records events about, in the singular, as `GET /logs/entity-types` lists them. */
export const AUDIT_ENTITY_TYPES = [
  'token',
  'token_intent',
  'application',
  'session',
  'tenant_member',
  'tenant_invitation',
  'proxy',
  'webhook',
  /** The tenant itself: its settings, members list, permission catalogue and audit log (an addition to §5's list). */
  'tenant',
] as const;
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];

const DISPLAY_NAMES: Readonly<Record<AuditEntityType, string>> = {
  token: 'Token',
  token_intent: 'Token Intent',
  application: 'Application',
  session: 'Session',
  tenant_member: 'Tenant Member',
  tenant_invitation: 'Tenant Invitation',
  proxy: 'Proxy',
  webhook: 'Webhook',
  tenant: 'Tenant',
};

/** `GET /logs/entity-types`: `[{ display_name, value }]` in Basis Theory's shape. */
export function auditEntityTypeCatalogue(): ReadonlyArray<{ readonly displayName: string; readonly value: AuditEntityType }> {
  return AUDIT_ENTITY_TYPES.map((value) => ({ displayName: DISPLAY_NAMES[value], value }));
}

export function isAuditEntityType(value: string): value is AuditEntityType {
  return (AUDIT_ENTITY_TYPES as readonly string[]).includes(value);
}

export type AuditActorType = 'application' | 'session' | 'system';
export type AuditOutcome = 'success' | 'denied' | 'failed';

/** One event as recorded, before the chain gives it a place. */
export interface AuditEvent {
  readonly id: string;
  readonly tenantId: string;
  readonly actorId: string;
  readonly actorType: AuditActorType;
  readonly entityType: AuditEntityType;
  /** Absent for operations on no one object (a search, a list). */
  readonly entityId?: string | undefined;
  /** `create`, `read`, `reveal`, `update`, `delete`, `search`, `tokenize`, `detokenize`, `key.create`… */
  readonly operation: string;
  readonly outcome: AuditOutcome;
  /** A fixed text naming ids only: never data, keys, nonces or secrets. */
  readonly message: string;
  readonly traceId?: string | undefined;
  readonly createdAt: Date;
}

/** An event with its place in its tenant's chain (see audit-chain.ts). */
export interface ChainedAuditEvent extends AuditEvent {
  /** 1 for a tenant's first event, then one more for each. */
  readonly chainSeq: number;
  /** The hash of the event before it in the chain (the anchor's for the first kept event; empty for the very first). */
  readonly prevHash: string;
  readonly hash: string;
}
