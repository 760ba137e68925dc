import type { Filter, Sort } from 'mongodb';
import type { KeysetPosition, TokenQuery } from '@svc/core';
import { metadataPair, type TokenDocument } from './token-document';

export type TokenFilter = Filter<TokenDocument>;

const TERM_FIELDS = { id: 'id', type: 'type', fingerprint: 'fingerprint', created_by: 'created_by', modified_by: 'modified_by' } as const;

/**
 * The bounds of every string that starts with `prefix`: prefix matches become index ranges, never regular
 * expressions. U+10FFFF is the greatest code point, so its UTF-8 bytes sort after those of any other.
 */
export const prefixRange = (prefix: string): { $gte: string; $lt: string } => ({ $gte: prefix, $lt: `${prefix}\u{10FFFF}` });

/** Newest first, then by id descending: the order of every store, so pages are stable. */
export const TOKEN_ORDER: Sort = { created_at: -1, id: -1 };

type RangeQuery = Extract<TokenQuery, { kind: 'range' }>;

/**
 * A date range. A bound compares only with dates (BSON type bracketing), so a token without the field never
 * matches; with no bound at all, `$ne: null` keeps only the tokens that have the field, as in SQLite.
 */
function rangeFilter(query: RangeQuery): TokenFilter {
  const bounds: Record<string, Date> = {};
  if (query.gte !== undefined) bounds.$gte = query.gte;
  if (query.gt !== undefined) bounds.$gt = query.gt;
  if (query.lte !== undefined) bounds.$lte = query.lte;
  if (query.lt !== undefined) bounds.$lt = query.lt;
  return { [query.field]: Object.keys(bounds).length === 0 ? { $ne: null } : bounds };
}

/**
 * The MongoDB store's query compiler: a `TokenQuery` as a filter on token documents. Every leaf is written so that
 * an index led by `tenant_id` can answer it: equality on fields, ranges for prefixes and dates, and multikey
 * equality on blind-index hashes and metadata pairs. Values are only ever compared, never parsed as operators.
 */
export function compileTokenQuery(query: TokenQuery): TokenFilter {
  switch (query.kind) {
    case 'all':
      return {};
    case 'term':
      return { [TERM_FIELDS[query.field]]: query.value };
    case 'id_prefix':
      return { id: prefixRange(query.value) };
    case 'data':
      return { index_hashes: query.value };
    case 'metadata':
      return { metadata_pairs: metadataPair(query.key, query.value) };
    case 'container':
      return { container: query.prefix ? prefixRange(query.path) : query.path };
    case 'range':
      return rangeFilter(query);
    case 'and':
      return { $and: query.items.map(compileTokenQuery) };
    case 'or':
      return { $or: query.items.map(compileTokenQuery) };
    case 'not':
      return { $nor: [compileTokenQuery(query.item)] };
  }
}

/** Tokens that have not expired at `now`; `expires_at: null` also matches tokens that never expire (no field). */
export function liveTokenFilter(now: Date): TokenFilter {
  return { $or: [{ expires_at: null }, { expires_at: { $gt: now } }] };
}

/**
 * A search: the tenant's live tokens that match `query`. The TTL index deletes expired tokens only lazily (its
 * monitor runs every minute), so expiry is always part of the filter.
 */
export function tokenSearchFilter(tenantId: string, query: TokenQuery, now: Date): TokenFilter {
  const filter: TokenFilter = { tenant_id: tenantId, ...liveTokenFilter(now) };
  return query.kind === 'all' ? filter : { ...filter, $and: [compileTokenQuery(query)] };
}

/**
 * The tokens after `position` in {@link TOKEN_ORDER}: older, or of the same millisecond with a smaller id. The
 * `$lte` beside the `$or` (which it does not change) bounds the scan of `tokens_by_created` (tenant, created_at, id)
 * to start at the position, so a deep page seeks its start rather than walking past the pages before it.
 */
export function afterPositionFilter(position: KeysetPosition): TokenFilter {
  return {
    created_at: { $lte: position.createdAt },
    $or: [{ created_at: { $lt: position.createdAt } }, { created_at: position.createdAt, id: { $lt: position.id } }],
  };
}

/** A keyset page's filter: the search's, and only tokens after `after` when given. */
export function tokenKeysetFilter(tenantId: string, query: TokenQuery, after: KeysetPosition | undefined, now: Date): TokenFilter {
  const filter = tokenSearchFilter(tenantId, query, now);
  // The search filter's own `$or` is the expiry: the position joins through `$and`.
  return after ? { ...filter, $and: [...(filter.$and ?? []), afterPositionFilter(after)] } : filter;
}
