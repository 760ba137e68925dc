import type { Database, Statement } from 'better-sqlite3';
import type { AccessRule, Application, ApplicationFilter, ApplicationRepository, Page, PageRequest, Permission } from '@svc/core';
import { date, ms, nul, opt, placeholders, selectPage } from './rows';

interface ApplicationRow {
  id: string;
  tenant_id: string;
  name: string;
  type: Application['type'];
  permissions: string;
  rules: string;
  key_hash: string;
  created_by: string | null;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
  expires_at: number | null;
}

function toApplication(row: ApplicationRow): Application {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    type: row.type,
    permissions: JSON.parse(row.permissions) as Permission[],
    rules: JSON.parse(row.rules) as AccessRule[],
    keyHash: row.key_hash,
    createdBy: opt(row.created_by),
    createdAt: new Date(row.created_at),
    modifiedBy: opt(row.modified_by),
    modifiedAt: date(row.modified_at),
    expiresAt: date(row.expires_at),
  };
}

function toRow(app: Application): ApplicationRow {
  return {
    id: app.id,
    tenant_id: app.tenantId,
    name: app.name,
    type: app.type,
    permissions: JSON.stringify(app.permissions),
    rules: JSON.stringify(app.rules),
    key_hash: app.keyHash,
    created_by: nul(app.createdBy),
    created_at: app.createdAt.getTime(),
    modified_by: nul(app.modifiedBy),
    modified_at: ms(app.modifiedAt),
    expires_at: ms(app.expiresAt),
  };
}

/** Upper bound on remembered keys; the oldest is forgotten first. Only keys that exist are ever remembered. */
const KEY_CACHE_LIMIT = 10_000;

/** A remembered application is shared by every request that presents its key, so nothing may change it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/**
 * Applications in SQLite; the key hash is UNIQUE and indexed, so authentication is one index lookup.
 *
 * Key look-ups are remembered: every request authenticates, and reading and parsing the application was a tenth of
 * a token request's cost. Triggers count every update and delete of an application, by any connection or process
 * (`application_changes`); each look-up first reads that count, one integer, and forgets everything it remembers
 * when the count moved. So a regenerated, changed or deleted key fails on the next request whoever changed it. The
 * count is read before the row, so a row read during a change is never kept under the count from after it. A key
 * that was not found is never remembered (a new application needs no invalidation).
 */
export class SqliteApplicationRepository implements ApplicationRepository {
  private readonly keys = new Map<string, Application>();
  private readonly changes: Statement;
  private changesSeen = -1;
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly byKey: Statement;
  private readonly replace: Statement;
  private readonly remove: Statement;
  private readonly expired: Statement;

  constructor(private readonly db: Database) {
    this.changes = db.prepare('SELECT n FROM application_changes WHERE id = 1').pluck();
    this.insert = db.prepare(`INSERT INTO applications VALUES (@id, @tenant_id, @name, @type, @permissions, @rules,
      @key_hash, @created_by, @created_at, @modified_by, @modified_at, @expires_at)`);
    this.byId = db.prepare('SELECT * FROM applications WHERE tenant_id = ? AND id = ?');
    this.byKey = db.prepare('SELECT * FROM applications WHERE key_hash = ?');
    this.replace = db.prepare(`UPDATE applications SET name = @name, permissions = @permissions, rules = @rules,
      key_hash = @key_hash, modified_by = @modified_by, modified_at = @modified_at, expires_at = @expires_at
      WHERE tenant_id = @tenant_id AND id = @id`);
    this.remove = db.prepare('DELETE FROM applications WHERE tenant_id = ? AND id = ?');
    this.expired = db.prepare('DELETE FROM applications WHERE expires_at IS NOT NULL AND expires_at <= ?');
  }

  async create(application: Application): Promise<void> {
    this.insert.run(toRow(application));
  }

  async findById(tenantId: string, id: string): Promise<Application | undefined> {
    const row = this.byId.get(tenantId, id) as ApplicationRow | undefined;
    return row && toApplication(row);
  }

  async findByKeyHash(keyHash: string): Promise<Application | undefined> {
    const changes = this.changes.get() as number;
    if (changes !== this.changesSeen) {
      this.keys.clear();
      this.changesSeen = changes;
    }
    const remembered = this.keys.get(keyHash);
    if (remembered) return remembered;
    const row = this.byKey.get(keyHash) as ApplicationRow | undefined;
    if (!row) return undefined;
    if (this.keys.size >= KEY_CACHE_LIMIT) this.keys.delete(this.keys.keys().next().value!);
    const application = deepFreeze(toApplication(row));
    this.keys.set(keyHash, application);
    return application;
  }

  async list(tenantId: string, filter: ApplicationFilter, page: PageRequest): Promise<Page<Application>> {
    let where = 'tenant_id = ?';
    const params: unknown[] = [tenantId];
    if (filter.ids) {
      where += ` AND id IN (${placeholders(filter.ids.length)})`;
      params.push(...filter.ids);
    }
    if (filter.type) {
      where += ' AND type = ?';
      params.push(filter.type);
    }
    if (filter.liveAt) {
      where += ' AND (expires_at IS NULL OR expires_at > ?)';
      params.push(filter.liveAt.getTime());
    }
    return selectPage<ApplicationRow, ReturnType<typeof toApplication>>(this.db, 'applications', where, params, page, toApplication);
  }

  async update(application: Application): Promise<boolean> {
    return this.replace.run(toRow(application)).changes === 1;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return this.remove.run(tenantId, id).changes === 1;
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.expired.run(now.getTime()).changes;
  }
}
