import type { KeysetPage, KeysetRequest } from '../shared/keyset';
import type { Page, PageRequest } from '../shared/pagination';
import type { TokenQuery } from '../search/token-query';
import type { StoredToken } from './token';
import type { WriteEffects } from '../audit/write-effects';

/** A create the store accepted: the token stored, or the live one deduplication answered with. */
export type TokenStored =
  | { readonly status: 'created' }
  /** Deduplication found a live token of the same tenant, type and fingerprint. */
  | { readonly status: 'existing'; readonly token: StoredToken };

export type CreateTokenOutcome =
  | TokenStored
  | { readonly status: 'duplicate_id' }
  /** The token intent the token was to be made of is not live (used up, deleted or expired): nothing was stored. */
  | { readonly status: 'intent_gone' };

/** What a create brings besides the token: whether to deduplicate, the time, its effects and the intent it uses up. */
export interface CreateTokenOptions {
  readonly deduplicate: boolean;
  readonly now: Date;
  /** Stored with the token when it is created (not when it deduplicates). */
  readonly effects?: WriteEffects | undefined;
  /**
   * The id of the token intent (of the token's tenant) the token is made of. When the token is created, the live
   * intent is removed in the create's own atomic step; when it is not live, nothing is stored and the outcome is
   * `intent_gone`. When deduplication answers `existing`, nothing is written and the intent is left as it is: the
   * caller takes it (`TokenIntentRepository.take`) with the answer it makes of the existing token. So an intent
   * becomes exactly one answer, and a crash never loses it.
   */
  readonly intentId?: string | undefined;
}

/** One token of a {@link TokenRepository.createMany} call, with whether to deduplicate it. */
export interface TokenToCreate {
  readonly token: StoredToken;
  readonly deduplicate: boolean;
  /** Stored with the token when it is created (not when it deduplicates). */
  readonly effects?: WriteEffects | undefined;
  /**
   * The token intent it is made of, used up with it in the call's atomic step whether it is created or deduplicated
   * (a bulk call's answer is made of all its tokens, so it cannot wait for one intent to be taken after).
   */
  readonly intentId?: string | undefined;
  /** Stored with the token when it deduplicates instead (such as its intent's `convert` event). */
  readonly effectsIfExisting?: WriteEffects | undefined;
}

/**
 * What the answer to a bulk create was sealed for: each token created, or deduplicated to this token as it was read
 * (its id, version and creation: a token deleted and created again under its id is another token, at any version).
 */
export type ExpectedOutcome =
  | { readonly status: 'created' }
  | { readonly status: 'existing'; readonly id: string; readonly version: number; readonly createdAt: number };

/**
 * Effects a bulk create stores only when its outcomes are the ones `expected` (such as its answer, kept for an
 * idempotency key, made before the write from a prediction of its deduplications).
 */
export interface EffectsIfOutcomes {
  readonly expected: readonly ExpectedOutcome[];
  readonly effects: WriteEffects;
}

/** Whether `outcomes` are the `expected` ones, one for one. */
export function outcomesAsExpected(outcomes: readonly TokenStored[], expected: readonly ExpectedOutcome[]): boolean {
  return (
    outcomes.length === expected.length &&
    outcomes.every((o, i) => {
      const e = expected[i]!;
      if (o.status === 'created') return e.status === 'created';
      return e.status === 'existing' && e.id === o.token.id && e.version === o.token.version && e.createdAt === o.token.createdAt.getTime();
    })
  );
}

/** What {@link TokenRepository.createMany} did: everything, or (on a duplicate id or an intent gone) nothing. */
export type CreateManyOutcome =
  /** Every token was stored, or deduplicated to a live one; one outcome per token, in order. */
  | { readonly status: 'created'; readonly outcomes: readonly TokenStored[] }
  /** The token at `index` has the id of a live token (stored, or earlier in the same call): nothing was stored. */
  | { readonly status: 'duplicate_id'; readonly index: number }
  /** The intent of the token at `index` is not live (or an earlier token of the call used it up): nothing was stored. */
  | { readonly status: 'intent_gone'; readonly index: number };

/** What {@link TokenRepository.update} did. Only `updated` wrote anything. */
export type UpdateTokenOutcome =
  /** The token was replaced and is now at version `token.version + 1`. */
  | { readonly status: 'updated' }
  /**
   * The stored token is not the one the caller read: another write moved its version on, or it was deleted and a new
   * token created under its id. Read it again, reapply the change and retry.
   */
  | { readonly status: 'conflict' }
  /** No live token of that tenant has the id: it never existed, was deleted, or has expired at `now`. */
  | { readonly status: 'gone' };

/**
 * Stores sealed tokens. Ids are unique per tenant. Reads never return a token whose expiresAt has passed
 * (`now` is passed in so the clock stays a port). Stores never see plaintext data.
 */
export interface TokenRepository {
  /**
   * Inserts `token`, at the version it carries (use cases create at 0). With `deduplicate`, first looks for a live
   * token of the same tenant, type and fingerprint and returns it instead; the look-up and the insert are atomic, so
   * concurrent creates yield one token. Of concurrent creates of one id, one is `created`, the others `duplicate_id`.
   * With `intentId`, a created token uses the intent up in the same step: of concurrent creates naming one intent,
   * exactly one is stored, the others are `intent_gone`; a deduplication leaves it (see CreateTokenOptions.intentId).
   */
  create(token: StoredToken, options: CreateTokenOptions): Promise<CreateTokenOutcome>;
  /**
   * Creates every token in one atomic step: all are stored, or none. Each is created as `create` would (deduplication
   * included), in order, so a later token of the call deduplicates to an earlier one of the same fingerprint. When any
   * has the id of a live token, or names an intent that is not live (or that an earlier token of the call used up),
   * nothing is stored and the first such is named. `ifOutcomes.effects` are stored in the same step when the
   * outcomes are `ifOutcomes.expected` (see outcomesAsExpected).
   */
  createMany(tokens: readonly TokenToCreate[], now: Date, ifOutcomes?: EffectsIfOutcomes): Promise<CreateManyOutcome>;
  /** The live token deduplication would answer for this tenant, type and fingerprint (the oldest), if any. */
  findByFingerprint(tenantId: string, type: StoredToken['type'], fingerprint: string, now: Date): Promise<StoredToken | undefined>;
  findById(tenantId: string, id: string, now: Date): Promise<StoredToken | undefined>;
  /** The live tokens of a tenant among `ids`, in one round trip to the store; ids without one are absent from the map. */
  findMany(tenantId: string, ids: readonly string[], now: Date): Promise<ReadonlyMap<string, StoredToken>>;
  /**
   * Compare-and-set. Replaces the stored token by `token` only while the stored one is still the one the caller read:
   * live at `now`, at version `token.version` and created at `token.createdAt` (a token deleted and created again under
   * the same id is another token, whatever its version). The replacement is stored at version `token.version + 1`.
   * The check and the write are one atomic step, also across processes: of concurrent updates made from the same read,
   * exactly one is `updated` and the others are `conflict`, so no update silently overwrites another. An update never
   * creates a token.
   */
  update(token: StoredToken, now: Date, effects?: WriteEffects): Promise<UpdateTokenOutcome>;
  /** Removes the token; true when this call removed it (of concurrent deletes of one token, exactly one). */
  delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean>;
  /**
   * Live tokens of a tenant matching `query` (data terms already blinded), newest first (created_at, then id, both
   * descending), with the total across pages. Answered from indexes; a store never decrypts to search.
   */
  search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>>;
  /**
   * Keyset paging over the same matches as `search`, in the same order: up to `request.size` live tokens strictly
   * after `request.after` (from the newest when absent), and whether more follow. Ties of `created_at` are ordered
   * by id, so a walk from page to page sees every token exactly once while others are created: a new token is newer
   * than the walk or falls in its place in the order, and never shifts a token not yet seen. No total is counted.
   * Answered from the `(tenant, created_at, id)` index, however deep the walk.
   */
  searchAfter(tenantId: string, query: TokenQuery, request: KeysetRequest, now: Date): Promise<KeysetPage<StoredToken>>;
  /**
   * Deletes tokens whose expiresAt is at or before `now`; returns how many. Each removal brings
   * `tokenExpiryEffects(token, now)`, stored in the same transaction.
   */
  deleteExpired(now: Date): Promise<number>;
  /**
   * Replaces the sealed data of `token` (as read from `findCvcDue`) by `sealedData` and clears its cvc deadline, unless
   * the token was rewritten since it was read (the same version and creation check as `update`): the sweeper never
   * overwrites an update. A replacement moves the version on by one, so an update made from a read before the erasure
   * is a `conflict` and cannot bring the cvc back. True when replaced.
   */
  eraseCvc(token: StoredToken, sealedData: Uint8Array): Promise<boolean>;
  /** Up to `limit` tokens whose cvc is due for erasure at `now`. */
  findCvcDue(now: Date, limit: number): Promise<readonly StoredToken[]>;
}
