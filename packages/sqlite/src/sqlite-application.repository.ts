import type { Database, Statement, Transaction } from 'better-sqlite3';
import type {
  AddKeyOutcome,
  Application,
  ApplicationFilter,
  ApplicationKey,
  ApplicationRepository,
  Page,
  PageRequest,
  WriteEffects,
} from '@svc/core';
import { changed, EffectWrites } from './effect-writes';
import {
  type ApplicationKeyRow,
  type ApplicationRow,
  toApplication,
  toApplicationKey,
  toApplicationKeyRow,
  toApplicationRow,
} from './application-rows';
import { placeholders, selectPage } from './rows';

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
 * Applications in SQLite, their keys in `application_keys`; a key hash is UNIQUE and indexed, so authentication is one
 * index lookup and a join on the application's primary key.
 *
 * Key look-ups are remembered: every request authenticates, and reading and parsing the application was a tenth of
 * a token request's cost. Triggers count every update and delete of an application and of a key, by any connection
 * or process (`application_changes`); each look-up first reads that count, one integer, and forgets everything it
 * remembers when the count moved. So a revoked, regenerated, changed or deleted key fails on the next request
 * whoever changed it. The count is read before the row, so a row read during a change is never kept under the count
 * from after it. A key that was not found is never remembered (a new application or key needs no invalidation).
 *
 * Writes that read first (the key limit, regenerate) run in IMMEDIATE transactions: they hold the file's write lock
 * from their first read, so another process cannot slip a write between the read and the write. A write's effects
 * (ADR 4) are stored in its transaction when it changed something.
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
  private readonly insertKey: Statement;
  private readonly countKeys: Statement;
  private readonly keysOf: Statement;
  private readonly keyById: Statement;
  private readonly removeKey: Statement;
  private readonly removeKeys: Statement;
  private readonly createWithKey: Transaction<(application: Application, key: ApplicationKey | undefined) => void>;
  private readonly addKeyBelow: Transaction<(key: ApplicationKey, limit: number) => AddKeyOutcome>;
  private readonly replaceAll: Transaction<(application: Application, key: ApplicationKey) => boolean>;

  constructor(
    private readonly db: Database,
    private readonly effects = new EffectWrites(db),
  ) {
    this.changes = db.prepare('SELECT n FROM application_changes WHERE id = 1').pluck();
    this.insert = db.prepare(`INSERT INTO applications (id, tenant_id, name, type, permissions, rules, created_by,
      created_at, modified_by, modified_at, expires_at) VALUES (@id, @tenant_id, @name, @type, @permissions, @rules,
      @created_by, @created_at, @modified_by, @modified_at, @expires_at)`);
    this.byId = db.prepare('SELECT * FROM applications WHERE tenant_id = ? AND id = ?');
    this.byKey = db.prepare(`SELECT a.* FROM application_keys k
      JOIN applications a ON a.tenant_id = k.tenant_id AND a.id = k.application_id WHERE k.key_hash = ?`);
    this.replace = db.prepare(`UPDATE applications SET name = @name, permissions = @permissions, rules = @rules,
      modified_by = @modified_by, modified_at = @modified_at, expires_at = @expires_at
      WHERE tenant_id = @tenant_id AND id = @id`);
    // The trigger applications_deleted deletes the application's keys with it.
    this.remove = db.prepare('DELETE FROM applications WHERE tenant_id = ? AND id = ?');
    this.expired = db.prepare('DELETE FROM applications WHERE expires_at IS NOT NULL AND expires_at <= ?');
    this.insertKey = db.prepare(`INSERT INTO application_keys (id, tenant_id, application_id, key_hash, created_by,
      created_at) VALUES (@id, @tenant_id, @application_id, @key_hash, @created_by, @created_at)`);
    this.countKeys = db.prepare('SELECT COUNT(*) FROM application_keys WHERE tenant_id = ? AND application_id = ?').pluck();
    this.keysOf = db.prepare(`SELECT * FROM application_keys WHERE tenant_id = ? AND application_id = ?
      ORDER BY created_at DESC, id DESC`);
    this.keyById = db.prepare('SELECT * FROM application_keys WHERE tenant_id = ? AND application_id = ? AND id = ?');
    this.removeKey = db.prepare('DELETE FROM application_keys WHERE tenant_id = ? AND application_id = ? AND id = ?');
    this.removeKeys = db.prepare('DELETE FROM application_keys WHERE tenant_id = ? AND application_id = ?');
    this.createWithKey = db.transaction((application: Application, key: ApplicationKey | undefined) => {
      this.insert.run(toApplicationRow(application));
      if (key) this.insertKey.run(toApplicationKeyRow(key));
    });
    this.addKeyBelow = db.transaction((key: ApplicationKey, limit: number): AddKeyOutcome => {
      if (!this.byId.get(key.tenantId, key.applicationId)) return 'absent';
      if ((this.countKeys.get(key.tenantId, key.applicationId) as number) >= limit) return 'limit';
      this.insertKey.run(toApplicationKeyRow(key));
      return 'added';
    });
    this.replaceAll = db.transaction((application: Application, key: ApplicationKey): boolean => {
      if (this.replace.run(toApplicationRow(application)).changes !== 1) return false;
      this.removeKeys.run(application.tenantId, application.id);
      this.insertKey.run(toApplicationKeyRow(key));
      return true;
    });
  }

  async create(application: Application, key: ApplicationKey | undefined, effects?: WriteEffects): Promise<void> {
    this.effects.guarded(() => this.createWithKey.immediate(application, key), () => true, effects);
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
    if (filter.types) {
      where += ` AND type IN (${placeholders(filter.types.length)})`;
      params.push(...filter.types);
    }
    if (filter.liveAt) {
      where += ' AND (expires_at IS NULL OR expires_at > ?)';
      params.push(filter.liveAt.getTime());
    }
    return selectPage<ApplicationRow, Application>(this.db, 'applications', where, params, page, toApplication);
  }

  async update(application: Application, effects?: WriteEffects): Promise<boolean> {
    return this.effects.guarded(() => this.replace.run(toApplicationRow(application)).changes === 1, changed, effects);
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.guarded(() => this.remove.run(tenantId, id).changes === 1, changed, effects);
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.expired.run(now.getTime()).changes;
  }

  async addKey(key: ApplicationKey, limit: number, effects?: WriteEffects): Promise<AddKeyOutcome> {
    return this.effects.guarded(() => this.addKeyBelow.immediate(key, limit), (outcome) => outcome === 'added', effects);
  }

  async listKeys(tenantId: string, applicationId: string): Promise<ApplicationKey[]> {
    return (this.keysOf.all(tenantId, applicationId) as ApplicationKeyRow[]).map(toApplicationKey);
  }

  async findKey(tenantId: string, applicationId: string, keyId: string): Promise<ApplicationKey | undefined> {
    const row = this.keyById.get(tenantId, applicationId, keyId) as ApplicationKeyRow | undefined;
    return row && toApplicationKey(row);
  }

  async deleteKey(tenantId: string, applicationId: string, keyId: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.guarded(() => this.removeKey.run(tenantId, applicationId, keyId).changes === 1, changed, effects);
  }

  async replaceKeys(application: Application, key: ApplicationKey, effects?: WriteEffects): Promise<boolean> {
    return this.effects.guarded(() => this.replaceAll.immediate(application, key), changed, effects);
  }
}
