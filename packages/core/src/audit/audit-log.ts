import type { Page, PageRequest } from '../shared/pagination';
import type { AuditEntityType, AuditEvent, ChainedAuditEvent } from './audit-event';
import type { ChainAnchor } from './audit-chain';

/**
 * The stream of events that belong to no tenant: refusals (401) of keys that name none. No tenant's `GET /logs`
 * shows it; `svc audit` reads and verifies it like a tenant's.
 */
export const SYSTEM_AUDIT_STREAM = 'system';

/** `GET /logs` filters; dates are `start ≤ created_at < end`. */
export interface AuditLogFilter {
  readonly entityType?: AuditEntityType | undefined;
  readonly entityId?: string | undefined;
  readonly startDate?: Date | undefined;
  readonly endDate?: Date | undefined;
}

/**
 * Audit events, per tenant (ADR 4). Events of writes arrive as WriteEffects with the write; others (reads, refusals,
 * failures) through `append`. A stored event's content never changes; the chainer only gives it its place
 * (`chainSeq`, `prevHash`, `hash`), once.
 */
export interface AuditLogRepository {
  /** Stores events outside any write, all in one step. */
  append(events: readonly AuditEvent[]): Promise<void>;
  /** A tenant's events matching `filter`, newest first (created_at, then id, both descending), with the total. */
  list(tenantId: string, filter: AuditLogFilter, page: PageRequest): Promise<Page<AuditEvent>>;
  /** Up to `limit` tenants (or streams) that have events not yet chained. */
  unchainedTenants(limit: number): Promise<string[]>;
  /** Up to `limit` of a tenant's events not yet chained, oldest first (created_at, then id). */
  unchained(tenantId: string, limit: number): Promise<AuditEvent[]>;
  /** How many of a tenant's events created before `before` are still not chained. */
  countUnchainedBefore(tenantId: string, before: Date): Promise<number>;
  /** The tenant's chain head: its last chained event, else its anchor (see `prune`), else CHAIN_START. */
  chainHead(tenantId: string): Promise<ChainAnchor>;
  /**
   * Gives `chained` (events of `tenantId` not yet chained, with consecutive places after `head`) their places, in one
   * atomic step, also across processes, and only while `head` is still the tenant's chain head and none of them was
   * chained meanwhile: of two chainers working from the same head, one wins and the other changes nothing. True when
   * applied.
   */
  chain(tenantId: string, head: ChainAnchor, chained: readonly ChainedAuditEvent[]): Promise<boolean>;
  /**
   * The chainer's step (ADR 4): places up to `limit` of the tenant's unchained events, oldest first, after its head,
   * hashed with `key` as `chainAfter` does, in one atomic step (the head read and the places written together, so a
   * concurrent chainer cannot interleave). Returns how many were placed; 0 when there were none or another chainer
   * moved the head first. A store may do the hashing where the rows are (SQLite: on its writer thread).
   */
  chainPending(tenantId: string, key: Uint8Array, limit: number): Promise<number>;
  /**
   * Optional: a store that can chain events as it writes them (SQLite) takes the tenants' audit keys from here; its
   * events are then placed in the write's own transaction and the chainer finds little left to do.
   */
  useChainKeys?(keys: (tenantId: string) => Promise<Uint8Array>): void;
  /** Up to `limit` of a tenant's chained events with `chainSeq` > `afterSeq`, in `chainSeq` order, exactly as stored. */
  chained(tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]>;
  /** Where the tenant's kept chain starts: the last event `prune` removed, else CHAIN_START. */
  anchor(tenantId: string): Promise<ChainAnchor>;
  /** Every tenant (or stream) with events or an anchor. */
  streams(): Promise<string[]>;
  /**
   * Removes, per tenant and in `chainSeq` order from the oldest, chained events created before `before`, stopping at
   * the first that is not; each tenant's anchor moves to its last removed event in the same step, so the chain stays
   * verifiable from the oldest kept event. At most `limit` events per call; returns how many.
   */
  prune(before: Date, limit: number): Promise<number>;
}

export type { AuditEntityType, AuditEvent, ChainedAuditEvent };
