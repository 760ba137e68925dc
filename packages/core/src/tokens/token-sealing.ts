import type { TenantKeys } from '../crypto/tenant-keys';
import type { StoredToken, Token } from './token';
import type { TokenMaterials } from './token-materials';
import { hasCvc } from './token-types';
import type { TokenPolicy } from './token-view';
import type { Complete } from '../shared/complete';

/**
 * Seals a token for the store: data encrypted, index values hashed, the cvc's erasure time noted. `version` is the
 * stored version the token was read at (0 for a new one): the store's compare-and-set checks it.
 */
export function sealToken(keys: TenantKeys, token: Token, materials: TokenMaterials, policy: TokenPolicy, version: number): StoredToken {
  const cvcExpiresAt = hasCvc(token.type, token.data) ? new Date(token.createdAt.getTime() + policy.cvcRetentionMs) : undefined;
  // Both copies in this file are written out field by field, not spread: see Complete.
  const sealed: Complete<StoredToken> = {
    id: token.id,
    tenantId: token.tenantId,
    type: token.type,
    mask: token.mask,
    containers: token.containers,
    metadata: token.metadata,
    searchIndexes: token.searchIndexes,
    fingerprintExpression: token.fingerprintExpression,
    fingerprint: materials.fingerprint,
    deduplicateToken: token.deduplicateToken,
    createdBy: token.createdBy,
    createdAt: token.createdAt,
    modifiedBy: token.modifiedBy,
    modifiedAt: token.modifiedAt,
    expiresAt: token.expiresAt,
    sealedData: keys.seal(token.id, token.data),
    indexHashes: materials.indexHashes,
    cvcExpiresAt,
    version,
  };
  return sealed as StoredToken;
}

/** Opens a stored token in memory for one use case. */
export function openToken(keys: TenantKeys, stored: StoredToken): Token {
  const token: Complete<Token> = {
    id: stored.id,
    tenantId: stored.tenantId,
    type: stored.type,
    mask: stored.mask,
    containers: stored.containers,
    metadata: stored.metadata,
    searchIndexes: stored.searchIndexes,
    fingerprintExpression: stored.fingerprintExpression,
    fingerprint: stored.fingerprint,
    deduplicateToken: stored.deduplicateToken,
    createdBy: stored.createdBy,
    createdAt: stored.createdAt,
    modifiedBy: stored.modifiedBy,
    modifiedAt: stored.modifiedAt,
    expiresAt: stored.expiresAt,
    data: keys.open(stored.id, stored.sealedData),
  };
  return token as Token;
}
