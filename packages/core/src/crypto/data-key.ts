/**
 * A tenant's data key as stored: wrapped (AES-256-GCM) by the master key, never in plaintext. Rotating the master
 * key re-wraps these without touching any token.
 */
export interface WrappedDataKey {
  readonly tenantId: string;
  /** `[version][iv][tag][ciphertext]` of the 32-byte data key, bound to the tenant id. */
  readonly wrapped: Uint8Array;
  readonly createdAt: Date;
}

export interface DataKeyRepository {
  find(tenantId: string): Promise<WrappedDataKey | undefined>;
  /** Stores `key` unless the tenant has one already; returns the one that is stored (race-free). */
  createIfAbsent(key: WrappedDataKey): Promise<WrappedDataKey>;
  /** Every stored key, for master-key rotation. */
  all(): Promise<readonly WrappedDataKey[]>;
  /** Replaces the wrapping of a tenant's key (master-key rotation). */
  replace(key: WrappedDataKey): Promise<void>;
}
