/**
 * One idempotency key as stores keep it (beyond.md §4): scoped to a tenant, a caller (application or session id) and
 * the key the caller sent. While its first request runs it is `running`; once that request answered 2xx it is `done`
 * and holds the answer, sealed. A failed first request releases it (the row is deleted).
 */
export interface StoredIdempotentRequest {
  readonly tenantId: string;
  /** The application id of an API key, or the session id of a session key. */
  readonly callerId: string;
  /** The key as the caller sent it: 1–255 printable ASCII characters. */
  readonly key: string;
  /** A keyed hash (per tenant) of the method, path and body: never the body itself. */
  readonly fingerprint: string;
  /** Random, per claim: only the claim that holds it may complete or release the entry (a takeover gets a new one). */
  readonly claimId: string;
  readonly state: 'running' | 'done';
  /** When the running claim was made: a running claim at or before the takeover bound may be taken over. */
  readonly claimedAt: Date;
  /** Gone at this instant: claims treat it as absent, reads miss it, and the sweeper erases it. */
  readonly expiresAt: Date;
  /** The kept answer (status, headers, body), sealed under the tenant's key; present once `done`. Secret once opened. */
  readonly sealedResponse?: Uint8Array;
}

/**
 * A running claim's answer, sealed, to be kept by a write in its own transaction (`WriteEffects.kept`): stored as
 * `complete` stores it, and only while the claim `claimId` still holds the key running.
 */
export interface KeptAnswer {
  readonly tenantId: string;
  readonly callerId: string;
  readonly key: string;
  readonly claimId: string;
  readonly sealedResponse: Uint8Array;
  readonly expiresAt: Date;
}

/** A new running claim: what `claim` inserts, or writes over an expired or abandoned entry. */
export type IdempotencyClaimInput = Omit<StoredIdempotentRequest, 'state' | 'sealedResponse'>;

/** What `claim` found: the claim is the caller's, or the entry that holds the key (running or done). */
export type IdempotencyClaimResult = { readonly claimed: true } | { readonly claimed: false; readonly existing: StoredIdempotentRequest };

/**
 * Stores idempotency keys. Entries are unique per (tenant, caller, key); an entry whose expiresAt is at or before
 * `now` is absent for every operation.
 */
export interface IdempotencyRepository {
  /**
   * Claims the key in one atomic step, also across processes sharing a SQLite file and across MongoDB clients: of
   * concurrent claims of one key exactly one gets `claimed: true`. The claim succeeds when no live entry holds the
   * key, or when the entry is `running` with claimedAt at or before `staleBefore` (its request crashed or hangs: it
   * is taken over, with the new claimId). Otherwise it answers the entry that holds the key.
   */
  claim(input: IdempotencyClaimInput, now: Date, staleBefore: Date): Promise<IdempotencyClaimResult>;
  /**
   * Marks the running claim `claimId` done with its sealed answer and new expiry. False (and no change) when that
   * claim no longer holds the key (released, expired, or taken over).
   */
  complete(tenantId: string, callerId: string, key: string, claimId: string, sealedResponse: Uint8Array, expiresAt: Date): Promise<boolean>;
  /** Deletes the entry when the claim `claimId` still holds it running, so the key is free for a retry. */
  release(tenantId: string, callerId: string, key: string, claimId: string): Promise<void>;
  find(tenantId: string, callerId: string, key: string, now: Date): Promise<StoredIdempotentRequest | undefined>;
  /** Deletes entries whose expiresAt is at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

export function isIdempotentRequestExpired(entry: { readonly expiresAt: Date }, now: Date): boolean {
  return entry.expiresAt.getTime() <= now.getTime();
}

/** Whether a claim may write over `entry`: it expired, or it is a running claim made at or before `staleBefore`. */
export function isIdempotentRequestClaimable(entry: StoredIdempotentRequest, now: Date, staleBefore: Date): boolean {
  return isIdempotentRequestExpired(entry, now) || (entry.state === 'running' && entry.claimedAt.getTime() <= staleBefore.getTime());
}
