import type { Page, PageRequest } from '../shared/pagination';
import type { TokenQuery } from '../search/token-query';
import type { StoredToken } from './token';

export type CreateTokenOutcome =
  | { readonly status: 'created' }
  | { readonly status: 'duplicate_id' }
  /** Deduplication found a live token of the same tenant, type and fingerprint. */
  | { readonly status: 'existing'; readonly token: StoredToken };

/**
 * Stores sealed tokens. Ids are unique per tenant. Reads never return a token whose expiresAt has passed
 * (`now` is passed in so the clock stays a port). Stores never see plaintext data.
 */
export interface TokenRepository {
  /**
   * Inserts `token`. With `deduplicate`, first looks for a live token of the same tenant, type and fingerprint and
   * returns it instead; the look-up and the insert are atomic, so concurrent creates yield one token.
   */
  create(token: StoredToken, options: { readonly deduplicate: boolean; readonly now: Date }): Promise<CreateTokenOutcome>;
  findById(tenantId: string, id: string, now: Date): Promise<StoredToken | undefined>;
  /** Replaces a live token; false when it is gone. */
  update(token: StoredToken): Promise<boolean>;
  delete(tenantId: string, id: string): Promise<boolean>;
  /**
   * Live tokens of a tenant matching `query` (data terms already blinded), newest first (created_at, then id, both
   * descending), with the total across pages. Answered from indexes; a store never decrypts to search.
   */
  search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>>;
  /** Deletes tokens whose expiresAt is at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
  /**
   * Replaces the sealed data of `token` (as read from `findCvcDue`) by `sealedData` and clears its cvc deadline, unless
   * the token was modified since it was read: the sweeper never overwrites an update. True when replaced.
   */
  eraseCvc(token: StoredToken, sealedData: Uint8Array): Promise<boolean>;
  /** Up to `limit` tokens whose cvc is due for erasure at `now`. */
  findCvcDue(now: Date, limit: number): Promise<readonly StoredToken[]>;
}
