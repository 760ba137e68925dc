import { randomBytes, randomInt } from 'node:crypto';

/**
 * Source of randomness. Core logic never calls Math.random or crypto directly, so tests can be exact.
 * Implementations must be cryptographically secure: secrets and aliases come from here.
 */
export interface RandomSource {
  /** `length` random bytes. */
  bytes(length: number): Uint8Array;
  /** A uniformly random integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
}

/** The production source, backed by node:crypto. */
export class CryptoRandomSource implements RandomSource {
  bytes(length: number): Uint8Array {
    return randomBytes(length);
  }

  int(maxExclusive: number): number {
    return randomInt(maxExclusive);
  }
}
