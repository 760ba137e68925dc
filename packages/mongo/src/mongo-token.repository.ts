import type { Collection, Filter } from 'mongodb';
import type { CreateTokenOutcome, Page, PageRequest, StoredToken, TokenQuery, TokenRepository, UpdateTokenOutcome } from '@svc/core';
import { toBinary } from './documents';
import { isDuplicateKeyError } from './mongo-errors';
import { findPage } from './paginate';
import { atVersion, fromTokenDocument, type TokenDocument, toTokenDocument } from './token-document';
import { liveTokenFilter, TOKEN_ORDER, tokenSearchFilter } from './token-query-filter';

/** Inserts that lost to concurrent changes are retried this many times before the create gives up. */
const MAX_CREATE_ATTEMPTS = 8;

const expiredBy = (now: Date): Filter<TokenDocument> => ({ expires_at: { $exists: true, $lte: now } });

/**
 * Tokens in MongoDB: one document per token, with the sealed data, the blind-index hashes and the lower-cased
 * metadata pairs, so a search is one indexed query. Every write is a single-document operation, atomic without
 * transactions, so the store works on a standalone server, a replica set or a sharded cluster alike.
 */
export class MongoTokenRepository implements TokenRepository {
  constructor(private readonly tokens: Collection<TokenDocument>) {}

  /**
   * The insert is the atomic step: the unique `{ tenant_id, id }` index refuses a duplicate id, and with
   * deduplication the unique claim index refuses a second token of the same tenant, type and fingerprint. A refused
   * insert looks at what is stored: a live token wins (returned, or a duplicate id), an expired one is released and
   * the insert tried again.
   */
  async create(token: StoredToken, options: { deduplicate: boolean; now: Date }): Promise<CreateTokenOutcome> {
    const { deduplicate, now } = options;
    const doc = toTokenDocument(token, { dedupClaim: deduplicate });
    for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
      if (deduplicate) {
        const existing = await this.oldestWithFingerprint(token, now);
        if (existing) return { status: 'existing', token: existing };
      }
      try {
        // A copy: the driver adds `_id` to the document it inserts.
        await this.tokens.insertOne({ ...doc });
        return { status: 'created' };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      if (deduplicate) {
        const existing = await this.oldestWithFingerprint(token, now);
        if (existing) return { status: 'existing', token: existing };
      }
      if (await this.tokens.findOne({ tenant_id: token.tenantId, id: token.id, ...liveTokenFilter(now) }, { projection: { _id: 1 } })) {
        return { status: 'duplicate_id' };
      }
      await this.releaseExpired(token, now, deduplicate);
    }
    throw new Error('Creating a token did not settle: the store kept changing under concurrent writes.');
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredToken | undefined> {
    const doc = await this.tokens.findOne({ tenant_id: tenantId, id, ...liveTokenFilter(now) });
    return doc ? fromTokenDocument(doc) : undefined;
  }

  /**
   * Compare-and-set: each replacement matches the document only as it was read (live, same creation, same version),
   * and a single-document replace is atomic, so no transaction is needed. The replacement keeps the document's
   * deduplication claim while the fingerprint stays the same; a token whose fingerprint changed releases its claim (it
   * could otherwise block a new token of its former fingerprint, or collide with another token's claim). Most tokens
   * hold no claim and take the first, single replacement. When none matched, the stored document tells a token that
   * changed from one that is gone.
   */
  async update(token: StoredToken, now: Date): Promise<UpdateTokenOutcome> {
    const doc = toTokenDocument({ ...token, version: token.version + 1 }, { dedupClaim: false });
    const key = { tenant_id: token.tenantId, id: token.id };
    const asRead: Filter<TokenDocument> = { ...key, created_at: token.createdAt, ...atVersion(token.version), ...liveTokenFilter(now) };
    const replaced = async (filter: Filter<TokenDocument>, replacement: TokenDocument): Promise<boolean> =>
      (await this.tokens.replaceOne(filter, replacement)).matchedCount === 1;
    const claimed = { ...asRead, dedup_claim: true as const };
    if (
      (await replaced({ ...asRead, dedup_claim: { $exists: false } }, doc)) ||
      (await replaced({ ...claimed, type: token.type, fingerprint: token.fingerprint }, { ...doc, dedup_claim: true })) ||
      (await replaced(claimed, doc))
    ) {
      return { status: 'updated' };
    }
    const live = await this.tokens.findOne({ ...key, ...liveTokenFilter(now) }, { projection: { _id: 1 } });
    return live ? { status: 'conflict' } : { status: 'gone' };
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (await this.tokens.deleteOne({ tenant_id: tenantId, id })).deletedCount === 1;
  }

  async search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>> {
    return findPage(this.tokens, tokenSearchFilter(tenantId, query, now), TOKEN_ORDER, page, fromTokenDocument);
  }

  /** The TTL index may have deleted some already; this counts what this call deleted. */
  async deleteExpired(now: Date): Promise<number> {
    return (await this.tokens.deleteMany(expiredBy(now))).deletedCount;
  }

  /** Matches the document only as it was read, like `update`, and moves its version on by one. */
  async eraseCvc(token: StoredToken, sealedData: Uint8Array): Promise<boolean> {
    const filter: Filter<TokenDocument> = {
      tenant_id: token.tenantId,
      id: token.id,
      created_at: token.createdAt,
      ...atVersion(token.version),
      cvc_expires_at: { $exists: true },
    };
    // The filter pins the version, so setting the next one is an increment that also works on a document without one.
    const result = await this.tokens.updateOne(filter, {
      $set: { sealed_data: toBinary(sealedData), version: token.version + 1 },
      $unset: { cvc_expires_at: '' },
    });
    return result.modifiedCount === 1;
  }

  async findCvcDue(now: Date, limit: number): Promise<readonly StoredToken[]> {
    const docs = await this.tokens.find({ cvc_expires_at: { $exists: true, $lte: now } }).limit(limit).toArray();
    return docs.map(fromTokenDocument);
  }

  private async oldestWithFingerprint(token: StoredToken, now: Date): Promise<StoredToken | undefined> {
    const filter = { tenant_id: token.tenantId, fingerprint: token.fingerprint, type: token.type, ...liveTokenFilter(now) };
    const doc = await this.tokens.findOne(filter, { sort: { created_at: 1, id: 1 } });
    return doc ? fromTokenDocument(doc) : undefined;
  }

  /** Frees what expired tokens still hold: their id (the token is deleted, as the sweeper would) and their claim. */
  private async releaseExpired(token: StoredToken, now: Date, deduplicate: boolean): Promise<void> {
    await this.tokens.deleteOne({ tenant_id: token.tenantId, id: token.id, ...expiredBy(now) });
    if (!deduplicate) return;
    await this.tokens.updateMany(
      { tenant_id: token.tenantId, type: token.type, fingerprint: token.fingerprint, dedup_claim: true, ...expiredBy(now) },
      { $unset: { dedup_claim: '' } },
    );
  }
}
