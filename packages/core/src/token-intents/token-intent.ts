import type { WriteEffects } from '../audit/write-effects';
/** The token types an intent may hold: card and bank data collected in a browser, made into a token later. */
export const TOKEN_INTENT_TYPES = ['card', 'bank'] as const;

export type TokenIntentType = (typeof TOKEN_INTENT_TYPES)[number];

export function isTokenIntentType(value: string): value is TokenIntentType {
  return (TOKEN_INTENT_TYPES as readonly string[]).includes(value);
}

/**
 * A token intent as stores keep it: card or bank data sealed (AES-256-GCM under the tenant's data key, bound to the
 * tenant and the intent's id, and never openable as a token), held until `expiresAt` or until a token is made from it.
 * Nothing derived from the data is stored besides its keyed fingerprint: the bin, last 4 and brand shown by the API
 * are read from the data when it is opened.
 */
export interface StoredTokenIntent {
  readonly id: string;
  readonly tenantId: string;
  readonly type: TokenIntentType;
  /** The validated data, sealed, without a card's cvc (checked at creation, never kept). Secret once opened. */
  readonly sealedData: Uint8Array;
  /** What a token of this type and data would have as its fingerprint (keyed, per tenant and type). */
  readonly fingerprint: string;
  /** The application that created it; for a session, its public application. */
  readonly createdBy: string;
  readonly createdAt: Date;
  /** Gone at this instant: reads, takes and deletes treat it as absent, and the sweeper erases it. */
  readonly expiresAt: Date;
}

/**
 * Stores sealed token intents. Ids are unique; every operation is scoped to a tenant and treats an intent whose
 * expiresAt is at or before `now` as absent (`now` is passed in so the clock stays a port).
 */
export interface TokenIntentRepository {
  /** Inserts `intent`, also to put back one that was taken (its id is then free again). */
  create(intent: StoredTokenIntent, effects?: WriteEffects): Promise<void>;
  findById(tenantId: string, id: string, now: Date): Promise<StoredTokenIntent | undefined>;
  /**
   * Removes the live intent and returns it, in one atomic step, also across processes: of concurrent takes of one
   * intent exactly one gets it, the others get undefined. This is how an intent is deleted; one made into a token is
   * used up by the token's create (`CreateTokenOptions.intentId`).
   */
  take(tenantId: string, id: string, now: Date, effects?: WriteEffects): Promise<StoredTokenIntent | undefined>;
  /** Deletes intents whose expiresAt is at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

export function isTokenIntentExpired(intent: StoredTokenIntent, now: Date): boolean {
  return intent.expiresAt.getTime() <= now.getTime();
}
