import type { Database, Statement } from 'better-sqlite3';
import type { CreateTokenOutcome, Metadata, Page, PageRequest, StoredToken, TokenQuery, TokenRepository, TokenTypeName } from '@svc/core';
import { offsetOf } from '@svc/core';
import { compileTokenQuery, type ProbedLeaf, prefixEnd } from './token-query-sql';
import { metadataIndex } from './metadata-index';
import { date, ms, nul, opt } from './rows';
import type { WriteQueue } from './write-queue';

interface TokenRow {
  tenant_id: string;
  id: string;
  type: TokenTypeName;
  sealed_data: Buffer;
  mask: string | null;
  container: string;
  containers: string;
  metadata: string;
  search_indexes: string | null;
  fingerprint_expression: string;
  fingerprint: string;
  deduplicate_token: number | null;
  created_by: string;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
  expires_at: number | null;
  cvc_expires_at: number | null;
  metadata_index: string;
}

interface IndexedRow extends TokenRow {
  index_hashes: string | null;
}

export function toStoredToken(row: IndexedRow): StoredToken {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    type: row.type,
    sealedData: row.sealed_data,
    mask: row.mask === null ? undefined : (JSON.parse(row.mask) as unknown),
    containers: JSON.parse(row.containers) as string[],
    metadata: JSON.parse(row.metadata) as Metadata,
    searchIndexes: row.search_indexes === null ? undefined : (JSON.parse(row.search_indexes) as string[]),
    fingerprintExpression: row.fingerprint_expression,
    fingerprint: row.fingerprint,
    deduplicateToken: row.deduplicate_token === null ? undefined : row.deduplicate_token === 1,
    indexHashes: row.index_hashes ? row.index_hashes.split(',') : [],
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    modifiedBy: opt(row.modified_by),
    modifiedAt: date(row.modified_at),
    expiresAt: date(row.expires_at),
    cvcExpiresAt: date(row.cvc_expires_at),
  };
}

function toRow(t: StoredToken): TokenRow {
  return {
    tenant_id: t.tenantId,
    id: t.id,
    type: t.type,
    sealed_data: Buffer.from(t.sealedData),
    mask: t.mask === undefined ? null : JSON.stringify(t.mask),
    container: t.containers[0] ?? '/',
    containers: JSON.stringify(t.containers),
    metadata: JSON.stringify(t.metadata),
    search_indexes: t.searchIndexes === undefined ? null : JSON.stringify(t.searchIndexes),
    fingerprint_expression: t.fingerprintExpression,
    fingerprint: t.fingerprint,
    deduplicate_token: t.deduplicateToken === undefined ? null : t.deduplicateToken ? 1 : 0,
    created_by: t.createdBy,
    created_at: t.createdAt.getTime(),
    modified_by: nul(t.modifiedBy),
    modified_at: ms(t.modifiedAt),
    expires_at: ms(t.expiresAt),
    cvc_expires_at: ms(t.cvcExpiresAt),
    metadata_index: metadataIndex(t.metadata),
  };
}

/** Selects a token row with its blind-index hashes folded into one column. */
export const TOKEN_COLUMNS = `t.*, (SELECT group_concat(h.hash) FROM token_index_hashes h
  WHERE h.tenant_id = t.tenant_id AND h.token_id = t.id) AS index_hashes`;

const LIVE = '(t.expires_at IS NULL OR t.expires_at > @now)';

/**
 * Tokens in SQLite: one row per token with the sealed data, plus side tables of blind-index hashes and lower-cased
 * metadata for search. Writes go through the group-commit queue: each runs inside an IMMEDIATE transaction (so
 * dedup is atomic across processes too) and resolves only once committed.
 */
export class SqliteTokenRepository implements TokenRepository {
  private readonly insertToken: Statement;
  private readonly insertHash: Statement;
  private readonly insertMetadata: Statement;
  private readonly deleteHashes: Statement;
  private readonly deleteMetadata: Statement;
  private readonly deleteRow: Statement;
  private readonly replaceRow: Statement;
  private readonly byId: Statement;
  private readonly liveId: Statement;
  private readonly byFingerprint: Statement;
  private readonly expiredIds: Statement;
  private readonly cvcDue: Statement;
  private readonly probeHash: Statement;
  private readonly probeMetadata: Statement;
  private readonly probeContainer: Statement;

  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly writes: WriteQueue,
    /** Side-table matches above which a leaf filters rather than drives a query. */
    private readonly broadLeaf = 2_000,
  ) {
    this.insertToken = db.prepare(`INSERT INTO tokens VALUES (@tenant_id, @id, @type, @sealed_data, @mask, @container,
      @containers, @metadata, @search_indexes, @fingerprint_expression, @fingerprint, @deduplicate_token, @created_by,
      @created_at, @modified_by, @modified_at, @expires_at, @cvc_expires_at, @metadata_index)`);
    this.insertHash = db.prepare('INSERT OR IGNORE INTO token_index_hashes (tenant_id, hash, token_id) VALUES (?, ?, ?)');
    this.insertMetadata = db.prepare('INSERT OR IGNORE INTO token_metadata (tenant_id, key, value, token_id) VALUES (?, ?, ?, ?)');
    this.deleteHashes = db.prepare('DELETE FROM token_index_hashes WHERE tenant_id = ? AND token_id = ?');
    this.deleteMetadata = db.prepare('DELETE FROM token_metadata WHERE tenant_id = ? AND token_id = ?');
    this.deleteRow = db.prepare('DELETE FROM tokens WHERE tenant_id = ? AND id = ?');
    this.replaceRow = db.prepare(`UPDATE tokens SET sealed_data = @sealed_data, mask = @mask, container = @container,
      containers = @containers, metadata = @metadata, search_indexes = @search_indexes,
      fingerprint_expression = @fingerprint_expression, fingerprint = @fingerprint, deduplicate_token = @deduplicate_token,
      modified_by = @modified_by, modified_at = @modified_at, expires_at = @expires_at, cvc_expires_at = @cvc_expires_at,
      metadata_index = @metadata_index
      WHERE tenant_id = @tenant_id AND id = @id`);
    this.byId = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.tenant_id = @tenant AND t.id = @id AND ${LIVE}`);
    this.liveId = db.prepare(`SELECT 1 FROM tokens t WHERE t.tenant_id = @tenant AND t.id = @id AND ${LIVE}`);
    this.byFingerprint = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.tenant_id = @tenant
      AND t.fingerprint = @fingerprint AND t.type = @type AND ${LIVE} ORDER BY t.created_at LIMIT 1`);
    this.expiredIds = db.prepare('SELECT tenant_id, id FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT 1000');
    this.probeHash = db.prepare('SELECT COUNT(*) AS n FROM (SELECT 1 FROM token_index_hashes WHERE tenant_id = ? AND hash = ? LIMIT ?)');
    this.probeMetadata = db.prepare(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM token_metadata WHERE tenant_id = ? AND key = ? AND value = ? LIMIT ?)',
    );
    this.probeContainer = db.prepare(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM tokens WHERE tenant_id = ? AND container >= ? AND container < ? LIMIT ?)',
    );
    this.cvcDue = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.cvc_expires_at IS NOT NULL AND t.cvc_expires_at <= ? LIMIT ?`);
  }

  /** Runs in the write queue's transaction, so the dedup look-up and the insert are one atomic step. */
  create(token: StoredToken, options: { deduplicate: boolean; now: Date }): Promise<CreateTokenOutcome> {
    return this.writes.run((): CreateTokenOutcome => {
      const params = { tenant: token.tenantId, id: token.id, fingerprint: token.fingerprint, type: token.type, now: options.now.getTime() };
      if (options.deduplicate) {
        const existing = this.byFingerprint.get(params) as IndexedRow | undefined;
        if (existing) return { status: 'existing', token: toStoredToken(existing) };
      }
      if (this.liveId.get(params)) return { status: 'duplicate_id' };
      this.removeRows(token.tenantId, token.id);
      this.insertToken.run(toRow(token));
      this.insertSideRows(token);
      return { status: 'created' };
    });
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredToken | undefined> {
    const row = this.byId.get({ tenant: tenantId, id, now: now.getTime() }) as IndexedRow | undefined;
    return row && toStoredToken(row);
  }

  update(token: StoredToken): Promise<boolean> {
    return this.writes.run(() => {
      if (this.replaceRow.run(toRow(token)).changes !== 1) return false;
      this.deleteHashes.run(token.tenantId, token.id);
      this.deleteMetadata.run(token.tenantId, token.id);
      this.insertSideRows(token);
      return true;
    });
  }

  delete(tenantId: string, id: string): Promise<boolean> {
    return this.writes.run(() => this.removeRows(tenantId, id));
  }

  async search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>> {
    const where = compileTokenQuery(query, tenantId, (leaf) => this.isBroad(tenantId, leaf));
    const clause = `t.tenant_id = ? AND (t.expires_at IS NULL OR t.expires_at > ?) AND ${where.sql}`;
    const params = [tenantId, now.getTime(), ...where.params];
    const total = (this.statement(`SELECT COUNT(*) AS n FROM tokens t WHERE ${clause}`).get(...params) as { n: number }).n;
    const rows =
      total <= offsetOf(page)
        ? []
        : (this.statement(`SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE ${clause} ORDER BY t.created_at DESC, t.id DESC LIMIT ? OFFSET ?`).all(
            ...params,
            page.size,
            offsetOf(page),
          ) as IndexedRow[]);
    return { items: rows.map(toStoredToken), total, page: page.page, size: page.size };
  }

  /** A bounded count: at most this.broadLeaf + 1 index entries are read to tell a broad leaf from a narrow one. */
  private isBroad(tenantId: string, leaf: ProbedLeaf): boolean {
    const limit = this.broadLeaf + 1;
    let found: unknown;
    if (leaf.kind === 'data') found = this.probeHash.get(tenantId, leaf.value, limit);
    else if (leaf.kind === 'metadata') found = this.probeMetadata.get(tenantId, leaf.key, leaf.value, limit);
    else found = this.probeContainer.get(tenantId, leaf.path, leaf.prefix ? prefixEnd(leaf.path) : `${leaf.path}\u0000`, limit);
    return (found as { n: number }).n > this.broadLeaf;
  }

  /** Prepared statements by SQL text: queries of the same shape reuse one plan. */
  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= 500) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async deleteExpired(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = this.expiredIds.all(now.getTime()) as Array<{ tenant_id: string; id: string }>;
      if (rows.length === 0) return total;
      await this.writes.run(() => rows.forEach((r) => this.removeRows(r.tenant_id, r.id)));
      total += rows.length;
    }
  }

  async findCvcDue(now: Date, limit: number): Promise<readonly StoredToken[]> {
    return (this.cvcDue.all(now.getTime(), limit) as IndexedRow[]).map(toStoredToken);
  }

  private removeRows(tenantId: string, id: string): boolean {
    this.deleteHashes.run(tenantId, id);
    this.deleteMetadata.run(tenantId, id);
    return this.deleteRow.run(tenantId, id).changes === 1;
  }

  private insertSideRows(token: StoredToken): void {
    for (const hash of token.indexHashes) this.insertHash.run(token.tenantId, hash, token.id);
    for (const [key, value] of Object.entries(token.metadata)) {
      this.insertMetadata.run(token.tenantId, key.toLowerCase(), value.toLowerCase(), token.id);
    }
  }
}
