import type { Database, Statement } from 'better-sqlite3';
import type {
  CreateProxyOutcome,
  Page,
  PageRequest,
  Proxy,
  ProxyListFilter,
  ProxyRepository,
  ProxyTransform,
  UpdateProxyOutcome,
  WriteEffects,
} from '@svc/core';
import { changed, EffectWrites } from './effect-writes';
import { date, ms, nul, opt, placeholders, selectPage } from './rows';

/** A row of `proxies`: the configuration only sealed (AES-256-GCM under the tenant's key), the key only hashed. */
interface ProxyRow {
  tenant_id: string;
  id: string;
  name: string;
  destination_url: string;
  request_transforms: string;
  response_transforms: string;
  application_id: string | null;
  sealed_configuration: Buffer;
  require_auth: number;
  timeout_seconds: number | null;
  disable_detokenization: number;
  key_hash: string;
  version: number;
  created_by: string;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
}

const toProxy = (row: ProxyRow): Proxy => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  destinationUrl: row.destination_url,
  requestTransforms: JSON.parse(row.request_transforms) as ProxyTransform[],
  responseTransforms: JSON.parse(row.response_transforms) as ProxyTransform[],
  applicationId: opt(row.application_id),
  sealedConfiguration: new Uint8Array(row.sealed_configuration),
  requireAuth: row.require_auth === 1,
  timeoutSeconds: opt(row.timeout_seconds),
  disableDetokenization: row.disable_detokenization === 1,
  keyHash: row.key_hash,
  version: row.version,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at),
  modifiedBy: opt(row.modified_by),
  modifiedAt: date(row.modified_at),
});

/** The columns an update replaces, with the row's key: never the key hash nor the creation fields. */
const fields = (p: Proxy) => ({
  tenant_id: p.tenantId,
  id: p.id,
  name: p.name,
  destination_url: p.destinationUrl,
  request_transforms: JSON.stringify(p.requestTransforms),
  response_transforms: JSON.stringify(p.responseTransforms),
  application_id: nul(p.applicationId),
  sealed_configuration: Buffer.from(p.sealedConfiguration),
  require_auth: p.requireAuth ? 1 : 0,
  timeout_seconds: nul(p.timeoutSeconds),
  disable_detokenization: p.disableDetokenization ? 1 : 0,
  version: p.version,
  modified_by: nul(p.modifiedBy),
  modified_at: ms(p.modifiedAt),
});

/**
 * The lower case of a name as JavaScript folds it (SQLite's own lower() folds ASCII only), so a name filter matches
 * as in every other store: `É` is found by `é`.
 */
const FOLD = 'svc_fold';

/**
 * Proxies on the main connection (small management writes, like webhooks). A create is one
 * `INSERT … SELECT … WHERE (SELECT COUNT(*) …) < limit` statement, which SQLite runs as one write transaction: the
 * count and the insert cannot be split by another write from this process or another sharing the file; a stored key
 * hash fails it on the UNIQUE constraint (it throws). An update is a compare-and-set on the version; when it changes
 * nothing, a look-up in the same transaction (when it has effects) tells a conflict from an absent proxy.
 */
export class SqliteProxyRepository implements ProxyRepository {
  private readonly insertBelow: Statement;
  private readonly byId: Statement;
  private readonly byKeyHash: Statement;
  private readonly exists: Statement;
  private readonly replace: Statement;
  private readonly remove: Statement;

  constructor(
    private readonly db: Database,
    private readonly effects = new EffectWrites(db),
  ) {
    db.function(FOLD, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
    this.insertBelow = db.prepare(`INSERT INTO proxies (tenant_id, id, name, destination_url, request_transforms,
      response_transforms, application_id, sealed_configuration, require_auth, timeout_seconds, disable_detokenization,
      key_hash, version, created_by, created_at, modified_by, modified_at)
      SELECT @tenant_id, @id, @name, @destination_url, @request_transforms, @response_transforms, @application_id,
        @sealed_configuration, @require_auth, @timeout_seconds, @disable_detokenization, @key_hash, @version, @created_by,
        @created_at, @modified_by, @modified_at
      WHERE (SELECT COUNT(*) FROM proxies WHERE tenant_id = @tenant_id) < @limit`);
    this.byId = db.prepare('SELECT * FROM proxies WHERE tenant_id = ? AND id = ?');
    this.byKeyHash = db.prepare('SELECT * FROM proxies WHERE key_hash = ?');
    this.exists = db.prepare('SELECT 1 FROM proxies WHERE tenant_id = ? AND id = ?').pluck();
    this.replace = db.prepare(`UPDATE proxies SET name = @name, destination_url = @destination_url,
      request_transforms = @request_transforms, response_transforms = @response_transforms,
      application_id = @application_id, sealed_configuration = @sealed_configuration, require_auth = @require_auth,
      timeout_seconds = @timeout_seconds, disable_detokenization = @disable_detokenization, version = @version,
      modified_by = @modified_by, modified_at = @modified_at
      WHERE tenant_id = @tenant_id AND id = @id AND version = @version - 1`);
    this.remove = db.prepare('DELETE FROM proxies WHERE tenant_id = ? AND id = ?');
  }

  async create(proxy: Proxy, limit: number, effects?: WriteEffects): Promise<CreateProxyOutcome> {
    const insert = (): CreateProxyOutcome => {
      const inserted = this.insertBelow.run({
        ...fields(proxy),
        key_hash: proxy.keyHash,
        created_by: proxy.createdBy,
        created_at: proxy.createdAt.getTime(),
        limit,
      });
      return inserted.changes === 1 ? 'created' : 'limit';
    };
    return this.effects.guarded(insert, (outcome) => outcome === 'created', effects);
  }

  async findById(tenantId: string, id: string): Promise<Proxy | undefined> {
    const row = this.byId.get(tenantId, id) as ProxyRow | undefined;
    return row && toProxy(row);
  }

  async findByKeyHash(keyHash: string): Promise<Proxy | undefined> {
    const row = this.byKeyHash.get(keyHash) as ProxyRow | undefined;
    return row && toProxy(row);
  }

  async list(tenantId: string, filter: ProxyListFilter, page: PageRequest): Promise<Page<Proxy>> {
    let where = 'tenant_id = ?';
    const params: unknown[] = [tenantId];
    if (filter.ids) {
      where += ` AND id IN (${placeholders(filter.ids.length)})`;
      params.push(...filter.ids);
    }
    // instr, not LIKE: the text is matched as it is, `%` and `_` included.
    if (filter.name !== undefined) {
      where += ` AND instr(${FOLD}(name), ?) > 0`;
      params.push(filter.name.toLowerCase());
    }
    return selectPage<ProxyRow, Proxy>(this.db, 'proxies', where, params, page, toProxy);
  }

  async update(proxy: Proxy, effects?: WriteEffects): Promise<UpdateProxyOutcome> {
    const swap = (): UpdateProxyOutcome => {
      if (this.replace.run(fields(proxy)).changes === 1) return 'updated';
      return this.exists.get(proxy.tenantId, proxy.id) === undefined ? 'absent' : 'conflict';
    };
    return this.effects.guarded(swap, (outcome) => outcome === 'updated', effects);
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.guarded(() => this.remove.run(tenantId, id).changes === 1, changed, effects);
  }
}
