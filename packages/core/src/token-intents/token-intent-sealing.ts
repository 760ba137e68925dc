import type { TenantKeys } from '../crypto/tenant-keys';

/**
 * The name an intent's data is sealed under: the tenant's token key, bound to `token-intent/<id>`. A `/` is never part
 * of a token id (decisions.md §5, checked after id expressions too), so an intent's ciphertext can never be opened as
 * a token's, nor a token's as an intent's, even where the ids are equal.
 */
const sealedName = (intentId: string): string => `token-intent/${intentId}`;

/** Encrypts an intent's data with the tenant's data key, bound to the tenant and the intent. */
export function sealIntentData(keys: TenantKeys, intentId: string, data: unknown): Uint8Array {
  return keys.seal(sealedName(intentId), data);
}

/** Opens an intent's data in memory for one use case. */
export function openIntentData(keys: TenantKeys, intentId: string, sealed: Uint8Array): unknown {
  return keys.open(sealedName(intentId), sealed);
}
