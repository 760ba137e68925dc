import type { Database, Statement } from 'better-sqlite3';
import type {
  DeliveryAttempt,
  DeliveryKey,
  DeliveryNext,
  DeliveryStatus,
  Page,
  PageRequest,
  WebhookDelivery,
  WebhookDeliveryRepository,
  WebhookEventType,
} from '@svc/core';
import { offsetOf, pageOf } from '@svc/core';
import { date } from './rows';

interface DeliveryRow {
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventType;
  event: string;
  status: DeliveryStatus;
  attempts: string;
  next_attempt_at: number | null;
  lease_until: number | null;
  created_at: number;
}

/** An attempt as stored in the `attempts` JSON array: its time in epoch milliseconds, absent fields left out. */
interface AttemptJson {
  at: number;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

const toAttempt = (a: AttemptJson): DeliveryAttempt => ({
  at: new Date(a.at),
  ...(a.statusCode !== undefined ? { statusCode: a.statusCode } : {}),
  ...(a.error !== undefined ? { error: a.error } : {}),
  durationMs: a.durationMs,
});

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  tenantId: row.tenant_id,
  webhookId: row.webhook_id,
  eventId: row.event_id,
  eventType: row.event_type,
  event: row.event,
  status: row.status,
  attempts: (JSON.parse(row.attempts) as AttemptJson[]).map(toAttempt),
  nextAttemptAt: date(row.next_attempt_at),
  createdAt: new Date(row.created_at),
});

/**
 * The webhook outbox on the main connection (ADR 4). Deliveries are made by EffectWrites in the transactions of the
 * writes they report; the dispatcher leases due ones here. A lease is one IMMEDIATE transaction (select, then mark),
 * so of concurrent leasers, from this process or another sharing the file, each delivery goes to one.
 */
export class SqliteWebhookDeliveryRepository implements WebhookDeliveryRepository {
  private readonly due: Statement;
  private readonly lease: Statement;
  private readonly record: Statement;
  private readonly failAll: Statement;
  private readonly countOf: Statement;
  private readonly pageOf: Statement;
  private readonly pending: Statement;
  private readonly prune: Statement;

  constructor(private readonly db: Database) {
    this.due = db.prepare(`SELECT * FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
      ORDER BY next_attempt_at, created_at, event_id LIMIT ?`);
    this.lease = db.prepare('UPDATE webhook_deliveries SET lease_until = ? WHERE tenant_id = ? AND webhook_id = ? AND event_id = ?');
    this.record = db.prepare(`UPDATE webhook_deliveries
      SET attempts = json_insert(attempts, '$[#]', json(@attempt)),
        status = CASE WHEN status = 'pending' THEN @status ELSE status END,
        next_attempt_at = CASE WHEN status = 'pending' THEN @next ELSE next_attempt_at END,
        lease_until = NULL
      WHERE tenant_id = @tenant_id AND webhook_id = @webhook_id AND event_id = @event_id`);
    this.failAll = db.prepare(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_until = NULL
      WHERE tenant_id = ? AND webhook_id = ? AND status = 'pending'`);
    this.countOf = db.prepare('SELECT COUNT(*) FROM webhook_deliveries WHERE tenant_id = ? AND webhook_id = ?').pluck();
    this.pageOf = db.prepare(`SELECT * FROM webhook_deliveries WHERE tenant_id = ? AND webhook_id = ?
      ORDER BY created_at DESC, event_id DESC LIMIT ? OFFSET ?`);
    this.pending = db.prepare("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'").pluck();
    this.prune = db.prepare("DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND created_at < ?");
  }

  async leaseDue(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDelivery[]> {
    const at = now.getTime();
    const until = leaseUntil.getTime();
    // A plain read first: the dispatcher asks every 250 ms, mostly to hear "nothing", and an IMMEDIATE transaction
    // would take the write lock (waiting on the writer thread's commit, on the event loop) just to say so.
    if (this.due.all(at, at, 1).length === 0) return [];
    return this.db
      .transaction(() => {
        const rows = this.due.all(at, at, limit) as DeliveryRow[];
        for (const row of rows) this.lease.run(until, row.tenant_id, row.webhook_id, row.event_id);
        return rows.map(toDelivery);
      })
      .immediate();
  }

  async recordAttempt(key: DeliveryKey, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean> {
    const stored: AttemptJson = {
      at: attempt.at.getTime(),
      ...(attempt.statusCode !== undefined ? { statusCode: attempt.statusCode } : {}),
      ...(attempt.error !== undefined ? { error: attempt.error } : {}),
      durationMs: attempt.durationMs,
    };
    const nextAt = next.status === 'pending' ? next.nextAttemptAt.getTime() : null;
    const row = { attempt: JSON.stringify(stored), status: next.status, next: nextAt, tenant_id: key.tenantId, webhook_id: key.webhookId, event_id: key.eventId };
    return this.record.run(row).changes === 1;
  }

  async failPending(tenantId: string, webhookId: string): Promise<number> {
    return this.failAll.run(tenantId, webhookId).changes;
  }

  async list(tenantId: string, webhookId: string, page: PageRequest): Promise<Page<WebhookDelivery>> {
    const total = this.countOf.get(tenantId, webhookId) as number;
    const rows = total <= offsetOf(page) ? [] : (this.pageOf.all(tenantId, webhookId, page.size, offsetOf(page)) as DeliveryRow[]);
    return pageOf(rows.map(toDelivery), total, page);
  }

  async countPending(): Promise<number> {
    return this.pending.get() as number;
  }

  async pruneFinished(before: Date): Promise<number> {
    return this.prune.run(before.getTime()).changes;
  }
}
