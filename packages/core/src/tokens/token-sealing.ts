import type { TenantKeys } from '../crypto/tenant-keys';
import type { StoredToken, Token } from './token';
import type { TokenMaterials } from './token-materials';
import { hasCvc } from './token-types';
import type { TokenPolicy } from './token-view';

/**
 * Seals a token for the store: data encrypted, index values hashed, the cvc's erasure time noted. `version` is the
 * stored version the token was read at (0 for a new one): the store's compare-and-set checks it.
 */
export function sealToken(keys: TenantKeys, token: Token, materials: TokenMaterials, policy: TokenPolicy, version: number): StoredToken {
  const { data, ...attributes } = token;
  const cvcExpiresAt = hasCvc(token.type, data) ? new Date(token.createdAt.getTime() + policy.cvcRetentionMs) : undefined;
  return {
    ...attributes,
    fingerprint: materials.fingerprint,
    sealedData: keys.seal(token.id, data),
    indexHashes: materials.indexHashes,
    cvcExpiresAt,
    version,
  };
}

/** Opens a stored token in memory for one use case. */
export function openToken(keys: TenantKeys, stored: StoredToken): Token {
  const { sealedData, indexHashes: _indexes, cvcExpiresAt: _cvc, version: _version, ...attributes } = stored;
  return { ...attributes, data: keys.open(stored.id, sealedData) };
}
