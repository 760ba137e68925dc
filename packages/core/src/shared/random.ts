import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

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

const POOL_BYTES = 4096;
const POOLED_MAX = 64;

/**
 * The production source, backed by node:crypto. Small requests (IVs, keys, aliases) are served from a pool filled
 * 4 KiB at a time: one `randomBytes(12)` per token write cost more than the rest of the seal. Every byte is handed
 * out once, as a copy, and wiped from the pool as it goes.
 */
export class CryptoRandomSource implements RandomSource {
  private readonly pool = Buffer.alloc(POOL_BYTES);
  private offset = POOL_BYTES;

  bytes(length: number): Uint8Array {
    if (length > POOLED_MAX) return randomBytes(length);
    if (this.offset + length > POOL_BYTES) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const out = new Uint8Array(length);
    out.set(this.pool.subarray(this.offset, this.offset + length));
    this.pool.fill(0, this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  int(maxExclusive: number): number {
    return randomInt(maxExclusive);
  }
}
