import type { AuditActorType, AuditEntityType, AuditEvent, AuditOutcome, ChainedAuditEvent } from '@svc/core';

/** A row of `audit_events` (migration 15): times in epoch milliseconds, a place in the chain once chained. */
export interface AuditEventRow {
  tenant_id: string;
  id: string;
  actor_id: string;
  actor_type: AuditActorType;
  entity_type: AuditEntityType;
  entity_id: string | null;
  operation: string;
  outcome: AuditOutcome;
  message: string;
  trace_id: string | null;
  created_at: number;
  chain_seq: number | null;
  prev_hash: string | null;
  hash: string | null;
}

/** An event as stored; optional fields stored NULL are absent, as `AuditEffects` builds them. */
export const toAuditEvent = (row: AuditEventRow): AuditEvent => ({
  id: row.id,
  tenantId: row.tenant_id,
  actorId: row.actor_id,
  actorType: row.actor_type,
  entityType: row.entity_type,
  ...(row.entity_id !== null ? { entityId: row.entity_id } : {}),
  operation: row.operation,
  outcome: row.outcome,
  message: row.message,
  ...(row.trace_id !== null ? { traceId: row.trace_id } : {}),
  createdAt: new Date(row.created_at),
});

export const toChained = (row: AuditEventRow): ChainedAuditEvent => ({
  ...toAuditEvent(row),
  chainSeq: row.chain_seq!,
  prevHash: row.prev_hash!,
  hash: row.hash!,
});
