import type { ClientSession, Collection, Filter, MongoClient } from 'mongodb';
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
  TokenStored,
  TokenToCreate,
  UpdateTokenOutcome,
  WriteEffects,
} from '@svc/core';
import { hasEffects, outcomesAsExpected, tokenExpiryEffects } from '@svc/core';
import { toBinary } from './documents';
import { type EffectWrites, mergeEffects, whenTrue } from './effect-writes';
import { isDuplicateKeyError } from './mongo-errors';
import { findPage } from './paginate';
import { atVersion, fromTokenDocument, type TokenDocument, toTokenDocument } from './token-document';
import type { TokenIntentDocument } from './token-intent-document';
import { liveTokenFilter, TOKEN_ORDER, tokenKeysetFilter, tokenSearchFilter } from './token-query-filter';

/** Inserts that lost to concurrent changes are retried this many times before the create gives up. */
const MAX_CREATE_ATTEMPTS = 8;

/** The sweeper removes expired tokens in transactions of at most this many, each with their expiry effects. */
const EXPIRY_BATCH = 100;

const expiredBy = (now: Date): Filter<TokenDocument> => ({ expires_at: { $exists: true, $lte: now } });

/** Thrown inside a transaction to abort it; never leaves the repository. */
class DuplicateIdInBatch extends Error {
  constructor(readonly index: number) {
    super('duplicate id in a bulk create');
  }
}

/** Thrown inside a transaction to abort it when a token's intent is not live; never leaves the repository. */
class IntentGoneInBatch extends Error {
  constructor(readonly index: number) {
    super('token intent gone in a bulk create');
  }
}

/**
 * Tokens in MongoDB: one document per token, with the sealed data, the blind-index hashes and the lower-cased
 * metadata pairs, so a search is one indexed query. Every single-token write is a single-document operation, atomic
 * without transactions, so those work on a standalone server, a replica set or a sharded cluster alike. `createMany`
 * (POST /tokenize) is all or nothing and needs a multi-document transaction: a replica set or a sharded cluster. So
 * does every write that brings WriteEffects (ADR 4), and the sweeper's `deleteExpired`, whose removals always do.
 */
export class MongoTokenRepository implements TokenRepository {
  constructor(
    private readonly tokens: Collection<TokenDocument>,
    private readonly client: MongoClient,
    private readonly effects: EffectWrites,
    private readonly intents: Collection<TokenIntentDocument>,
  ) {}

  /**
   * The insert is the atomic step: the unique `{ tenant_id, id }` index refuses a duplicate id, and with
   * deduplication the unique claim index refuses a second token of the same tenant, type and fingerprint. A refused
   * insert looks at what is stored: a live token wins (returned, or a duplicate id), an expired one is released and
   * the insert tried again. With effects or an intent to use up, the create is a `createMany` of one: the same steps
   * in a transaction that stores the effects when the token is created, and deletes the intent.
   */
  async create(token: StoredToken, options: CreateTokenOptions): Promise<CreateTokenOutcome> {
    const { deduplicate, now, effects, intentId } = options;
    if (hasEffects(effects) || intentId !== undefined) {
      const outcome = await this.createIn([{ token, deduplicate, effects, intentId }], now, undefined, 'leave');
      return outcome.status === 'created' ? outcome.outcomes[0]! : { status: outcome.status };
    }
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

  /**
   * One transaction: each token is looked up and inserted as `create` does, inside it, so all commit or none do.
   * Reads in the transaction see its own inserts (a later token deduplicates to an earlier one). A write conflict
   * with a concurrent transaction is retried by the driver; an insert refused by a unique index (a concurrent
   * commit the snapshot did not show) retries the whole transaction. The effects of the tokens created (not of those
   * deduplicated) are stored at the end of the same transaction. A token's intent is deleted first, in the
   * transaction: a concurrent transaction deleting it too is a write conflict, and the retry finds it gone.
   * `ifOutcomes.effects` join the effects when the outcomes are the expected ones.
   */
  createMany(tokens: readonly TokenToCreate[], now: Date, ifOutcomes?: EffectsIfOutcomes): Promise<CreateManyOutcome> {
    return this.createIn(tokens, now, ifOutcomes, 'use');
  }

  findByFingerprint(tenantId: string, type: StoredToken['type'], fingerprint: string, now: Date): Promise<StoredToken | undefined> {
    return this.oldestWithFingerprint({ tenantId, type, fingerprint }, now);
  }

  private async createIn(tokens: readonly TokenToCreate[], now: Date, ifOutcomes: EffectsIfOutcomes | undefined, intentOnExisting: 'use' | 'leave'): Promise<CreateManyOutcome> {
    for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
      try {
        return await this.client.withSession((session) =>
          session.withTransaction(() => this.createAllIn(session, tokens, now, ifOutcomes, intentOnExisting)),
        );
      } catch (error) {
        if (error instanceof DuplicateIdInBatch) return { status: 'duplicate_id', index: error.index };
        if (error instanceof IntentGoneInBatch) return { status: 'intent_gone', index: error.index };
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
    throw new Error('Creating tokens did not settle: the store kept changing under concurrent writes.');
  }

  /**
   * `intentOnExisting`: 'use' (a bulk call) uses a deduplicated token's intent up with its `effectsIfExisting`;
   * 'leave' (a single create) leaves it for the caller to take with its answer (CreateTokenOptions.intentId).
   */
  private async createAllIn(
    session: ClientSession,
    tokens: readonly TokenToCreate[],
    now: Date,
    ifOutcomes: EffectsIfOutcomes | undefined,
    intentOnExisting: 'use' | 'leave' = 'use',
  ): Promise<CreateManyOutcome> {
    const outcomes: TokenStored[] = [];
    const effects: WriteEffects[] = [];
    const useUp = async (tenantId: string, intentId: string, index: number): Promise<void> => {
      const live = { _id: intentId, tenant_id: tenantId, expires_at: { $gt: now } };
      if ((await this.intents.deleteOne(live, { session })).deletedCount !== 1) throw new IntentGoneInBatch(index);
    };
    for (const [index, { token, deduplicate, effects: tokenEffects, intentId, effectsIfExisting }] of tokens.entries()) {
      if (deduplicate) {
        const existing = await this.oldestWithFingerprint(token, now, session);
        if (existing) {
          if (intentId !== undefined && intentOnExisting === 'use') {
            await useUp(token.tenantId, intentId, index);
            if (effectsIfExisting) effects.push(effectsIfExisting);
          }
          outcomes.push({ status: 'existing', token: existing });
          continue;
        }
      }
      // A bulk call checks its intents first, a single create its id first, as the other stores do.
      if (intentId !== undefined && intentOnExisting === 'use') await useUp(token.tenantId, intentId, index);
      const live = await this.tokens.findOne({ tenant_id: token.tenantId, id: token.id, ...liveTokenFilter(now) }, { projection: { _id: 1 }, session });
      if (live) throw new DuplicateIdInBatch(index);
      if (intentId !== undefined && intentOnExisting === 'leave') await useUp(token.tenantId, intentId, index);
      await this.releaseExpired(token, now, deduplicate, session);
      await this.tokens.insertOne({ ...toTokenDocument(token, { dedupClaim: deduplicate }) }, { session });
      outcomes.push({ status: 'created' });
      if (tokenEffects) effects.push(tokenEffects);
    }
    if (ifOutcomes && outcomesAsExpected(outcomes, ifOutcomes.expected)) effects.push(ifOutcomes.effects);
    await this.effects.store(mergeEffects(effects), session);
    return { status: 'created', outcomes };
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredToken | undefined> {
    const doc = await this.tokens.findOne({ tenant_id: tenantId, id, ...liveTokenFilter(now) });
    return doc ? fromTokenDocument(doc) : undefined;
  }

  async findMany(tenantId: string, ids: readonly string[], now: Date): Promise<ReadonlyMap<string, StoredToken>> {
    const found = new Map<string, StoredToken>();
    if (ids.length === 0) return found;
    for (const doc of await this.tokens.find({ tenant_id: tenantId, id: { $in: [...ids] }, ...liveTokenFilter(now) }).toArray()) {
      found.set(doc.id, fromTokenDocument(doc));
    }
    return found;
  }

  /**
   * Compare-and-set: each replacement matches the document only as it was read (live, same creation, same version),
   * and a single-document replace is atomic, so no transaction is needed. The replacement keeps the document's
   * deduplication claim while the fingerprint stays the same; a token whose fingerprint changed releases its claim (it
   * could otherwise block a new token of its former fingerprint, or collide with another token's claim). Most tokens
   * hold no claim and take the first, single replacement. When none matched, the stored document tells a token that
   * changed from one that is gone. With effects, all of it runs in a transaction that stores them when it updated.
   */
  async update(token: StoredToken, now: Date, effects?: WriteEffects): Promise<UpdateTokenOutcome> {
    return this.effects.write(effects, (session) => this.updateIn(token, now, session), (outcome) => outcome.status === 'updated');
  }

  private async updateIn(token: StoredToken, now: Date, session: ClientSession | undefined): Promise<UpdateTokenOutcome> {
    const doc = toTokenDocument({ ...token, version: token.version + 1 }, { dedupClaim: false });
    const key = { tenant_id: token.tenantId, id: token.id };
    const asRead: Filter<TokenDocument> = { ...key, created_at: token.createdAt, ...atVersion(token.version), ...liveTokenFilter(now) };
    const replaced = async (filter: Filter<TokenDocument>, replacement: TokenDocument): Promise<boolean> =>
      (await this.tokens.replaceOne(filter, replacement, { session })).matchedCount === 1;
    const claimed = { ...asRead, dedup_claim: true as const };
    if (
      (await replaced({ ...asRead, dedup_claim: { $exists: false } }, doc)) ||
      (await replaced({ ...claimed, type: token.type, fingerprint: token.fingerprint }, { ...doc, dedup_claim: true })) ||
      (await replaced(claimed, doc))
    ) {
      return { status: 'updated' };
    }
    const live = await this.tokens.findOne({ ...key, ...liveTokenFilter(now) }, { projection: { _id: 1 }, session });
    return live ? { status: 'conflict' } : { status: 'gone' };
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.write(
      effects,
      async (session) => (await this.tokens.deleteOne({ tenant_id: tenantId, id }, { session })).deletedCount === 1,
      whenTrue,
    );
  }

  async search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>> {
    return findPage(this.tokens, tokenSearchFilter(tenantId, query, now), TOKEN_ORDER, page, fromTokenDocument);
  }

  /** One more document than asked tells whether more follow; nothing is counted. */
  async searchAfter(tenantId: string, query: TokenQuery, request: KeysetRequest, now: Date): Promise<KeysetPage<StoredToken>> {
    const filter = tokenKeysetFilter(tenantId, query, request.after, now);
    const docs = await this.tokens.find(filter).sort(TOKEN_ORDER).limit(request.size + 1).toArray();
    return { items: docs.slice(0, request.size).map(fromTokenDocument), hasMore: docs.length > request.size };
  }

  /**
   * Batch by batch, each in a transaction: the expired tokens are read, deleted while still expired, and their
   * `tokenExpiryEffects` stored. Under the transaction's snapshot, a token another write changed or deleted meanwhile
   * (an update that moved its expiry on, a concurrent sweep) is a write conflict, after which the driver runs the
   * batch again: what is deleted is exactly what was read. The TTL index may have deleted some already, without
   * effects; this counts what this call deleted.
   */
  async deleteExpired(now: Date): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await this.effects.transaction(async (session) => {
        const docs = await this.tokens.find(expiredBy(now), { session }).limit(EXPIRY_BATCH).toArray();
        if (docs.length === 0) return 0;
        const deleted = await this.tokens.deleteMany({ _id: { $in: docs.map((doc) => doc._id) }, ...expiredBy(now) }, { session });
        if (deleted.deletedCount !== docs.length) throw new Error('Expired tokens changed while the sweeper removed them.');
        await this.effects.store(mergeEffects(docs.map((doc) => tokenExpiryEffects(fromTokenDocument(doc), now))), session);
        return docs.length;
      });
      removed += batch;
      if (batch < EXPIRY_BATCH) return removed;
    }
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

  private async oldestWithFingerprint(
    token: Pick<StoredToken, 'tenantId' | 'type' | 'fingerprint'>,
    now: Date,
    session?: ClientSession,
  ): Promise<StoredToken | undefined> {
    const filter = { tenant_id: token.tenantId, fingerprint: token.fingerprint, type: token.type, ...liveTokenFilter(now) };
    const doc = await this.tokens.findOne(filter, { sort: { created_at: 1, id: 1 }, ...(session ? { session } : {}) });
    return doc ? fromTokenDocument(doc) : undefined;
  }

  /** Frees what expired tokens still hold: their id (the token is deleted, as the sweeper would) and their claim. */
  private async releaseExpired(token: StoredToken, now: Date, deduplicate: boolean, session?: ClientSession): Promise<void> {
    const options = session ? { session } : {};
    await this.tokens.deleteOne({ tenant_id: token.tenantId, id: token.id, ...expiredBy(now) }, options);
    if (!deduplicate) return;
    await this.tokens.updateMany(
      { tenant_id: token.tenantId, type: token.type, fingerprint: token.fingerprint, dedup_claim: true, ...expiredBy(now) },
      { $unset: { dedup_claim: '' } },
      options,
    );
  }
}
