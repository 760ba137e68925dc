import { AuditKeyCourier } from './audit-key-courier';
import type { Database, Statement } from 'better-sqlite3';
import type {
  CreateManyOutcome,
  CreateTokenOptions,
  CreateTokenOutcome,
  EffectsIfOutcomes,
  KeysetPage,
  KeysetRequest,
  Page,
  PageRequest,
  StoredToken,
  TokenQuery,
  TokenRepository,
  TokenToCreate,
  UpdateTokenOutcome,
  WriteEffects,
} from '@svc/core';
import { offsetOf, pageOf, tokenExpiryEffects } from '@svc/core';
import { boundedByIds, compileTokenQuery, matchBound, pairEntries, pairOfType, type ProbedLeaf, prefixEnd, type SqlFragment } from './token-query-sql';
import { type IndexedTuple, LIVE, OLDEST_BY_FINGERPRINT, selectTokens, TOKEN_COLUMNS, toStoredToken } from './token-rows';
import type { TokenWriter } from './write-queue';
import type { SearchReaders } from './search-readers';


/**
 * Tokens in SQLite: one row per token with the sealed data, plus side tables of blind-index hashes and lower-cased
 * metadata for search. Writes go through the group-commit queue: each runs inside an IMMEDIATE transaction (so
 * dedup is atomic across processes too) and resolves only once committed.
 */
export class SqliteTokenRepository implements TokenRepository {
  private readonly byId: Statement;
  private readonly byFingerprint: Statement;
  private readonly byIds: Statement;
  private readonly expired: Statement;
  private readonly cvcDue: Statement;
  private readonly probeHash: Statement;
  private readonly probeMetadata: Statement;
  private readonly probeContainer: Statement;
  private readonly firstContainer: Statement;
  private readonly anyExpired: Statement;
  /**
   * One read transaction: the probes, the containers a count expands to, the count and the page see one snapshot.
   * Made once: better-sqlite3 builds a transaction function's wrappers each time `transaction()` is called.
   */
  private readonly searchInSnapshot: (tenantId: string, query: TokenQuery, page: PageRequest, now: Date) => Page<StoredToken>;
  private readonly nextContainer: Statement;

  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly writer: TokenWriter,
    /** Side-table matches above which a leaf filters rather than drives a query. */
    private readonly broadLeaf = 2_000,
    /** Reader threads that answer searches off the event loop; searches run here when absent. */
    private readonly readers?: SearchReaders,
    /** Audit keys for the writer, so it chains the events of token writes as it inserts them. */
    private readonly courier = new AuditKeyCourier(),
  ) {
    // Positional parameters: binding by name showed in profiles of the token read, the hottest statement.
    this.byFingerprint = selectTokens(db, OLDEST_BY_FINGERPRINT);
    this.byId = selectTokens(db, `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.tenant_id = ? AND t.id = ? AND ${LIVE}`);
    // The ids travel as one JSON array: one statement, one plan and one round trip whatever their number.
    this.byIds = selectTokens(
      db,
      `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.tenant_id = ? AND t.id IN (SELECT value FROM json_each(?)) AND ${LIVE}`,
    );
    this.expired = selectTokens(db, `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.expires_at IS NOT NULL AND t.expires_at <= ? LIMIT 1000`);
    this.probeHash = db.prepare('SELECT COUNT(*) AS n FROM (SELECT 1 FROM token_index_hashes WHERE tenant_id = ? AND hash = ? LIMIT ?)');
    this.probeMetadata = db.prepare(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM token_metadata WHERE tenant_id = ? AND key = ? AND value = ? LIMIT ?)',
    );
    this.probeContainer = db.prepare(
      'SELECT COUNT(*) AS n FROM (SELECT 1 FROM tokens WHERE tenant_id = ? AND container >= ? AND container < ? LIMIT ?)',
    );
    this.searchInSnapshot = db.transaction((tenantId: string, query: TokenQuery, page: PageRequest, now: Date) =>
      this.searchSnapshot(tenantId, query, page, now),
    );
    // Any token (of any tenant) expired and not yet swept: the first entry of tokens_by_expiry, one seek.
    this.anyExpired = db.prepare('SELECT 1 FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT 1').pluck();
    // The containers under a prefix, one index seek each: the first at or after the prefix, then the next after each.
    this.firstContainer = db
      .prepare('SELECT container FROM tokens WHERE tenant_id = ? AND container >= ? AND container < ? ORDER BY container LIMIT 1')
      .pluck();
    this.nextContainer = db
      .prepare('SELECT container FROM tokens WHERE tenant_id = ? AND container > ? AND container < ? ORDER BY container LIMIT 1')
      .pluck();
    this.cvcDue = selectTokens(db, `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.cvc_expires_at IS NOT NULL AND t.cvc_expires_at <= ? LIMIT ?`);
  }

  /** Runs in the writer's transaction, so the dedup look-up and the insert are one atomic step. */
  create(token: StoredToken, options: CreateTokenOptions): Promise<CreateTokenOutcome> {
    const { deduplicate, now, effects, intentId } = options;
    if (effects && this.courier.needs(token.tenantId)) return this.withKeys(token.tenantId, () => this.create(token, options));
    return this.writer.run({ op: 'create', token, deduplicate, now: now.getTime(), effects, intentId }) as Promise<CreateTokenOutcome>;
  }

  /** One write of the queue, run in one savepoint of its batch's transaction: all stored, or none. */
  createMany(tokens: readonly TokenToCreate[], now: Date, ifOutcomes?: EffectsIfOutcomes): Promise<CreateManyOutcome> {
    const tenantId = tokens[0]?.token.tenantId;
    if (tenantId !== undefined && this.courier.needs(tenantId)) return this.withKeys(tenantId, () => this.createMany(tokens, now, ifOutcomes));
    return this.writer.run({ op: 'createMany', tokens, now: now.getTime(), ifOutcomes }) as Promise<CreateManyOutcome>;
  }

  /** As the writer's deduplication looks it up (TokenWrites), on this connection. */
  async findByFingerprint(tenantId: string, type: StoredToken['type'], fingerprint: string, now: Date): Promise<StoredToken | undefined> {
    const row = this.byFingerprint.get(tenantId, fingerprint, type, now.getTime()) as IndexedTuple | undefined;
    return row && toStoredToken(row);
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredToken | undefined> {
    const row = this.byId.get(tenantId, id, now.getTime()) as IndexedTuple | undefined;
    return row && toStoredToken(row);
  }

  async findMany(tenantId: string, ids: readonly string[], now: Date): Promise<ReadonlyMap<string, StoredToken>> {
    const found = new Map<string, StoredToken>();
    if (ids.length === 0) return found;
    for (const row of this.byIds.all(tenantId, JSON.stringify(ids), now.getTime()) as IndexedTuple[]) {
      const token = toStoredToken(row);
      found.set(token.id, token);
    }
    return found;
  }

  /** Compare-and-set inside the writer's transaction: `UPDATE … WHERE version = ?` matches the row only as it was read. */
  update(token: StoredToken, now: Date, effects?: WriteEffects): Promise<UpdateTokenOutcome> {
    if (effects && this.courier.needs(token.tenantId)) return this.withKeys(token.tenantId, () => this.update(token, now, effects));
    return this.writer.run({ op: 'update', token, now: now.getTime(), effects }) as Promise<UpdateTokenOutcome>;
  }

  delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    if (effects && this.courier.needs(tenantId)) return this.withKeys(tenantId, () => this.delete(tenantId, id, effects));
    return this.writer.run({ op: 'delete', tenantId, id, effects }) as Promise<boolean>;
  }

  async search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>> {
    // One id alone (`id:…` by a caller whose rules reach every token) is the token's own seek, as a read by id, with
    // its expiry in the statement; one statement needs no read transaction around it. The general plan took four
    // statements and a transaction (43 µs against 10 in profiles).
    if (query.kind === 'term' && query.field === 'id') {
      const row = this.byId.get(tenantId, query.value, now.getTime()) as IndexedTuple | undefined;
      return pageOf(row && offsetOf(page) === 0 ? [toStoredToken(row)] : [], row ? 1 : 0, page);
    }
    // A search by id is a few primary-key seeks: it runs here, as a read by id does, and the rest on a reader thread.
    if (this.readers?.alive && !boundedByIds(query)) return this.readers.search(tenantId, query, page, now);
    return this.searchInSnapshot(tenantId, query, page, now);
  }

  /** Runs inside `searchInSnapshot`'s read transaction. */
  private searchSnapshot(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Page<StoredToken> {
    // Every token is live unless one has expired and the sweeper has not removed it yet (one seek of
    // tokens_by_expiry, in this snapshot): then the expiry check is left out, and a count over 150,000 index entries
    // tests one term fewer on each. When it stays, it comes last: SQLite tests a scan's terms in the order written.
    const live = this.anyExpired.get(now.getTime()) === undefined ? { sql: '', params: [] } : { sql: ` AND ${LIVE}`, params: [now.getTime()] };
    // A metadata pair of one type, within a date range or not, when every token is live: one range of the pair's
    // entries (sorted by type and created_at) is every match, counted there without reading a token (at 10M, 51,147
    // gold-plan SSNs of two weeks: 12.2 ms of testing 153,440 SSNs' metadata against 1.8 ms, in-process).
    const ofType = live.sql === '' ? pairOfType(query) : undefined;
    if (ofType) {
      const entries = pairEntries(tenantId, ofType);
      const total = (this.statement(`SELECT COUNT(*) AS n FROM token_metadata m WHERE ${entries.sql}`).get(...entries.params) as { n: number }).n;
      return this.pairPage(tenantId, entries, total, page);
    }
    // Each probed leaf's bounded count of matches (at most the broad-leaf threshold + 1).
    const probed = new Map<ProbedLeaf, number>();
    const isBroad = (leaf: ProbedLeaf): boolean => {
      let found = probed.get(leaf);
      if (found === undefined) probed.set(leaf, (found = this.probe(tenantId, leaf)));
      return found > this.broadLeaf;
    };
    const where = compileTokenQuery(query, tenantId, isBroad);
    // One narrow metadata pair (a customer's tokens) when every token is live: the probe counted its entries, which
    // are its tokens, and the page is sorted in those entries; only the page's tokens are read. Otherwise each match
    // is a seek into tokens for its created_at (at 10M tokens, a customer's 200: 0.42 → 0.18 ms, in-process).
    if (query.kind === 'metadata' && live.sql === '') {
      const found = probed.get(query);
      if (found !== undefined && found <= this.broadLeaf) return this.pairPage(tenantId, pairEntries(tenantId, query), found, page);
    }
    // The count reads a broad container prefix as its few containers (ContainerExpansion), unless a narrow leaf
    // drives the query: then that leaf's few tokens are all the count reads, and the planner must keep choosing it.
    const expand =
      [...probed].some(([leaf, found]) => found > this.broadLeaf && leaf.kind === 'container' && leaf.prefix) &&
      [...probed.values()].every((found) => found > this.broadLeaf);
    const counted = expand ? compileTokenQuery(query, tenantId, isBroad, (prefix) => this.containersUnder(tenantId, prefix)) : where;
    // At most a narrow leaf's tokens match (or the ids named). Past a page of them, one pass gives the count (a window
    // over every match) and the page, instead of reading them once to count and again to sort (0.56–0.70 → 0.41 ms
    // for a customer's 200 tokens at 10M); for a page or fewer the window's temporary tables cost more than a second
    // read (53 against 22 µs for one id). A page past the end has no row to carry the count, so it counts below.
    const bound = matchBound(query, (leaf) => {
      const found = probed.get(leaf);
      return found !== undefined && found <= this.broadLeaf ? found : undefined;
    });
    if (bound !== undefined && bound > page.size) {
      const paged = this.statement(
        `WITH page AS (SELECT t.rowid AS r, COUNT(*) OVER () AS n FROM tokens t WHERE t.tenant_id = ? AND ${where.sql}${live.sql}
          ORDER BY t.created_at DESC, t.id DESC LIMIT ? OFFSET ?)
        SELECT ${TOKEN_COLUMNS}, page.n FROM page JOIN tokens t ON t.rowid = page.r ORDER BY t.created_at DESC, t.id DESC`,
        true,
      ).all(tenantId, ...where.params, ...live.params, page.size, offsetOf(page)) as Array<[...IndexedTuple, number]>;
      if (paged.length > 0) {
        const total = paged[0]!.at(-1) as number;
        return pageOf(paged.map((row) => toStoredToken(row.slice(0, -1) as IndexedTuple)), total, page);
      }
    }
    const total = (
      this.statement(`SELECT COUNT(*) AS n FROM tokens t WHERE t.tenant_id = ? AND ${counted.sql}${live.sql}`).get(
        tenantId,
        ...counted.params,
        ...live.params,
      ) as { n: number }
    ).n;
    if (total <= offsetOf(page)) return pageOf([], total, page);
    // A page or fewer bounded matches are sorted whole. Otherwise the page is chosen by rowid first and only its rows
    // are read in full: the full columns include a sub-select of the token's index hashes, which SQLite would
    // otherwise run for every match it sorts (200 of them for a customer's tokens at 10M: 0.78 → 0.44 ms).
    const matches = `FROM tokens t WHERE t.tenant_id = ? AND ${where.sql}${live.sql} ORDER BY t.created_at DESC, t.id DESC LIMIT ? OFFSET ?`;
    const sql =
      bound !== undefined
        ? `SELECT ${TOKEN_COLUMNS} ${matches}`
        : `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.rowid IN (SELECT t.rowid ${matches}) ORDER BY t.created_at DESC, t.id DESC`;
    const rows = this.statement(sql, true).all(tenantId, ...where.params, ...live.params, page.size, offsetOf(page)) as IndexedTuple[];
    return pageOf(rows.map(toStoredToken), total, page);
  }

  /** A page of the tokens of a pair's `entries` (`total` of them), newest first: sorted in the entries, then read. */
  private pairPage(tenantId: string, entries: SqlFragment, total: number, page: PageRequest): Page<StoredToken> {
    if (total <= offsetOf(page)) return pageOf([], total, page);
    const rows = this.statement(
      `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.tenant_id = ? AND t.id IN (SELECT m.token_id FROM token_metadata m
        WHERE ${entries.sql} ORDER BY m.created_at DESC, m.token_id DESC LIMIT ? OFFSET ?) ORDER BY t.created_at DESC, t.id DESC`,
      true,
    ).all(tenantId, ...entries.params, page.size, offsetOf(page)) as IndexedTuple[];
    return pageOf(rows.map(toStoredToken), total, page);
  }

  /** The containers under `prefix` that hold tokens, when there are at most 32 of them; `undefined` when more. */
  private containersUnder(tenantId: string, prefix: string): readonly string[] | undefined {
    const end = prefixEnd(prefix);
    const found: string[] = [];
    for (let next = this.firstContainer.get(tenantId, prefix, end) as string | undefined; next !== undefined; ) {
      if (found.length === 32) return undefined;
      found.push(next);
      next = this.nextContainer.get(tenantId, next, end) as string | undefined;
    }
    return found;
  }

  /**
   * One more row than asked tells whether more follow. `(created_at, id) < (?, ?)` is a row-value comparison, which
   * SQLite turns into a range of `tokens_by_created`: a deep page seeks its start instead of skipping rows.
   */
  async searchAfter(tenantId: string, query: TokenQuery, request: KeysetRequest, now: Date): Promise<KeysetPage<StoredToken>> {
    if (this.readers?.alive && !boundedByIds(query)) return this.readers.searchAfter(tenantId, query, request, now);
    const { after, size } = request;
    const where = compileTokenQuery(query, tenantId, (leaf) => this.isBroad(tenantId, leaf));
    // As in `search`: the page by rowid first, the expiry check last.
    const sql = `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.rowid IN (SELECT t.rowid FROM tokens t WHERE t.tenant_id = ?${after ? ' AND (t.created_at, t.id) < (?, ?)' : ''}
      AND ${where.sql} AND ${LIVE} ORDER BY t.created_at DESC, t.id DESC LIMIT ?) ORDER BY t.created_at DESC, t.id DESC`;
    const position = after ? [after.createdAt.getTime(), after.id] : [];
    const rows = this.statement(sql, true).all(tenantId, ...position, ...where.params, now.getTime(), size + 1) as IndexedTuple[];
    return { items: rows.slice(0, size).map(toStoredToken), hasMore: rows.length > size };
  }

  /** A bounded count: at most this.broadLeaf + 1 index entries are read to tell a broad leaf from a narrow one. */
  private probe(tenantId: string, leaf: ProbedLeaf): number {
    const limit = this.broadLeaf + 1;
    let found: unknown;
    if (leaf.kind === 'data') found = this.probeHash.get(tenantId, leaf.value, limit);
    else if (leaf.kind === 'metadata') found = this.probeMetadata.get(tenantId, leaf.key, leaf.value, limit);
    else found = this.probeContainer.get(tenantId, leaf.path, leaf.prefix ? prefixEnd(leaf.path) : `${leaf.path}\u0000`, limit);
    return (found as { n: number }).n;
  }

  private isBroad(tenantId: string, leaf: ProbedLeaf): boolean {
    return this.probe(tenantId, leaf) > this.broadLeaf;
  }

  /** Prepared statements by SQL text: queries of the same shape reuse one plan. `tokens` selects `IndexedTuple`s. */
  private statement(sql: string, tokens = false): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= 500) this.statements.clear();
      statement = tokens ? selectTokens(this.db, sql) : this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Reads expired tokens here, a thousand at a time, builds what each removal brings (`tokenExpiryEffects`) and posts
   * them with one write: the writer removes only those still expired and as read, and stores the effects of those.
   * A batch that removed nothing (every token changed meanwhile) ends the sweep; the next one finds them again.
   */
  /**
   * Hands the writer a tenant's audit key (once, as a write of its own, ahead of `write`), then runs `write`. Writes
   * are applied in the order they are posted, so every later write of the tenant finds the key there.
   */
  private async withKeys<T>(tenantId: string, write: () => Promise<T>): Promise<T> {
    const auditKeys = await this.courier.keysFor([tenantId]);
    if (auditKeys) await this.writer.run({ op: 'appendEvents', events: [], auditKeys });
    return write();
  }

  async deleteExpired(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const tokens = (this.expired.all(now.getTime()) as IndexedTuple[]).map(toStoredToken);
      if (tokens.length === 0) return total;
      const expired = tokens.map((t) => ({
        tenantId: t.tenantId,
        id: t.id,
        version: t.version,
        createdAt: t.createdAt.getTime(),
        effects: tokenExpiryEffects(t, now),
      }));
      const removed = (await this.writer.run({ op: 'deleteMany', tokens: expired, now: now.getTime() })) as number;
      if (removed === 0) return total;
      total += removed;
    }
  }

  eraseCvc(token: StoredToken, sealedData: Uint8Array): Promise<boolean> {
    const { tenantId, id, version } = token;
    return this.writer.run({ op: 'eraseCvc', tenantId, id, sealedData, version, createdAt: token.createdAt.getTime() }) as Promise<boolean>;
  }

  async findCvcDue(now: Date, limit: number): Promise<readonly StoredToken[]> {
    return (this.cvcDue.all(now.getTime(), limit) as IndexedTuple[]).map(toStoredToken);
  }
}
