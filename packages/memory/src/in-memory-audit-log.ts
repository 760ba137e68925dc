import {
  CHAIN_START,
  chainPendingThrough,
  type AuditEvent,
  type AuditLogFilter,
  type AuditLogRepository,
  type ChainAnchor,
  type ChainedAuditEvent,
  type Page,
  type PageRequest,
} from '@svc/core';
import { paginate } from './paginate';

/** An event as kept: its content, and its place once chained. */
type Kept = AuditEvent & Partial<Pick<ChainedAuditEvent, 'chainSeq' | 'prevHash' | 'hash'>>;

const oldestFirst = (a: AuditEvent, b: AuditEvent): number =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const isChained = (e: Kept): e is ChainedAuditEvent => e.chainSeq !== undefined;

/** The audit log in memory. Every method runs to completion without awaiting, so each is atomic. */
export class InMemoryAuditLogRepository implements AuditLogRepository {
  /** Tenant → event id → event. */
  private readonly events = new Map<string, Map<string, Kept>>();
  private readonly anchors = new Map<string, ChainAnchor>();

  /** Stores events now, in the caller's step (writes call this with their effects). */
  keep(events: readonly AuditEvent[]): void {
    for (const event of events) {
      let ofTenant = this.events.get(event.tenantId);
      if (!ofTenant) this.events.set(event.tenantId, (ofTenant = new Map()));
      if (ofTenant.has(event.id)) throw new Error('duplicate audit event id');
      ofTenant.set(event.id, event);
    }
  }

  async append(events: readonly AuditEvent[]): Promise<void> {
    this.keep(events);
  }

  async list(tenantId: string, filter: AuditLogFilter, page: PageRequest): Promise<Page<AuditEvent>> {
    const matches = this.of(tenantId).filter(
      (e) =>
        (!filter.entityType || e.entityType === filter.entityType) &&
        (filter.entityId === undefined || e.entityId === filter.entityId) &&
        (!filter.startDate || e.createdAt.getTime() >= filter.startDate.getTime()) &&
        (!filter.endDate || e.createdAt.getTime() < filter.endDate.getTime()),
    );
    return paginate(matches.map(content), page);
  }

  async unchainedTenants(limit: number): Promise<string[]> {
    return [...this.events.keys()].filter((t) => this.of(t).some((e) => !isChained(e))).slice(0, limit);
  }

  async unchained(tenantId: string, limit: number): Promise<AuditEvent[]> {
    return this.of(tenantId)
      .filter((e) => !isChained(e))
      .sort(oldestFirst)
      .slice(0, limit)
      .map(content);
  }

  async countUnchainedBefore(tenantId: string, before: Date): Promise<number> {
    return this.of(tenantId).filter((e) => !isChained(e) && e.createdAt.getTime() < before.getTime()).length;
  }

  async chainHead(tenantId: string): Promise<ChainAnchor> {
    return this.head(tenantId);
  }

  async chain(tenantId: string, head: ChainAnchor, chained: readonly ChainedAuditEvent[]): Promise<boolean> {
    const current = this.head(tenantId);
    if (current.chainSeq !== head.chainSeq || current.hash !== head.hash) return false;
    const ofTenant = this.events.get(tenantId);
    if (!chained.every((e) => e.tenantId === tenantId && ofTenant?.get(e.id) && !isChained(ofTenant.get(e.id)!))) return false;
    for (const e of chained) {
      ofTenant!.set(e.id, { ...ofTenant!.get(e.id)!, chainSeq: e.chainSeq, prevHash: e.prevHash, hash: e.hash });
    }
    return true;
  }

  chainPending(tenantId: string, key: Uint8Array, limit: number): Promise<number> {
    return chainPendingThrough(this, tenantId, key, limit);
  }

  async chained(tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]> {
    return this.chainOf(tenantId)
      .filter((e) => e.chainSeq > afterSeq)
      .slice(0, limit)
      .map((e) => ({ ...e }));
  }

  async anchor(tenantId: string): Promise<ChainAnchor> {
    return this.anchors.get(tenantId) ?? CHAIN_START;
  }

  async streams(): Promise<string[]> {
    return [...new Set([...[...this.events].filter(([, m]) => m.size > 0).map(([t]) => t), ...this.anchors.keys()])];
  }

  async prune(before: Date, limit: number): Promise<number> {
    let removed = 0;
    for (const tenantId of [...this.events.keys()]) {
      for (const event of this.chainOf(tenantId)) {
        if (removed >= limit || event.createdAt.getTime() >= before.getTime()) break;
        this.events.get(tenantId)!.delete(event.id);
        this.anchors.set(tenantId, { chainSeq: event.chainSeq, hash: event.hash });
        removed++;
      }
    }
    return removed;
  }

  /** Every event, for tests that inspect or tamper with what the store holds. */
  all(): readonly Kept[] {
    return [...this.events.values()].flatMap((m) => [...m.values()]);
  }

  /** Replaces a stored event as it is, for tests that tamper with the log. */
  overwrite(event: Kept): void {
    this.events.get(event.tenantId)?.set(event.id, event);
  }

  private of(tenantId: string): Kept[] {
    return [...(this.events.get(tenantId)?.values() ?? [])];
  }

  private chainOf(tenantId: string): ChainedAuditEvent[] {
    return this.of(tenantId)
      .filter(isChained)
      .sort((a, b) => a.chainSeq - b.chainSeq);
  }

  private head(tenantId: string): ChainAnchor {
    const chain = this.chainOf(tenantId);
    const last = chain[chain.length - 1];
    return last ? { chainSeq: last.chainSeq, hash: last.hash } : (this.anchors.get(tenantId) ?? CHAIN_START);
  }
}

/** An event without its place in the chain, as `list` answers. */
function content(event: Kept): AuditEvent {
  const { chainSeq: _seq, prevHash: _prev, hash: _hash, ...rest } = event;
  return rest;
}
