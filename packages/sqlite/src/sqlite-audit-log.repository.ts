import { AuditKeyCourier } from './audit-key-courier';
import type { Database, Statement } from 'better-sqlite3';
import {
  type AuditEvent,
  type AuditLogFilter,
  type AuditLogRepository,
  type ChainAnchor,
  type ChainedAuditEvent,
  type Page,
  type PageRequest,
} from '@svc/core';
import { AuditChainWrites } from './audit-chain-writes';
import { type AuditEventRow, toAuditEvent, toChained } from './audit-event-rows';
import { selectPage } from './rows';
import type { TokenWriter } from './write-queue';

/**
 * The audit log (ADR 4). Events of writes arrive with the writes (EffectWrites, on whichever connection ran the
 * write); this repository appends the others, lists, and serves the chainer, `svc audit verify` and the retention
 * sweep. Appends and the chainer's compare-and-set are posted to the writer (like token writes): they run every
 * 100 ms, and on the main connection each would make the event loop wait for a commit's fsync, and for the write
 * lock while the writer commits. They run inside the writer's IMMEDIATE transaction, so the head read and the places
 * written are one atomic step also against other processes. Pruning, a rare sweep, runs on the main connection in
 * an IMMEDIATE transaction of its own.
 */
export class SqliteAuditLogRepository implements AuditLogRepository {
  private readonly unchainedBefore: Statement;
  private readonly nextUnchainedTenant: Statement;
  private readonly chainedAfter: Statement;
  private readonly nextStream: Statement;
  private readonly nextAnchored: Statement;
  private readonly nextHeaded: Statement;
  private readonly nextChainedTenant: Statement;
  private readonly oldestChained: Statement;
  private readonly removeUpTo: Statement;
  private readonly moveAnchor: Statement;

  constructor(
    private readonly db: Database,
    private readonly writer: TokenWriter,
    private readonly courier = new AuditKeyCourier(),
    /** The connection's chain statements, shared with its EffectWrites. */
    private readonly chains = new AuditChainWrites(db),
  ) {
    this.unchainedBefore = db
      .prepare('SELECT COUNT(*) FROM audit_events WHERE tenant_id = ? AND chain_seq IS NULL AND created_at < ?')
      .pluck();
    // Tenants one index seek each (a skip scan of the partial index), rather than a DISTINCT over every event.
    this.nextUnchainedTenant = db
      .prepare('SELECT MIN(tenant_id) FROM audit_events WHERE chain_seq IS NULL AND tenant_id > ?')
      .pluck();
    this.nextStream = db.prepare('SELECT MIN(tenant_id) FROM audit_events WHERE tenant_id > ?').pluck();
    this.nextAnchored = db.prepare('SELECT MIN(tenant_id) FROM audit_anchors WHERE tenant_id > ?').pluck();
    this.nextHeaded = db.prepare('SELECT MIN(tenant_id) FROM audit_heads WHERE tenant_id > ?').pluck();
    this.nextChainedTenant = db
      .prepare('SELECT MIN(tenant_id) FROM audit_events WHERE chain_seq IS NOT NULL AND tenant_id > ?')
      .pluck();
    this.chainedAfter = db.prepare(`SELECT * FROM audit_events WHERE tenant_id = ? AND chain_seq IS NOT NULL AND chain_seq > ?
      ORDER BY chain_seq LIMIT ?`);
    this.oldestChained = db.prepare(`SELECT chain_seq, hash, created_at FROM audit_events
      WHERE tenant_id = ? AND chain_seq IS NOT NULL ORDER BY chain_seq LIMIT ?`);
    this.removeUpTo = db.prepare('DELETE FROM audit_events WHERE tenant_id = ? AND chain_seq IS NOT NULL AND chain_seq <= ?');
    this.moveAnchor = db.prepare(`INSERT INTO audit_anchors (tenant_id, chain_seq, hash) VALUES (?, ?, ?)
      ON CONFLICT (tenant_id) DO UPDATE SET chain_seq = excluded.chain_seq, hash = excluded.hash`);
  }

  async append(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const auditKeys = await this.courier.keysFor(new Set(events.map((e) => e.tenantId)));
    await this.writer.run({ op: 'appendEvents', events, ...(auditKeys ? { auditKeys } : {}) });
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
    return this.chains.unchained(tenantId, limit);
  }

  async countUnchainedBefore(tenantId: string, before: Date): Promise<number> {
    return this.unchainedBefore.get(tenantId, before.getTime()) as number;
  }

  async chainHead(tenantId: string): Promise<ChainAnchor> {
    return this.chains.head(tenantId);
  }

  async chain(tenantId: string, head: ChainAnchor, chained: readonly ChainedAuditEvent[]): Promise<boolean> {
    chained.forEach((event, i) => {
      if (event.tenantId !== tenantId || event.chainSeq !== head.chainSeq + i + 1) {
        throw new Error(`chain: event ${event.id} is not of tenant ${tenantId} at place ${head.chainSeq + i + 1}`);
      }
    });
    return (await this.writer.run({ op: 'chainEvents', tenantId, head, chained })) as boolean;
  }

  /** Lets the writer chain events as it inserts them (see AuditKeyCourier). */
  useChainKeys(keys: (tenantId: string) => Promise<Uint8Array>): void {
    this.courier.use(keys);
  }

  async chainPending(tenantId: string, key: Uint8Array, limit: number): Promise<number> {
    return (await this.writer.run({ op: 'chainPending', tenantId, key, limit })) as number;
  }

  async chained(tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]> {
    return (this.chainedAfter.all(tenantId, afterSeq, limit) as AuditEventRow[]).map(toChained);
  }

  async anchor(tenantId: string): Promise<ChainAnchor> {
    return this.chains.anchor(tenantId);
  }

  async streams(): Promise<string[]> {
    // A tenant whose every event was deleted still has its recorded head, and verify names the cut.
    const all = new Set([...this.walk(this.nextStream), ...this.walk(this.nextAnchored), ...this.walk(this.nextHeaded)]);
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
