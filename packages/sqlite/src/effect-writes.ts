import type { Database, Statement } from 'better-sqlite3';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { type AuditEvent, chainLink, hasEffects, outboxEventText, type WriteEffects } from '@svc/core';
import { AuditChainWrites } from './audit-chain-writes';
import { nul } from './rows';

/** `happened` for writes that answer true when they changed something. */
export const changed = (done: boolean): boolean => done;

/**
 * An audit event's values for `INSERT INTO audit_events` in column order (positional: binding fourteen named
 * parameters per event cost more than the insert's own B-tree work), with its place in the chain when it has one.
 */
const eventValues = (e: AuditEvent, chainSeq: number | null, prevHash: string | null, hash: string | null): unknown[] => [
  e.tenantId,
  e.id,
  e.actorId,
  e.actorType,
  e.entityType,
  nul(e.entityId),
  e.operation,
  e.outcome,
  e.message,
  nul(e.traceId),
  e.createdAt.getTime(),
  chainSeq,
  prevHash,
  hash,
];

/**
 * Writes a write's effects (ADR 4) on one connection, inside the caller's transaction: its audit events, and each
 * message fanned out to one pending delivery per enabled webhook of its tenant subscribed to its type. Used by the
 * token writes (on the writer thread or in-process) and by the repositories of the main connection; the statements
 * are prepared once per connection. With no webhook in the tenant, a message costs one look-up of the webhooks'
 * primary key and leaves nothing.
 */
export class EffectWrites {
  private readonly insertEvent: Statement;
  private readonly fanOut: Statement;
  private readonly anyHook: Statement;
  private readonly keepAnswer: Statement;
  /**
   * Whether each tenant met in the current transaction has an enabled webhook: asked once per tenant and transaction
   * (a batch of a hundred creates asks once), and exact, since the transaction holds the write lock and sees every
   * webhook committed before it began.
   */
  private readonly hooked = new Map<string, boolean>();
  /** Tenants' audit keys this connection was given (see AuditKeyCourier): their events are chained as inserted. */
  private readonly keys = new Map<string, KeyObject>();

  constructor(
    private readonly db: Database,
    /** The connection's chain statements (one set per connection, shared with the audit log's). */
    private readonly chains = new AuditChainWrites(db),
  ) {
    this.insertEvent = db.prepare(`INSERT INTO audit_events (tenant_id, id, actor_id, actor_type, entity_type, entity_id,
      operation, outcome, message, trace_id, created_at, chain_seq, prev_hash, hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.fanOut = db.prepare(`INSERT INTO webhook_deliveries (tenant_id, webhook_id, event_id, event_type, event, status,
      attempts, next_attempt_at, lease_until, created_at)
      SELECT w.tenant_id, w.id, @event_id, @event_type, @event, 'pending', '[]', @created_at, NULL, @created_at
      FROM webhooks w WHERE w.tenant_id = @tenant_id AND w.status = 'enabled'
        AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = @event_type)`);
    this.anyHook = db.prepare("SELECT 1 FROM webhooks WHERE tenant_id = ? AND status = 'enabled' LIMIT 1").pluck();
    // SqliteIdempotencyRepository.complete's update: only the running claim that holds the key is marked done.
    this.keepAnswer = db.prepare(`UPDATE idempotency_keys SET state = 'done', sealed_response = ?, expires_at = ?
      WHERE tenant_id = ? AND caller_id = ? AND key = ? AND claim_id = ? AND state = 'running'`);
  }

  /** Stores `effects`; the caller runs this inside the transaction of the change, and only when the change happened. */
  write(effects: WriteEffects | undefined): void {
    if (!effects) return;
    this.insertEvents(effects.events);
    const kept = effects.kept;
    if (kept) this.keepAnswer.run(Buffer.from(kept.sealedResponse), kept.expiresAt.getTime(), kept.tenantId, kept.callerId, kept.key, kept.claimId);
    for (const m of effects.messages) {
      if (!this.hasHooks(m.tenantId)) continue;
      // Rendered here, and only in a tenant with a webhook: most messages are never rendered at all.
      this.fanOut.run({ tenant_id: m.tenantId, event_id: m.id, event_type: m.type, event: outboxEventText(m), created_at: m.createdAt.getTime() });
    }
  }

  /**
   * Runs `work` (the body of a transaction that may store effects), then writes the chain heads it moved; what it
   * learnt about the tenants' webhooks is forgotten with the transaction.
   */
  settle<T>(work: () => T): T {
    try {
      return this.chains.settle(work);
    } finally {
      this.hooked.clear();
    }
  }

  private hasHooks(tenantId: string): boolean {
    let known = this.hooked.get(tenantId);
    if (known === undefined) {
      known = this.anyHook.get(tenantId) !== undefined;
      this.hooked.set(tenantId, known);
    }
    return known;
  }

  /** Keys this connection may chain with from now on. */
  learnKeys(keys: Readonly<Record<string, Uint8Array>>): void {
    for (const [tenantId, key] of Object.entries(keys)) this.keys.set(tenantId, createSecretKey(key));
  }

  /**
   * Inserts events; those of a tenant whose key this connection holds are chained as they go in, after the head (the
   * caller's transaction holds the write lock, so nothing else moves it; the head is written once, when the
   * transaction's `settle` ends), the others are left for the chainer.
   */
  private insertEvents(events: readonly AuditEvent[]): void {
    for (const event of events) {
      const key = this.keys.get(event.tenantId);
      if (!key) {
        this.insertEvent.run(eventValues(event, null, null, null));
        continue;
      }
      const { chainSeq, prevHash, hash } = chainLink(key, this.chains.head(event.tenantId), event);
      this.insertEvent.run(eventValues(event, chainSeq, prevHash, hash));
      this.chains.setHead(event.tenantId, { chainSeq, hash });
    }
  }

  /**
   * Runs `change` and, when `happened` says it changed something, stores `effects` in the same IMMEDIATE transaction.
   * Without effects, `change` runs alone, as it did before effects existed.
   */
  guarded<T>(change: () => T, happened: (result: T) => boolean, effects: WriteEffects | undefined): T {
    if (!hasEffects(effects)) return change();
    return this.db
      .transaction(() =>
        this.settle(() => {
          const result = change();
          if (happened(result)) this.write(effects);
          return result;
        }),
      )
      .immediate();
  }
}
