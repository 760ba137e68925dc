import type { Database, Statement } from 'better-sqlite3';
import type { CreateWebhookOutcome, Page, PageRequest, Webhook, WebhookEventType, WebhookRepository, WriteEffects } from '@svc/core';
import { changed, EffectWrites } from './effect-writes';
import { date, ms, nul, opt, selectPage } from './rows';

/** A row of `webhooks`: the signing secret only sealed (AES-256-GCM under the tenant's key). */
interface WebhookRow {
  tenant_id: string;
  id: string;
  name: string;
  url: string;
  events: string;
  status: Webhook['status'];
  notify_email: string | null;
  sealed_secret: Buffer;
  created_by: string;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
}

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  url: row.url,
  events: JSON.parse(row.events) as WebhookEventType[],
  status: row.status,
  notifyEmail: opt(row.notify_email),
  sealedSecret: new Uint8Array(row.sealed_secret),
  createdBy: row.created_by,
  createdAt: new Date(row.created_at),
  modifiedBy: opt(row.modified_by),
  modifiedAt: date(row.modified_at),
});

const fields = (w: Webhook) => ({
  tenant_id: w.tenantId,
  id: w.id,
  name: w.name,
  url: w.url,
  events: JSON.stringify(w.events),
  status: w.status,
  notify_email: nul(w.notifyEmail),
  modified_by: nul(w.modifiedBy),
  modified_at: ms(w.modifiedAt),
});

/**
 * Webhooks on the main connection (small management writes, like applications). A create is one
 * `INSERT … SELECT … WHERE (SELECT COUNT(*) …) < limit` statement, which SQLite runs as one write transaction: the
 * count and the insert cannot be split by another write from this process or another sharing the file. Deleting a
 * webhook deletes its deliveries (the trigger `webhooks_deleted`, in the same transaction).
 */
export class SqliteWebhookRepository implements WebhookRepository {
  private readonly insertBelow: Statement;
  private readonly byId: Statement;
  private readonly replace: Statement;
  private readonly replaceAsRead: Statement;
  private readonly remove: Statement;

  constructor(
    private readonly db: Database,
    private readonly effects = new EffectWrites(db),
  ) {
    this.insertBelow = db.prepare(`INSERT INTO webhooks (tenant_id, id, name, url, events, status, notify_email, sealed_secret,
      created_by, created_at, modified_by, modified_at)
      SELECT @tenant_id, @id, @name, @url, @events, @status, @notify_email, @sealed_secret, @created_by, @created_at,
        @modified_by, @modified_at
      WHERE (SELECT COUNT(*) FROM webhooks WHERE tenant_id = @tenant_id) < @limit`);
    this.byId = db.prepare('SELECT * FROM webhooks WHERE tenant_id = ? AND id = ?');
    const replace = `UPDATE webhooks SET name = @name, url = @url, events = @events, status = @status,
      notify_email = @notify_email, modified_by = @modified_by, modified_at = @modified_at
      WHERE tenant_id = @tenant_id AND id = @id`;
    this.replace = db.prepare(replace);
    // The same, only while the webhook was last modified when the caller read it (`IS`: never modified is NULL).
    this.replaceAsRead = db.prepare(`${replace} AND modified_at IS @read_modified_at`);
    this.remove = db.prepare('DELETE FROM webhooks WHERE tenant_id = ? AND id = ?');
  }

  async create(webhook: Webhook, limit: number, effects?: WriteEffects): Promise<CreateWebhookOutcome> {
    const insert = (): CreateWebhookOutcome => {
      const inserted = this.insertBelow.run({
        ...fields(webhook),
        sealed_secret: Buffer.from(webhook.sealedSecret),
        created_by: webhook.createdBy,
        created_at: webhook.createdAt.getTime(),
        limit,
      });
      return inserted.changes === 1 ? 'created' : 'limit';
    };
    return this.effects.guarded(insert, (outcome) => outcome === 'created', effects);
  }

  async findById(tenantId: string, id: string): Promise<Webhook | undefined> {
    const row = this.byId.get(tenantId, id) as WebhookRow | undefined;
    return row && toWebhook(row);
  }

  async list(tenantId: string, page: PageRequest): Promise<Page<Webhook>> {
    return selectPage<WebhookRow, Webhook>(this.db, 'webhooks', 'tenant_id = ?', [tenantId], page, toWebhook);
  }

  async update(webhook: Webhook, effects?: WriteEffects, asRead?: Webhook): Promise<boolean> {
    const write = () =>
      (asRead ? this.replaceAsRead.run({ ...fields(webhook), read_modified_at: ms(asRead.modifiedAt) }) : this.replace.run(fields(webhook))).changes === 1;
    return this.effects.guarded(write, changed, effects);
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.guarded(() => this.remove.run(tenantId, id).changes === 1, changed, effects);
  }
}
