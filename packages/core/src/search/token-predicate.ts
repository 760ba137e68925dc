import type { StoredToken } from '../tokens/token';
import type { TokenQuery } from './token-query';

type RangeQuery = Extract<TokenQuery, { kind: 'range' }>;

function inRange(value: Date | undefined, q: RangeQuery): boolean {
  if (!value) return false;
  const t = value.getTime();
  return (
    (q.gte === undefined || t >= q.gte.getTime()) &&
    (q.gt === undefined || t > q.gt.getTime()) &&
    (q.lte === undefined || t <= q.lte.getTime()) &&
    (q.lt === undefined || t < q.lt.getTime())
  );
}

function termValue(token: StoredToken, field: Extract<TokenQuery, { kind: 'term' }>['field']): string | undefined {
  switch (field) {
    case 'id':
      return token.id;
    case 'type':
      return token.type;
    case 'fingerprint':
      return token.fingerprint;
    case 'created_by':
      return token.createdBy;
    case 'modified_by':
      return token.modifiedBy;
  }
}

/**
 * A query's meaning over one stored token: the memory store's query compiler, and the reference that the other stores'
 * query plans are tested against. Expiry and tenant are the caller's to check.
 */
export function matchesQuery(token: StoredToken, query: TokenQuery): boolean {
  switch (query.kind) {
    case 'all':
      return true;
    case 'term':
      return termValue(token, query.field) === query.value;
    case 'id_prefix':
      return token.id.startsWith(query.value);
    case 'data':
      return token.indexHashes.includes(query.value);
    case 'metadata':
      return Object.entries(token.metadata).some(([k, v]) => k.toLowerCase() === query.key && v.toLowerCase() === query.value);
    case 'container':
      return token.containers.some((c) => (query.prefix ? c.startsWith(query.path) : c === query.path));
    case 'range':
      return inRange(query.field === 'created_at' ? token.createdAt : token.modifiedAt, query);
    case 'and':
      return query.items.every((q) => matchesQuery(token, q));
    case 'or':
      return query.items.some((q) => matchesQuery(token, q));
    case 'not':
      return !matchesQuery(token, query.item);
  }
}
