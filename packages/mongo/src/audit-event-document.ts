import type { ObjectId } from 'mongodb';
import type { AuditActorType, AuditEntityType, AuditEvent, AuditOutcome, ChainAnchor, ChainedAuditEvent } from '@svc/core';
import { compact, optional } from './documents';

/**
 * An audit event as MongoDB keeps it. `_id` is a driver-generated ObjectId; event ids are unique per tenant (a unique
 * index on `{ tenant_id, id }`). The chain fields are absent until the chainer gives the event its place, once.
 */
export interface AuditEventDocument {
  _id?: ObjectId;
  tenant_id: string;
  id: string;
  actor_id: string;
  actor_type: AuditActorType;
  entity_type: AuditEntityType;
  entity_id?: string | null;
  operation: string;
  outcome: AuditOutcome;
  message: string;
  trace_id?: string | null;
  created_at: Date;
  chain_seq?: number | null;
  prev_hash?: string | null;
  hash?: string | null;
}

/** A tenant's chain head (`audit_heads`) or anchor (`audit_anchors`); `_id` is the tenant (or stream) id. */
export interface ChainPointDocument {
  _id: string;
  chain_seq: number;
  hash: string;
}

/** A new (unchained) event's document: absent optional fields are left out. */
export function toAuditEventDocument(event: AuditEvent): AuditEventDocument {
  return compact<AuditEventDocument>({
    tenant_id: event.tenantId,
    id: event.id,
    actor_id: event.actorId,
    actor_type: event.actorType,
    entity_type: event.entityType,
    entity_id: event.entityId,
    operation: event.operation,
    outcome: event.outcome,
    message: event.message,
    trace_id: event.traceId,
    created_at: event.createdAt,
  });
}

/** The event's content, without its place in the chain (as `list` and `unchained` answer). */
export function fromAuditEventDocument(doc: AuditEventDocument): AuditEvent {
  const entityId = optional(doc.entity_id);
  const traceId = optional(doc.trace_id);
  return {
    id: doc.id,
    tenantId: doc.tenant_id,
    actorId: doc.actor_id,
    actorType: doc.actor_type,
    entityType: doc.entity_type,
    ...(entityId !== undefined ? { entityId } : {}),
    operation: doc.operation,
    outcome: doc.outcome,
    message: doc.message,
    ...(traceId !== undefined ? { traceId } : {}),
    createdAt: doc.created_at,
  };
}

/** A chained event exactly as stored: its place is read back, never recomputed (verify must see what is there). */
export function fromChainedAuditEventDocument(doc: AuditEventDocument): ChainedAuditEvent {
  return { ...fromAuditEventDocument(doc), chainSeq: doc.chain_seq ?? 0, prevHash: doc.prev_hash ?? '', hash: doc.hash ?? '' };
}

/** The update that gives an unchained event its place. */
export function chainPlace(event: ChainedAuditEvent): Pick<AuditEventDocument, 'chain_seq' | 'prev_hash' | 'hash'> {
  return { chain_seq: event.chainSeq, prev_hash: event.prevHash, hash: event.hash };
}

export const fromChainPointDocument = (doc: ChainPointDocument): ChainAnchor => ({ chainSeq: doc.chain_seq, hash: doc.hash });
