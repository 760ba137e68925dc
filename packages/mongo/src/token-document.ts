import type { Binary, Filter, ObjectId } from 'mongodb';
import type { Metadata, StoredToken, TokenTypeName } from '@svc/core';
import { compact, fromBinary, optional, toBinary } from './documents';

/** One metadata entry, kept in order; an array of pairs, because keys may hold `.` or start with `$`. */
export interface MetadataEntry {
  readonly key: string;
  readonly value: string;
}

/**
 * A token as MongoDB keeps it: the same information as the SQLite row. Data is sealed (AES-256-GCM) in
 * `sealed_data`; `index_hashes` holds keyed hashes only. `_id` is a driver-generated ObjectId: token ids are unique
 * per tenant only (a unique index on `{ tenant_id, id }` says so), and may hold any character.
 */
export interface TokenDocument {
  _id?: ObjectId;
  tenant_id: string;
  id: string;
  type: TokenTypeName;
  sealed_data: Binary;
  /** The mask as JSON text: masks are objects of any shape, whose keys MongoDB field names cannot all carry. */
  mask?: string | null;
  /** The token's only container, for equality and prefix ranges. */
  container: string;
  containers: string[];
  metadata: MetadataEntry[];
  /** Lower-cased metadata pairs (see {@link metadataPair}): a multikey index answers metadata terms. */
  metadata_pairs: string[];
  search_indexes?: string[] | null;
  fingerprint_expression: string;
  fingerprint: string;
  deduplicate_token?: boolean | null;
  /** Keyed hashes of the lower-cased search indexes (multikey index). */
  index_hashes: string[];
  created_by: string;
  created_at: Date;
  modified_by?: string | null;
  modified_at?: Date | null;
  expires_at?: Date | null;
  cvc_expires_at?: Date | null;
  /**
   * How many times the token was rewritten (see StoredToken.version); writes compare it and add one. Documents written
   * before versions existed have none, which counts as 0.
   */
  version?: number;
  /**
   * Set on a token created with deduplication: a unique partial index on `{ tenant_id, type, fingerprint }` over
   * the claiming tokens makes concurrent deduplicated creates, in any number of processes, yield one token.
   */
  dedup_claim?: true;
}

/**
 * A metadata pair as `metadata_pairs` holds it: lower-cased key and value, each JSON-quoted, joined by NUL. JSON
 * quoting escapes every control character, so NUL can only be the separator and a pair matches only a whole pair.
 */
export function metadataPair(key: string, value: string): string {
  return `${JSON.stringify(key.toLowerCase())}\u0000${JSON.stringify(value.toLowerCase())}`;
}

/** Matches a token document at `version`; one written before versions existed has none and is at 0. */
export function atVersion(version: number): Filter<TokenDocument> {
  // `null` in `$in` matches a missing field; the driver's types only allow the field's own type there.
  return version === 0 ? ({ version: { $in: [0, null] } } as Filter<TokenDocument>) : { version };
}

export function toTokenDocument(token: StoredToken, options: { readonly dedupClaim: boolean }): TokenDocument {
  const entries = Object.entries(token.metadata);
  return compact<TokenDocument>({
    tenant_id: token.tenantId,
    id: token.id,
    type: token.type,
    sealed_data: toBinary(token.sealedData),
    mask: token.mask === undefined ? undefined : JSON.stringify(token.mask),
    container: token.containers[0] ?? '/',
    containers: [...token.containers],
    metadata: entries.map(([key, value]) => ({ key, value })),
    metadata_pairs: [...new Set(entries.map(([key, value]) => metadataPair(key, value)))],
    search_indexes: token.searchIndexes === undefined ? undefined : [...token.searchIndexes],
    fingerprint_expression: token.fingerprintExpression,
    fingerprint: token.fingerprint,
    deduplicate_token: token.deduplicateToken,
    index_hashes: [...new Set(token.indexHashes)],
    created_by: token.createdBy,
    created_at: token.createdAt,
    modified_by: token.modifiedBy,
    modified_at: token.modifiedAt,
    expires_at: token.expiresAt,
    cvc_expires_at: token.cvcExpiresAt,
    version: token.version,
    dedup_claim: options.dedupClaim ? true : undefined,
  });
}

export function fromTokenDocument(doc: TokenDocument): StoredToken {
  const mask = optional(doc.mask);
  return {
    id: doc.id,
    tenantId: doc.tenant_id,
    type: doc.type,
    sealedData: fromBinary(doc.sealed_data),
    mask: mask === undefined ? undefined : (JSON.parse(mask) as unknown),
    containers: [...doc.containers],
    metadata: Object.fromEntries(doc.metadata.map((entry) => [entry.key, entry.value])) as Metadata,
    searchIndexes: optional(doc.search_indexes),
    fingerprintExpression: doc.fingerprint_expression,
    fingerprint: doc.fingerprint,
    deduplicateToken: optional(doc.deduplicate_token),
    indexHashes: [...doc.index_hashes],
    createdBy: doc.created_by,
    createdAt: doc.created_at,
    modifiedBy: optional(doc.modified_by),
    modifiedAt: optional(doc.modified_at),
    expiresAt: optional(doc.expires_at),
    cvcExpiresAt: optional(doc.cvc_expires_at),
    version: doc.version ?? 0,
  };
}
