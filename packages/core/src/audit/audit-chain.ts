import { createHmac, type KeyObject } from 'node:crypto';
import type { AuditEvent, ChainedAuditEvent } from './audit-event';
import type { Complete } from '../shared/complete';

/**
 * The per-tenant tamper-evident chain of audit events (ADR 4): each event's hash is a keyed hash (HMAC-SHA256 under
 * the tenant's audit key) over the previous event's hash and the event's own content. Altering an event breaks its
 * hash; removing one breaks the sequence and the next event's link; reordering breaks both. Without the key, a
 * rewritten chain cannot be made to verify.
 */

/** The fields a hash covers, in a fixed order, as text: the same event always gives the same bytes. */
export function canonicalAuditEvent(event: AuditEvent, chainSeq: number): string {
  return JSON.stringify([
    'svc/audit/v1',
    chainSeq,
    event.id,
    event.tenantId,
    event.actorId,
    event.actorType,
    event.entityType,
    event.entityId ?? null,
    event.operation,
    event.outcome,
    event.message,
    event.traceId ?? null,
    event.createdAt.toISOString(),
  ]);
}

/** `key` is the tenant's audit key, as bytes or (cheaper when one key hashes many events) as a secret KeyObject. */
export function auditHash(key: Uint8Array | KeyObject, prevHash: string, event: AuditEvent, chainSeq: number): string {
  return createHmac('sha256', key).update(prevHash).update('\n').update(canonicalAuditEvent(event, chainSeq)).digest('base64url');
}

/** Where a chain starts: nothing (a tenant's first event), or the last event the retention sweep removed. */
export interface ChainAnchor {
  readonly chainSeq: number;
  readonly hash: string;
}

export const CHAIN_START: ChainAnchor = { chainSeq: 0, hash: '' };

/** The place `event` takes right after `prev`: its number, its link to `prev` and its hash. */
export function chainLink(
  key: Uint8Array | KeyObject,
  prev: ChainAnchor,
  event: AuditEvent,
): Pick<ChainedAuditEvent, 'chainSeq' | 'prevHash' | 'hash'> {
  const chainSeq = prev.chainSeq + 1;
  return { chainSeq, prevHash: prev.hash, hash: auditHash(key, prev.hash, event, chainSeq) };
}

/** Places `events` (in the order given) after `head`. */
export function chainAfter(key: Uint8Array, head: ChainAnchor, events: readonly AuditEvent[]): ChainedAuditEvent[] {
  const chained: ChainedAuditEvent[] = [];
  let prev = head;
  for (const event of events) {
    const link = chainLink(key, prev, event);
    // Written out, not `{ ...event, ...link }`: see Complete.
    const placed: Complete<ChainedAuditEvent> = {
      id: event.id,
      tenantId: event.tenantId,
      actorId: event.actorId,
      actorType: event.actorType,
      entityType: event.entityType,
      entityId: event.entityId,
      operation: event.operation,
      outcome: event.outcome,
      message: event.message,
      traceId: event.traceId,
      createdAt: event.createdAt,
      chainSeq: link.chainSeq,
      prevHash: link.prevHash,
      hash: link.hash,
    };
    chained.push(placed);
    prev = { chainSeq: link.chainSeq, hash: link.hash };
  }
  return chained;
}

export type ChainProblem = 'altered' | 'removed' | 'reordered';

export type ChainVerdict =
  | { readonly ok: true; readonly checked: number; readonly head: ChainAnchor }
  | { readonly ok: false; readonly checked: number; readonly eventId: string; readonly chainSeq: number; readonly problem: ChainProblem };

/**
 * Walks a tenant's chained events as stored, in stored `chainSeq` order, from `anchor`, and names the first event
 * that was altered (its hash does not match its content), removed (a number is missing before it) or reordered (its
 * link is to another event than the one before it).
 */
export function verifyAuditChain(key: Uint8Array, anchor: ChainAnchor, events: readonly ChainedAuditEvent[]): ChainVerdict {
  let prev = anchor;
  let checked = 0;
  for (const event of events) {
    if (event.chainSeq !== prev.chainSeq + 1) {
      // A number skipped is an event removed; a number repeated or going back, events moved.
      const problem: ChainProblem = event.chainSeq > prev.chainSeq + 1 ? 'removed' : 'reordered';
      return { ok: false, checked, eventId: event.id, chainSeq: event.chainSeq, problem };
    }
    if (event.prevHash !== prev.hash) return { ok: false, checked, eventId: event.id, chainSeq: event.chainSeq, problem: 'reordered' };
    if (hashOrUndefined(key, event) !== event.hash) {
      return { ok: false, checked, eventId: event.id, chainSeq: event.chainSeq, problem: 'altered' };
    }
    prev = { chainSeq: event.chainSeq, hash: event.hash };
    checked++;
  }
  return { ok: true, checked, head: prev };
}

/** An event's hash, or undefined when its stored content cannot even be hashed (a row edited to an invalid time). */
function hashOrUndefined(key: Uint8Array, event: ChainedAuditEvent): string | undefined {
  try {
    return auditHash(key, event.prevHash, event, event.chainSeq);
  } catch {
    return undefined;
  }
}
