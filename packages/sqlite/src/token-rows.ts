import type { Metadata, StoredToken, TokenTypeName } from '@svc/core';
import { metadataIndex } from './metadata-index';
import { date, ms, nul, opt } from './rows';

export interface TokenRow {
  tenant_id: string;
  id: string;
  type: TokenTypeName;
  sealed_data: Buffer;
  mask: string | null;
  container: string;
  containers: string;
  metadata: string;
  search_indexes: string | null;
  fingerprint_expression: string;
  fingerprint: string;
  deduplicate_token: number | null;
  created_by: string;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
  expires_at: number | null;
  cvc_expires_at: number | null;
  metadata_index: string;
}

export interface IndexedRow extends TokenRow {
  index_hashes: string | null;
}

export function toStoredToken(row: IndexedRow): StoredToken {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    type: row.type,
    sealedData: row.sealed_data,
    mask: row.mask === null ? undefined : (JSON.parse(row.mask) as unknown),
    containers: JSON.parse(row.containers) as string[],
    metadata: JSON.parse(row.metadata) as Metadata,
    searchIndexes: row.search_indexes === null ? undefined : (JSON.parse(row.search_indexes) as string[]),
    fingerprintExpression: row.fingerprint_expression,
    fingerprint: row.fingerprint,
    deduplicateToken: row.deduplicate_token === null ? undefined : row.deduplicate_token === 1,
    indexHashes: row.index_hashes ? row.index_hashes.split(',') : [],
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    modifiedBy: opt(row.modified_by),
    modifiedAt: date(row.modified_at),
    expiresAt: date(row.expires_at),
    cvcExpiresAt: date(row.cvc_expires_at),
  };
}

export function toRow(t: StoredToken): TokenRow {
  return {
    tenant_id: t.tenantId,
    id: t.id,
    type: t.type,
    sealed_data: Buffer.from(t.sealedData),
    mask: t.mask === undefined ? null : JSON.stringify(t.mask),
    container: t.containers[0] ?? '/',
    containers: JSON.stringify(t.containers),
    metadata: JSON.stringify(t.metadata),
    search_indexes: t.searchIndexes === undefined ? null : JSON.stringify(t.searchIndexes),
    fingerprint_expression: t.fingerprintExpression,
    fingerprint: t.fingerprint,
    deduplicate_token: t.deduplicateToken === undefined ? null : t.deduplicateToken ? 1 : 0,
    created_by: t.createdBy,
    created_at: t.createdAt.getTime(),
    modified_by: nul(t.modifiedBy),
    modified_at: ms(t.modifiedAt),
    expires_at: ms(t.expiresAt),
    cvc_expires_at: ms(t.cvcExpiresAt),
    metadata_index: metadataIndex(t.metadata),
  };
}

/** Selects a token row with its blind-index hashes folded into one column. */
export const TOKEN_COLUMNS = `t.*, (SELECT group_concat(h.hash) FROM token_index_hashes h
  WHERE h.tenant_id = t.tenant_id AND h.token_id = t.id) AS index_hashes`;

export const LIVE = '(t.expires_at IS NULL OR t.expires_at > @now)';
