import type { Database, Statement } from 'better-sqlite3';
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
  /** The version the token was read at (see StoredToken.version): stored by an insert, compared by an update. */
  version: number;
}

/**
 * A token as `SELECT ${TOKEN_COLUMNS}` returns it from a raw statement (`selectTokens`): values by position, which
 * spares building a 20-property row object per token read.
 */
export type IndexedTuple = [
  tenant_id: string,
  id: string,
  type: TokenTypeName,
  sealed_data: Buffer,
  mask: string | null,
  containers: string,
  metadata: string,
  search_indexes: string | null,
  fingerprint_expression: string,
  fingerprint: string,
  deduplicate_token: number | null,
  created_by: string,
  created_at: number,
  modified_by: string | null,
  modified_at: number | null,
  expires_at: number | null,
  cvc_expires_at: number | null,
  version: number,
  index_hashes: string | null,
];

/** The columns of `IndexedTuple`, in its order, with the blind-index hashes folded into the last one. */
export const TOKEN_COLUMNS = `t.tenant_id, t.id, t.type, t.sealed_data, t.mask, t.containers, t.metadata, t.search_indexes,
  t.fingerprint_expression, t.fingerprint, t.deduplicate_token, t.created_by, t.created_at, t.modified_by, t.modified_at,
  t.expires_at, t.cvc_expires_at, t.version,
  (SELECT group_concat(h.hash) FROM token_index_hashes h WHERE h.tenant_id = t.tenant_id AND h.token_id = t.id) AS index_hashes`;

/** Prepares a `SELECT ${TOKEN_COLUMNS} …` so that it returns `IndexedTuple`s. */
export function selectTokens(db: Database, sql: string): Statement {
  return db.prepare(sql).raw(true);
}

export function toStoredToken(row: IndexedTuple): StoredToken {
  const [tenantId, id, type, sealedData, mask, containers, metadata, searchIndexes, fingerprintExpression, fingerprint,
    dedup, createdBy, createdAt, modifiedBy, modifiedAt, expiresAt, cvcExpiresAt, version, indexHashes] = row;
  return {
    id,
    tenantId,
    type,
    sealedData,
    mask: mask === null ? undefined : (JSON.parse(mask) as unknown),
    containers: JSON.parse(containers) as string[],
    metadata: JSON.parse(metadata) as Metadata,
    searchIndexes: searchIndexes === null ? undefined : (JSON.parse(searchIndexes) as string[]),
    fingerprintExpression,
    fingerprint,
    deduplicateToken: dedup === null ? undefined : dedup === 1,
    indexHashes: indexHashes ? indexHashes.split(',') : [],
    createdBy,
    createdAt: new Date(createdAt),
    modifiedBy: opt(modifiedBy),
    modifiedAt: date(modifiedAt),
    expiresAt: date(expiresAt),
    cvcExpiresAt: date(cvcExpiresAt),
    version,
  };
}

/** The columns a new token's row fills, in the order `tokenRowValues` gives their values. */
export const TOKEN_ROW_COLUMNS = [
  'tenant_id',
  'id',
  'type',
  'sealed_data',
  'mask',
  'container',
  'containers',
  'metadata',
  'search_indexes',
  'fingerprint_expression',
  'fingerprint',
  'deduplicate_token',
  'created_by',
  'created_at',
  'modified_by',
  'modified_at',
  'expires_at',
  'cvc_expires_at',
  'metadata_index',
  'version',
] as const satisfies ReadonlyArray<keyof TokenRow>;

/** A row's values for positional parameters (binding twenty named ones per insert cost more than the insert's SQL). */
export const tokenRowValues = (row: TokenRow): unknown[] => TOKEN_ROW_COLUMNS.map((column) => row[column]);

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
    version: t.version,
  };
}


/** A token that has not expired at the time bound to the `?` (milliseconds). */
export const LIVE = '(t.expires_at IS NULL OR t.expires_at > ?)';

/**
 * The live token deduplication answers for a tenant, fingerprint and type (parameters in that order, then `now`): the
 * oldest. One query for the writer's deduplication and the repository's look-up, so a prediction made with one is
 * what the other decides.
 */
export const OLDEST_BY_FINGERPRINT = `SELECT ${TOKEN_COLUMNS} FROM tokens t WHERE t.tenant_id = ?
  AND t.fingerprint = ? AND t.type = ? AND ${LIVE} ORDER BY t.created_at LIMIT 1`;
