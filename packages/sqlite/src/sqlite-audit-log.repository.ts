import type { Database, Statement } from 'better-sqlite3';
import {
  type AuditActorType,
  type AuditEntityType,
  type AuditEvent,
  type AuditLogFilter,
  type AuditLogRepository,
  type AuditOutcome,
  CHAIN_START,
  type ChainAnchor,
  type ChainedAuditEvent,
  type Page,
  type PageRequest,
} from '@svc/core';
import type { EffectWrites } from './effect-writes';
import { selectPage } from './rows';

interface AuditEventRow {
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
const toAuditEvent = (row: AuditEventRow): AuditEvent => ({
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

const toChained = (row: AuditEventRow): ChainedAuditEvent => ({
  ...toAuditEvent(row),
  chainSeq: row.chain_seq!,
  prevHash: row.prev_hash!,
  hash: row.hash!,
});

/** Thrown inside a transaction to undo it; never leaves this module. */
const ROLL_BACK = Symbol('roll back');

/**
 * The audit log on the main connection (ADR 4). Events of writes arrive with the writes (EffectWrites, on whichever
 * connection ran the write); this repository appends the others, lists, and serves the chainer, `svc audit verify`
 * and the retention sweep. Chaining and pruning run in IMMEDIATE transactions: they hold the file's write lock from
 * their first read of the chain head, so two chainers (or a chainer and the sweep), from this process or another,
 * never interleave.
 */
export class SqliteAuditLogRepository implements AuditLogRepository {
  private readonly unchainedOf: Statement;
  private readonly unchainedBefore: Statement;
  private readonly nextUnchainedTenant: Statement;
  private readonly lastChained: Statement;
  private readonly anchorOf: Statement;
  private readonly place: Statement;
  private readonly chainedAfter: Statement;
  private readonly nextStream: Statement;
  private readonly nextAnchored: Statement;
  private readonly nextChainedTenant: Statement;
  private readonly oldestChained: Statement;
  private readonly removeUpTo: Statement;
  private readonly moveAnchor: Statement;

  constructor(
    private readonly db: Database,
    private readonly effects: EffectWrites,
  ) {
    this.unchainedOf = db.prepare(`SELECT * FROM audit_events WHERE tenant_id = ? AND chain_seq IS NULL
      ORDER BY created_at, id LIMIT ?`);
    this.unchainedBefore = db
      .prepare('SELECT COUNT(*) FROM audit_events WHERE tenant_id = ? AND chain_seq IS NULL AND created_at < ?')
      .pluck();
    // Tenants one index seek each (a skip scan of the partial index), rather than a DISTINCT over every event.
    this.nextUnchainedTenant = db
      .prepare('SELECT MIN(tenant_id) FROM audit_events WHERE chain_seq IS NULL AND tenant_id > ?')
      .pluck();
    this.nextStream = db.prepare('SELECT MIN(tenant_id) FROM audit_events WHERE tenant_id > ?').pluck();
    this.nextAnchored = db.prepare('SELECT MIN(tenant_id) FROM audit_anchors WHERE tenant_id > ?').pluck();
    this.nextChainedTenant = db
      .prepare('SELECT MIN(tenant_id) FROM audit_events WHERE chain_seq IS NOT NULL AND tenant_id > ?')
      .pluck();
    this.lastChained = db.prepare(`SELECT chain_seq AS chainSeq, hash FROM audit_events
      WHERE tenant_id = ? AND chain_seq IS NOT NULL ORDER BY chain_seq DESC LIMIT 1`);
    this.anchorOf = db.prepare('SELECT chain_seq AS chainSeq, hash FROM audit_anchors WHERE tenant_id = ?');
    this.place = db.prepare(`UPDATE audit_events SET chain_seq = ?, prev_hash = ?, hash = ?
      WHERE tenant_id = ? AND id = ? AND chain_seq IS NULL`);
    this.chainedAfter = db.prepare(`SELECT * FROM audit_events WHERE tenant_id = ? AND chain_seq IS NOT NULL AND chain_seq > ?
      ORDER BY chain_seq LIMIT ?`);
    this.oldestChained = db.prepare(`SELECT chain_seq, hash, created_at FROM audit_events
      WHERE tenant_id = ? AND chain_seq IS NOT NULL ORDER BY chain_seq LIMIT ?`);
    this.removeUpTo = db.prepare('DELETE FROM audit_events WHERE tenant_id = ? AND chain_seq IS NOT NULL AND chain_seq <= ?');
    this.moveAnchor = db.prepare(`INSERT INTO audit_anchors (tenant_id, chain_seq, hash) VALUES (?, ?, ?)
      ON CONFLICT (tenant_id) DO UPDATE SET chain_seq = excluded.chain_seq, hash = excluded.hash`);
  }

  async append(events: readonly AuditEvent[]): Promise<void> {
    if (events.length > 0) this.effects.append(events);
  }

  async list(tenantId: string, filter: AuditLogFilter, page: PageRequest): Promise<Page<AuditEvent>> {
    let where = 'tenant_id = ?';
    const params: unknown[] = [tenantId];
    if (filter.entityType !== undefined) {
      where += ' AND entity_type = ?';
      params.push(filter.entityType);
    }
    if (filter.entityId !== undefined) {
      where += ' AND entity_id = ?';
      params.push(filter.entityId);
    }
    if (filter.startDate) {
      where += ' AND created_at >= ?';
      params.push(filter.startDate.getTime());
    }
    if (filter.endDate) {
      where += ' AND created_at < ?';
      params.push(filter.endDate.getTime());
    }
    return selectPage<AuditEventRow, AuditEvent>(this.db, 'audit_events', where, params, page, toAuditEvent);
  }

  async unchainedTenants(limit: number): Promise<string[]> {
    return this.walk(this.nextUnchainedTenant, limit);
  }

  async unchained(tenantId: string, limit: number): Promise<AuditEvent[]> {
    return (this.unchainedOf.all(tenantId, limit) as AuditEventRow[]).map(toAuditEvent);
  }

  async countUnchainedBefore(tenantId: string, before: Date): Promise<number> {
    return this.unchainedBefore.get(tenantId, before.getTime()) as number;
  }

  async chainHead(tenantId: string): Promise<ChainAnchor> {
    return this.head(tenantId);
  }

  async chain(tenantId: string, head: ChainAnchor, chained: readonly ChainedAuditEvent[]): Promise<boolean> {
    chained.forEach((event, i) => {
      if (event.tenantId !== tenantId || event.chainSeq !== head.chainSeq + i + 1) {
        throw new Error(`chain: event ${event.id} is not of tenant ${tenantId} at place ${head.chainSeq + i + 1}`);
      }
    });
    try {
      this.db
        .transaction(() => {
          const current = this.head(tenantId);
          if (current.chainSeq !== head.chainSeq || current.hash !== head.hash) throw ROLL_BACK;
          for (const e of chained) {
            // Only an event still unchained takes a place: one chained meanwhile undoes the whole step.
            if (this.place.run(e.chainSeq, e.prevHash, e.hash, tenantId, e.id).changes !== 1) throw ROLL_BACK;
          }
        })
        .immediate();
      return true;
    } catch (error) {
      if (error === ROLL_BACK) return false;
      throw error;
    }
  }

  async chained(tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]> {
    return (this.chainedAfter.all(tenantId, afterSeq, limit) as AuditEventRow[]).map(toChained);
  }

  async anchor(tenantId: string): Promise<ChainAnchor> {
    return (this.anchorOf.get(tenantId) as ChainAnchor | undefined) ?? CHAIN_START;
  }

  async streams(): Promise<string[]> {
    const all = new Set([...this.walk(this.nextStream), ...this.walk(this.nextAnchored)]);
    return [...all];
  }

  async prune(before: Date, limit: number): Promise<number> {
    const cutoff = before.getTime();
    return this.db
      .transaction(() => {
        let removed = 0;
        for (const tenantId of this.walk(this.nextChainedTenant)) {
          if (removed >= limit) break;
          const oldest = this.oldestChained.all(tenantId, limit - removed) as Array<{ chain_seq: number; hash: string; created_at: number }>;
          let last: { chain_seq: number; hash: string } | undefined;
          for (const row of oldest) {
            if (row.created_at >= cutoff) break;
            last = row;
          }
          if (!last) continue;
          removed += this.removeUpTo.run(tenantId, last.chain_seq).changes;
          this.moveAnchor.run(tenantId, last.chain_seq, last.hash);
        }
        return removed;
      })
      .immediate();
  }

  /** The tenant's last chained event, else its anchor, else the start. */
  private head(tenantId: string): ChainAnchor {
    const last = this.lastChained.get(tenantId) as ChainAnchor | undefined;
    return last ?? (this.anchorOf.get(tenantId) as ChainAnchor | undefined) ?? CHAIN_START;
  }

  /** Distinct tenant ids in order, one index seek each: `next` answers the smallest id after the one given. */
  private walk(next: Statement, limit = Number.POSITIVE_INFINITY): string[] {
    const found: string[] = [];
    let after = '';
    while (found.length < limit) {
      const id = next.get(after) as string | null;
      if (id === null) break;
      found.push(id);
      after = id;
    }
    return found;
  }
}
