import type { Database, Statement } from 'better-sqlite3';
import { type AuditEvent, CHAIN_START, type ChainAnchor, type ChainedAuditEvent, chainAfter } from '@svc/core';
import { type AuditEventRow, toAuditEvent } from './audit-event-rows';

/** Thrown inside a savepoint to undo it; never leaves this module. */
const ROLL_BACK = Symbol('roll back');

/**
 * A tenant's chain head and the chainer's compare-and-set (ADR 4), on one connection. The chainer's writes run on
 * the writer connection (posted like token writes, so they share its group commit and the event loop never waits
 * for their fsync); the head is also read on the main connection.
 */
export class AuditChainWrites {
  private readonly lastChained: Statement;
  private readonly anchorOf: Statement;
  private readonly place: Statement;
  private readonly headOf: Statement;
  private readonly moveHead: Statement;
  private readonly unchainedOf: Statement;
  /**
   * Heads moved in the current transaction, written once when it ends (`settle`): a batch of token writes moves its
   * tenant's head once per create, and one row write per batch costs less than a read and a write per create.
   */
  private readonly moved = new Map<string, ChainAnchor>();

  constructor(private readonly db: Database) {
    this.lastChained = db.prepare(`SELECT chain_seq AS chainSeq, hash FROM audit_events
      WHERE tenant_id = ? AND chain_seq IS NOT NULL ORDER BY chain_seq DESC LIMIT 1`);
    this.anchorOf = db.prepare('SELECT chain_seq AS chainSeq, hash FROM audit_anchors WHERE tenant_id = ?');
    this.place = db.prepare(`UPDATE audit_events SET chain_seq = ?, prev_hash = ?, hash = ?
      WHERE tenant_id = ? AND id = ? AND chain_seq IS NULL`);
    this.unchainedOf = db.prepare(`SELECT * FROM audit_events WHERE tenant_id = ? AND chain_seq IS NULL
      ORDER BY created_at, id LIMIT ?`);
    this.headOf = db.prepare('SELECT chain_seq AS chainSeq, hash FROM audit_heads WHERE tenant_id = ?');
    this.moveHead = db.prepare(`INSERT INTO audit_heads (tenant_id, chain_seq, hash) VALUES (?, ?, ?)
      ON CONFLICT (tenant_id) DO UPDATE SET chain_seq = excluded.chain_seq, hash = excluded.hash`);
  }

  /**
   * The head the chainer recorded (migration 16), else the tenant's last chained event, else its anchor (the retention
   * sweep's), else the start. The recorded head outlives its event: deleting the newest events leaves it in place.
   */
  head(tenantId: string): ChainAnchor {
    return (
      this.moved.get(tenantId) ??
      (this.headOf.get(tenantId) as ChainAnchor | undefined) ??
      (this.lastChained.get(tenantId) as ChainAnchor | undefined) ??
      this.anchor(tenantId)
    );
  }

  anchor(tenantId: string): ChainAnchor {
    return (this.anchorOf.get(tenantId) as ChainAnchor | undefined) ?? CHAIN_START;
  }

  /** Up to `limit` of the tenant's events not chained yet, oldest first (created_at, then id). */
  unchained(tenantId: string, limit: number): AuditEvent[] {
    return (this.unchainedOf.all(tenantId, limit) as AuditEventRow[]).map(toAuditEvent);
  }

  /**
   * Moves the tenant's head in the current transaction; it is written when `settle` ends that transaction's work, and
   * `head` answers it meanwhile. Only code running inside `settle` may move heads.
   */
  setHead(tenantId: string, head: ChainAnchor): void {
    this.moved.set(tenantId, head);
  }

  /**
   * Runs `work` (the body of a transaction) and then writes the heads it moved, inside that transaction; heads moved
   * by work that failed are forgotten with it.
   */
  settle<T>(work: () => T): T {
    try {
      const result = work();
      for (const [tenantId, head] of this.moved) this.moveHead.run(tenantId, head.chainSeq, head.hash);
      return result;
    } finally {
      this.moved.clear();
    }
  }

  /**
   * Runs `work` in a savepoint: when it throws, the savepoint is rolled back and the heads it moved go back to where
   * they were (its events are gone with it).
   */
  savepoint<T>(work: () => T): T {
    const before = this.moved.size === 0 ? undefined : new Map(this.moved);
    try {
      return this.db.transaction(work)();
    } catch (error) {
      this.moved.clear();
      if (before) for (const [tenantId, head] of before) this.moved.set(tenantId, head);
      throw error;
    }
  }

  /**
   * The chainer's step where the rows are: up to `limit` unchained events of the tenant, oldest first, hashed after
   * its head and placed, in one savepoint of the caller's transaction (which holds the write lock, so nothing moves
   * the head meanwhile). The main thread only names the tenant and lends its audit key: it neither reads the events
   * back nor hashes them. Returns how many were placed.
   */
  chainPending(tenantId: string, key: Uint8Array, limit: number): number {
    const events = this.unchained(tenantId, limit);
    if (events.length === 0) return 0;
    const head = this.head(tenantId);
    return this.chain(tenantId, head, chainAfter(key, head, events)) ? events.length : 0;
  }

  /**
   * Gives `chained` their places, in one savepoint, only while `head` is the tenant's head and each is still
   * unchained; otherwise changes nothing. The caller runs it inside `settle`, in a transaction that holds the write
   * lock.
   */
  chain(tenantId: string, head: ChainAnchor, chained: readonly ChainedAuditEvent[]): boolean {
    const current = this.head(tenantId);
    if (current.chainSeq !== head.chainSeq || current.hash !== head.hash) return false;
    try {
      this.savepoint(() => {
        for (const e of chained) {
          if (this.place.run(e.chainSeq, e.prevHash, e.hash, tenantId, e.id).changes !== 1) throw ROLL_BACK;
        }
        const last = chained[chained.length - 1];
        if (last) this.setHead(tenantId, { chainSeq: last.chainSeq, hash: last.hash });
      });
      return true;
    } catch (error) {
      if (error === ROLL_BACK) return false;
      throw error;
    }
  }
}
