import type { TenantKeys } from '../crypto/tenant-keys';
import type { TokenQuery } from './token-query';

/** Replaces every `data` value by its keyed hash, so the store matches hashes and never sees the value. */
export function blindQuery(query: TokenQuery, keys: TenantKeys): TokenQuery {
  switch (query.kind) {
    case 'data':
      return { kind: 'data', value: keys.indexHash(query.value) };
    case 'and':
    case 'or':
      return { kind: query.kind, items: query.items.map((q) => blindQuery(q, keys)) };
    case 'not':
      return { kind: 'not', item: blindQuery(query.item, keys) };
    default:
      return query;
  }
}
