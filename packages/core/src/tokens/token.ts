import type { TokenTypeName } from './token-types';

/** Non-sensitive key/value strings. */
export type Metadata = Readonly<Record<string, string>>;

/**
 * The parts of a token that are not its data. Masks, expressions, containers and metadata are not secret;
 * `data` is, and exists only in {@link Token} in memory, never in a store.
 */
export interface TokenAttributes {
  readonly id: string;
  readonly tenantId: string;
  readonly type: TokenTypeName;
  /** A template, or an object/array of templates, evaluated from the data at read time. */
  readonly mask?: unknown;
  /** Exactly one normalized container path. */
  readonly containers: readonly string[];
  readonly metadata: Metadata;
  readonly searchIndexes?: readonly string[] | undefined;
  readonly fingerprintExpression: string;
  /** Keyed hash (per tenant and type) of the fingerprint expression's value. */
  readonly fingerprint: string;
  readonly deduplicateToken?: boolean | undefined;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly modifiedBy?: string | undefined;
  readonly modifiedAt?: Date | undefined;
  readonly expiresAt?: Date | undefined;
}

/** A token with its plaintext data: lives only in memory, inside one use case. */
export interface Token extends TokenAttributes {
  readonly data: unknown;
}

/** A token as stores keep it: data sealed (AES-256-GCM), search indexes as keyed hashes only. */
export interface StoredToken extends TokenAttributes {
  readonly sealedData: Uint8Array;
  /** Keyed hashes of the evaluated search indexes (lower-cased before hashing). */
  readonly indexHashes: readonly string[];
  /** When the card cvc inside the sealed data must be erased; undefined when there is none. */
  readonly cvcExpiresAt?: Date | undefined;
  /**
   * How many times the stored token has been rewritten: 0 when created, one more after every update and cvc erasure.
   * Not secret and not shown by the API. A write names the version it read and the store refuses it when the token
   * has moved on (compare-and-set), so a write based on a stale read is refused rather than lost.
   */
  readonly version: number;
}

export function isTokenExpired(token: TokenAttributes, now: Date): boolean {
  return token.expiresAt !== undefined && token.expiresAt.getTime() <= now.getTime();
}
