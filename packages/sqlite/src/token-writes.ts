import type { Database, Statement } from 'better-sqlite3';
import type {
  AuditEvent,
  ChainAnchor,
  ChainedAuditEvent,
  CreateManyOutcome,
  CreateTokenOutcome,
  EffectsIfOutcomes,
  StoredToken,
  TokenStored,
  TokenToCreate,
  UpdateTokenOutcome,
  WriteEffects,
} from '@svc/core';
import { outcomesAsExpected, tokenExpiryEffects } from '@svc/core';
import { AuditChainWrites } from './audit-chain-writes';
import { EffectWrites } from './effect-writes';
import { type IndexedTuple, OLDEST_BY_FINGERPRINT, selectTokens, TOKEN_COLUMNS, TOKEN_ROW_COLUMNS, tokenRowValues, toRow, toStoredToken } from './token-rows';

/** A token the sweeper read as expired: removed only if it still is, and as it was read. */
export interface ExpiredToken {
  readonly tenantId: string;
  readonly id: string;
  /** The version and creation time it was read at: a token changed or replaced since is left to the next sweep. */
  readonly version: number;
  readonly createdAt: number;
  /** What its removal brings (`tokenExpiryEffects`), stored only if it is removed. */
  readonly effects: WriteEffects;
}

/**
 * One token write, as data: it can run in this thread or be posted to the writer thread (structured clone: dates
 * inside tokens and effects arrive as Dates). `effects` are stored in the write's savepoint when the write changed
 * something, never on a duplicate id, a deduplication, a conflict or a delete of nothing.
 */
/** Any write may bring tenants' audit keys the connection has not had yet (see AuditKeyCourier). */
export type TokenWrite = { readonly auditKeys?: Readonly<Record<string, Uint8Array>> | undefined } & (
  | {
      readonly op: 'create';
      readonly token: StoredToken;
      readonly deduplicate: boolean;
      readonly now: number;
      readonly effects?: WriteEffects | undefined;
      readonly intentId?: string | undefined;
    }
  | { readonly op: 'createMany'; readonly tokens: readonly TokenToCreate[]; readonly now: number; readonly ifOutcomes?: EffectsIfOutcomes | undefined }
  | { readonly op: 'update'; readonly token: StoredToken; readonly now: number; readonly effects?: WriteEffects | undefined }
  | { readonly op: 'delete'; readonly tenantId: string; readonly id: string; readonly effects?: WriteEffects | undefined }
  | {
      readonly op: 'eraseCvc';
      readonly tenantId: string;
      readonly id: string;
      readonly sealedData: Uint8Array;
      /** The version and creation time the token was read at: the erasure is refused when either changed. */
      readonly version: number;
      readonly createdAt: number;
    }
  /** Removes the tokens still expired at `now` (and as read); returns how many it removed. */
  | { readonly op: 'deleteMany'; readonly tokens: readonly ExpiredToken[]; readonly now: number }
  /** Audit events of no write (reads, refusals), as the recorder flushes them. */
  | { readonly op: 'appendEvents'; readonly events: readonly AuditEvent[] }
  /** The chainer's compare-and-set on a tenant's chain head (see AuditChainWrites); true when applied. */
  | { readonly op: 'chainEvents'; readonly tenantId: string; readonly head: ChainAnchor; readonly chained: readonly ChainedAuditEvent[] }
  /** The chainer's whole step on the writer: read the unchained events, hash them after the head, place them. */
  | { readonly op: 'chainPending'; readonly tenantId: string; readonly key: Uint8Array; readonly limit: number }
  /** Nothing: the store's readiness probe, answered once the writer has run a batch. */
  | { readonly op: 'ping' }
);

/** Thrown inside a savepoint to undo it; never leaves TokenWrites. */
const ROLL_BACK = Symbol('roll back');

/**
 * The token writes (and the audit log's own: appended events, the chainer's places), synchronous, on one connection; the caller runs each inside a transaction. The dedup look-up
 * and the insert happen in that one transaction, which is what makes deduplication atomic.
 */
export class TokenWrites {
  private readonly insertToken: Statement;
  private readonly insertHash: Statement;
  private readonly insertMetadata: Statement;
  private readonly deleteHashes: Statement;
  private readonly deleteMetadata: Statement;
  private readonly deleteRow: Statement;
  private readonly replaceRow: Statement;
  private readonly idExpiry: Statement;
  private readonly replaceSealed: Statement;
  private readonly byFingerprint: Statement;
  private readonly deleteExpiredRow: Statement;
  private readonly anyById: Statement;
  private readonly useUpIntent: Statement;
  private readonly effects: EffectWrites;
  private readonly chains: AuditChainWrites;

  constructor(db: Database) {
    this.chains = new AuditChainWrites(db);
    this.effects = new EffectWrites(db, this.chains);
    this.insertToken = db.prepare(
      `INSERT INTO tokens (${TOKEN_ROW_COLUMNS.join(', ')}) VALUES (${TOKEN_ROW_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.insertHash = db.prepare('INSERT OR IGNORE INTO token_index_hashes (tenant_id, hash, token_id) VALUES (?, ?, ?)');
    this.insertMetadata = db.prepare(
      'INSERT OR IGNORE INTO token_metadata (tenant_id, key, value, type, created_at, token_id) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.deleteHashes = db.prepare('DELETE FROM token_index_hashes WHERE tenant_id = ? AND token_id = ?');
    this.deleteMetadata = db.prepare('DELETE FROM token_metadata WHERE tenant_id = ? AND token_id = ?');
    this.deleteRow = db.prepare('DELETE FROM tokens WHERE tenant_id = ? AND id = ?');
    this.deleteExpiredRow = db.prepare(`DELETE FROM tokens WHERE tenant_id = ? AND id = ? AND version = ? AND created_at = ?
      AND expires_at IS NOT NULL AND expires_at <= ?`);
    // The type too, though the use cases never change it: the metadata pairs are written with the token's type.
    this.replaceRow = db.prepare(`UPDATE tokens SET type = @type, sealed_data = @sealed_data, mask = @mask, container = @container,
      containers = @containers, metadata = @metadata, search_indexes = @search_indexes,
      fingerprint_expression = @fingerprint_expression, fingerprint = @fingerprint, deduplicate_token = @deduplicate_token,
      modified_by = @modified_by, modified_at = @modified_at, expires_at = @expires_at, cvc_expires_at = @cvc_expires_at,
      metadata_index = @metadata_index, version = version + 1
      WHERE tenant_id = @tenant_id AND id = @id AND version = @version AND created_at = @created_at
        AND (expires_at IS NULL OR expires_at > @now)`);
    this.replaceSealed = db.prepare(`UPDATE tokens SET sealed_data = ?, cvc_expires_at = NULL, version = version + 1
      WHERE tenant_id = ? AND id = ? AND version = ? AND created_at = ? AND cvc_expires_at IS NOT NULL`);
    // undefined: no row with this id; null or a time: a row, live unless that time has passed.
    this.idExpiry = db.prepare('SELECT expires_at FROM tokens WHERE tenant_id = ? AND id = ?').pluck();
    this.anyById = selectTokens(db, `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.tenant_id = ? AND t.id = ?`);
    this.useUpIntent = db.prepare('DELETE FROM token_intents WHERE tenant_id = ? AND id = ? AND expires_at > ?');
    this.byFingerprint = selectTokens(db, OLDEST_BY_FINGERPRINT);
  }

  apply(write: TokenWrite): unknown {
    if (write.auditKeys) this.effects.learnKeys(write.auditKeys);
    switch (write.op) {
      case 'create':
        return this.createOne(write.token, write.deduplicate, write.now, write.effects, write.intentId);
      case 'createMany':
        return this.createMany(write.tokens, write.now, write.ifOutcomes);
      case 'update':
        return this.update(write.token, write.now, write.effects);
      case 'delete': {
        const removed = this.remove(write.tenantId, write.id);
        if (removed) this.effects.write(write.effects);
        return removed;
      }
      case 'eraseCvc':
        return this.replaceSealed.run(Buffer.from(write.sealedData), write.tenantId, write.id, write.version, write.createdAt).changes === 1;
      case 'deleteMany':
        return this.removeExpired(write.tokens, write.now);
      case 'appendEvents':
        return this.effects.write({ events: write.events, messages: [] });
      case 'chainEvents':
        return this.chains.chain(write.tenantId, write.head, write.chained);
      case 'chainPending':
        return this.chains.chainPending(write.tenantId, write.key, write.limit);
      case 'ping':
        return true;
    }
  }

  /**
   * A create, and the intent it is made of used up in the same savepoint when the token is created: an intent no
   * longer live (used, deleted, expired) stores nothing. A deduplication writes nothing and leaves the intent (the
   * caller takes it with its answer). Only intents' creates pay for the savepoint.
   */
  private createOne(token: StoredToken, deduplicate: boolean, now: number, effects: WriteEffects | undefined, intentId: string | undefined): CreateTokenOutcome {
    if (intentId === undefined) return this.create(token, deduplicate, now, effects);
    let outcome: CreateTokenOutcome | undefined;
    try {
      this.chains.savepoint(() => {
        outcome = this.create(token, deduplicate, now, effects);
        if (outcome.status === 'created' && !this.useUp(token.tenantId, intentId, now)) outcome = { status: 'intent_gone' };
        if (outcome.status === 'intent_gone') throw ROLL_BACK;
      });
    } catch (error) {
      if (error !== ROLL_BACK) throw error;
    }
    return outcome!;
  }

  /** Removes the live intent; false when there is none (it was used up, deleted or has expired). */
  private useUp(tenantId: string, intentId: string, now: number): boolean {
    return this.useUpIntent.run(tenantId, intentId, now).changes === 1;
  }

  private create(token: StoredToken, deduplicate: boolean, now: number, effects: WriteEffects | undefined): TokenStored | { status: 'duplicate_id' } {
    if (deduplicate) {
      const existing = this.byFingerprint.get(token.tenantId, token.fingerprint, token.type, now) as IndexedTuple | undefined;
      if (existing) return { status: 'existing', token: toStoredToken(existing) };
    }
    const row = tokenRowValues(toRow(token));
    // Insert first: ids are almost always new, and the primary key finds a clash without a look-up of its own.
    try {
      this.insertToken.run(row);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw error;
      const expiry = this.idExpiry.get(token.tenantId, token.id) as number | null | undefined;
      if (expiry === null || (expiry !== undefined && expiry > now)) return { status: 'duplicate_id' };
      // An expired token the sweeper has not erased yet gives its id up, with what the sweeper's removal would bring.
      const expired = toStoredToken(this.anyById.get(token.tenantId, token.id) as IndexedTuple);
      this.remove(token.tenantId, token.id);
      this.effects.write(tokenExpiryEffects(expired, new Date(now)));
      this.insertToken.run(row);
    }
    this.insertSideRows(token);
    this.effects.write(effects);
    return { status: 'created' };
  }

  /**
   * Every create in one savepoint of the batch's transaction: a duplicate id or an intent not live rolls the savepoint
   * back, so either all tokens are stored (and their intents used up) or none. Later creates see the earlier ones
   * (same connection, same transaction), so a second token of one fingerprint deduplicates to the first, a repeated id
   * is a duplicate, and an intent named twice is gone the second time.
   */
  private createMany(tokens: readonly TokenToCreate[], now: number, ifOutcomes: EffectsIfOutcomes | undefined): CreateManyOutcome {
    let outcome: CreateManyOutcome | undefined;
    try {
      this.chains.savepoint(() => {
        const outcomes: TokenStored[] = [];
        for (const [index, { token, deduplicate, effects, intentId, effectsIfExisting }] of tokens.entries()) {
          if (intentId !== undefined && !this.useUp(token.tenantId, intentId, now)) {
            outcome = { status: 'intent_gone', index };
            throw ROLL_BACK;
          }
          const created = this.create(token, deduplicate, now, effects);
          if (created.status === 'duplicate_id') {
            outcome = { status: 'duplicate_id', index };
            throw ROLL_BACK;
          }
          if (created.status === 'existing') this.effects.write(effectsIfExisting);
          outcomes.push(created);
        }
        if (ifOutcomes && outcomesAsExpected(outcomes, ifOutcomes.expected)) this.effects.write(ifOutcomes.effects);
        outcome = { status: 'created', outcomes };
      });
    } catch (error) {
      if (error !== ROLL_BACK) throw error;
    }
    return outcome!;
  }

  /** Compare-and-set: the UPDATE matches only the row as it was read; when it matches none, the row says why. */
  private update(token: StoredToken, now: number, effects: WriteEffects | undefined): UpdateTokenOutcome {
    if (this.replaceRow.run({ ...toRow(token), now }).changes !== 1) {
      const expiry = this.idExpiry.get(token.tenantId, token.id) as number | null | undefined;
      return expiry === undefined || (expiry !== null && expiry <= now) ? { status: 'gone' } : { status: 'conflict' };
    }
    this.deleteHashes.run(token.tenantId, token.id);
    this.deleteMetadata.run(token.tenantId, token.id);
    this.insertSideRows(token);
    this.effects.write(effects);
    return { status: 'updated' };
  }

  /** The sweeper's removals: each token only if still expired at `now` and as read, its effects only if removed. */
  private removeExpired(tokens: readonly ExpiredToken[], now: number): number {
    let removed = 0;
    for (const t of tokens) {
      if (this.deleteExpiredRow.run(t.tenantId, t.id, t.version, t.createdAt, now).changes !== 1) continue;
      this.deleteHashes.run(t.tenantId, t.id);
      this.deleteMetadata.run(t.tenantId, t.id);
      this.effects.write(t.effects);
      removed++;
    }
    return removed;
  }

  private remove(tenantId: string, id: string): boolean {
    this.deleteHashes.run(tenantId, id);
    this.deleteMetadata.run(tenantId, id);
    return this.deleteRow.run(tenantId, id).changes === 1;
  }

  /** Runs one write in a savepoint (see AuditChainWrites.savepoint: a write undone takes its chain places with it). */
  savepoint<T>(work: () => T): T {
    return this.chains.savepoint(work);
  }

  /** Runs a transaction's writes, then writes the chain heads they moved (see EffectWrites.settle). */
  settle<T>(work: () => T): T {
    return this.effects.settle(work);
  }

  private insertSideRows(token: StoredToken): void {
    for (const hash of token.indexHashes) this.insertHash.run(token.tenantId, hash, token.id);
    for (const [key, value] of Object.entries(token.metadata)) {
      this.insertMetadata.run(token.tenantId, key.toLowerCase(), value.toLowerCase(), token.type, token.createdAt.getTime(), token.id);
    }
  }
}

/** Thrown out of the quick path of `applyBatch` when one of its writes threw; never leaves this module. */
class WriteThrew {
  constructor(readonly error: unknown) {}
}

/**
 * Runs a batch of writes in one IMMEDIATE transaction; one write that throws spoils only itself. Writes almost never
 * throw (a taken id or a conflict is an outcome, not an error), so the batch first runs without a savepoint per
 * write (a savepoint copies every page a write touches into its journal, a page it shares with the writes before
 * it included); when one throws, that transaction is rolled back whole and the batch runs again with a savepoint
 * per write.
 */
export function applyBatch(db: Database, writes: TokenWrites, batch: readonly TokenWrite[]): Array<{ ok: boolean; value: unknown }> {
  try {
    return db
      .transaction(() =>
        writes.settle(() =>
          batch.map((write) => {
            try {
              return { ok: true, value: writes.apply(write) };
            } catch (error) {
              throw new WriteThrew(error);
            }
          }),
        ),
      )
      .immediate();
  } catch (error) {
    if (!(error instanceof WriteThrew)) throw error;
    // A lone write that threw has nothing to share a commit with: its failure is the batch's outcome.
    if (batch.length === 1) return [{ ok: false, value: error.error }];
  }
  return applyEachInSavepoint(db, writes, batch);
}

function applyEachInSavepoint(db: Database, writes: TokenWrites, batch: readonly TokenWrite[]): Array<{ ok: boolean; value: unknown }> {
  const outcomes: Array<{ ok: boolean; value: unknown }> = [];
  db.transaction(() =>
    writes.settle(() => {
      for (const write of batch) {
        try {
          outcomes.push({ ok: true, value: writes.savepoint(() => writes.apply(write)) });
        } catch (error) {
          outcomes.push({ ok: false, value: error });
        }
      }
    }),
  ).immediate();
  return outcomes;
}
