import type { TokenQuery } from '@svc/core';
import { metadataNeedle } from './metadata-index';

/** A WHERE fragment over `tokens t` and its positional parameters. */
export interface SqlFragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

const COLUMNS = { id: 't.id', type: 't.type', fingerprint: 't.fingerprint', created_by: 't.created_by', modified_by: 't.modified_by' } as const;
const DATES = { created_at: 't.created_at', modified_at: 't.modified_at' } as const;

/** The smallest string greater than every string that starts with `prefix`: prefix scans become index ranges. */
export const prefixEnd = (prefix: string): string => `${prefix}\u{10FFFF}`;

function junction(items: readonly TokenQuery[], operator: string, tenantId: string, isBroad: BreadthProbe, expand?: ContainerExpansion): SqlFragment {
  const parts = items.map((q) => compileTokenQuery(q, tenantId, isBroad, expand));
  return { sql: `(${parts.map((i) => i.sql).join(operator)})`, params: parts.flatMap((i) => i.params) };
}

/** A leaf whose breadth decides the plan: a blind-index hash, a metadata pair or a container. */
export type ProbedLeaf = Extract<TokenQuery, { kind: 'data' | 'metadata' | 'container' }>;
export type SideLeaf = Extract<TokenQuery, { kind: 'data' | 'metadata' }>;

/**
 * Whether a leaf matches many tokens. A narrow leaf drives the query: `t.id IN (…)` seeks each listed token, and a
 * container range is scanned in its index. A broad one only filters rows another index found: a metadata pair is
 * checked on the row (`instr` on the metadata index), a hash by one seek per row, and a container with `+` so
 * SQLite does not scan half a tenant when a date range could drive instead.
 */
export type BreadthProbe = (leaf: ProbedLeaf) => boolean;

/**
 * The containers that exist under a prefix, when they are few (`undefined` otherwise). For a count, a broad
 * `container:/pii/*` then becomes `t.container IN ('/pii/high/', …)`: SQLite reads only the matching entries of
 * `tokens_by_container`, each with its `created_at` range, instead of every token of the date range in
 * `tokens_by_created`. Pages keep the range: they read newest first and stop after a page.
 */
export type ContainerExpansion = (prefix: string) => readonly string[] | undefined;

function sideTable(leaf: SideLeaf, tenantId: string, broad: boolean): SqlFragment {
  if (broad && leaf.kind === 'metadata') {
    return { sql: 'instr(t.metadata_index, ?) > 0', params: [metadataNeedle(leaf.key, leaf.value)] };
  }
  const [table, alias, match, params] =
    leaf.kind === 'data'
      ? (['token_index_hashes', 'h', 'h.hash = ?', [leaf.value]] as const)
      : (['token_metadata', 'm', 'm.key = ? AND m.value = ?', [leaf.key, leaf.value]] as const);
  if (broad) {
    return {
      sql: `EXISTS (SELECT 1 FROM ${table} ${alias} WHERE ${alias}.tenant_id = t.tenant_id AND ${match} AND ${alias}.token_id = t.id)`,
      params,
    };
  }
  return { sql: `t.id IN (SELECT ${alias}.token_id FROM ${table} ${alias} WHERE ${alias}.tenant_id = ? AND ${match})`, params: [tenantId, ...params] };
}

/**
 * The most tokens the query can match, when something bounds it: the ids it names (`id:…`, or an OR of at most 100
 * ids), a leaf `leafBound` bounds (the store's probe of a narrow leaf), or an AND holding any of those (the smallest
 * bound of its items); `undefined` when nothing does.
 */
export function matchBound(query: TokenQuery, leafBound: (leaf: ProbedLeaf) => number | undefined = () => undefined): number | undefined {
  const isId = (q: TokenQuery): boolean => q.kind === 'term' && q.field === 'id';
  if (isId(query)) return 1;
  if (query.kind === 'or') return query.items.length <= 100 && query.items.every(isId) ? query.items.length : undefined;
  if (query.kind === 'and') {
    const bounds = query.items.map((item) => matchBound(item, leafBound)).filter((b): b is number => b !== undefined);
    return bounds.length > 0 ? Math.min(...bounds) : undefined;
  }
  if (query.kind === 'data' || query.kind === 'metadata' || query.kind === 'container') return leafBound(query);
  return undefined;
}

/**
 * Whether the query can match only tokens it names by id (`id:…`, an OR of ids, or an AND holding either): the
 * primary key answers it in a few seeks, less work than posting it to a search reader thread and back.
 */
export function boundedByIds(query: TokenQuery): boolean {
  return matchBound(query) !== undefined;
}

/**
 * The SQLite store's query compiler. Every leaf is written so that an index can answer it: blind indexes and
 * metadata through their side tables' primary keys, containers and ids as ranges, dates as ranges.
 */
export function compileTokenQuery(
  query: TokenQuery,
  tenantId: string,
  isBroad: BreadthProbe = () => false,
  expand?: ContainerExpansion,
): SqlFragment {
  switch (query.kind) {
    case 'all':
      return { sql: '1', params: [] };
    case 'term':
      // modified_by may be NULL: spelled out so that NOT of the term holds for tokens never modified.
      return query.field === 'modified_by'
        ? { sql: '(t.modified_by IS NOT NULL AND t.modified_by = ?)', params: [query.value] }
        : { sql: `${COLUMNS[query.field]} = ?`, params: [query.value] };
    case 'id_prefix':
      return { sql: 't.id >= ? AND t.id < ?', params: [query.value, prefixEnd(query.value)] };
    case 'data':
    case 'metadata':
      return sideTable(query, tenantId, isBroad(query));
    case 'container': {
      const broad = isBroad(query);
      const containers = broad && query.prefix && expand ? expand(query.path) : undefined;
      if (containers) {
        // No container under the prefix: nothing matches (and NOT of it matches everything, as the range would).
        if (containers.length === 0) return { sql: '0', params: [] };
        return { sql: `t.container IN (${containers.map(() => '?').join(', ')})`, params: containers };
      }
      const column = broad ? '+t.container' : 't.container';
      return query.prefix
        ? { sql: `(${column} >= ? AND ${column} < ?)`, params: [query.path, prefixEnd(query.path)] }
        : { sql: `${column} = ?`, params: [query.path] };
    }
    case 'range': {
      const column = DATES[query.field];
      const bounds = rangeBounds(column, query);
      return { sql: `(${[`${column} IS NOT NULL`, ...bounds.terms].join(' AND ')})`, params: bounds.params };
    }
    case 'or': {
      // Terms of one field ORed together (`?id=a&id=b…`) become one IN list: indexable, and no deep expression tree.
      const first = query.items[0];
      const field = first?.kind === 'term' && first.field !== 'modified_by' ? first.field : undefined;
      if (field && query.items.every((q) => q.kind === 'term' && q.field === field)) {
        const values = query.items.map((q) => (q as Extract<TokenQuery, { kind: 'term' }>).value);
        return { sql: `${COLUMNS[field]} IN (${values.map(() => '?').join(', ')})`, params: values };
      }
      return junction(query.items, ' OR ', tenantId, isBroad, expand);
    }
    case 'and':
      return junction(query.items, ' AND ', tenantId, isBroad, expand);
    case 'not': {
      const item = compileTokenQuery(query.item, tenantId, isBroad, expand);
      return { sql: `NOT ${item.sql.startsWith('(') ? item.sql : `(${item.sql})`}`, params: item.params };
    }
  }
}

/** `metadata.k:v AND type:t`, with at most one `created_at` range beside them: one range of `token_metadata`'s key. */
export interface PairOfType {
  readonly key: string;
  readonly value: string;
  readonly type: string;
  readonly range?: Extract<TokenQuery, { kind: 'range' }>;
}

/** The query as a {@link PairOfType} when that is all it is (its items in any order); `undefined` otherwise. */
export function pairOfType(query: TokenQuery): PairOfType | undefined {
  if (query.kind !== 'and' || query.items.length > 3) return undefined;
  let pair: Extract<TokenQuery, { kind: 'metadata' }> | undefined;
  let type: string | undefined;
  let range: Extract<TokenQuery, { kind: 'range' }> | undefined;
  for (const item of query.items) {
    if (item.kind === 'metadata' && !pair) pair = item;
    else if (item.kind === 'term' && item.field === 'type' && type === undefined) type = item.value;
    else if (item.kind === 'range' && item.field === 'created_at' && !range) range = item;
    else return undefined;
  }
  return pair && type !== undefined ? { key: pair.key, value: pair.value, type, ...(range ? { range } : {}) } : undefined;
}

/** The pair's entries in `token_metadata m` (of one type when given, within the range when given). */
export function pairEntries(tenantId: string, pair: { key: string; value: string; type?: string; range?: Extract<TokenQuery, { kind: 'range' }> }): SqlFragment {
  let sql = 'm.tenant_id = ? AND m.key = ? AND m.value = ?';
  const params: unknown[] = [tenantId, pair.key, pair.value];
  if (pair.type !== undefined) {
    sql += ' AND m.type = ?';
    params.push(pair.type);
  }
  if (pair.range) {
    const bounds = rangeBounds('m.created_at', pair.range);
    for (const term of bounds.terms) sql += ` AND ${term}`;
    params.push(...bounds.params);
  }
  return { sql, params };
}

/** A date range's bounds on `column`: one `column op ?` term and its time in ms for each bound given. */
function rangeBounds(column: string, range: Extract<TokenQuery, { kind: 'range' }>): { terms: string[]; params: number[] } {
  const terms: string[] = [];
  const params: number[] = [];
  for (const [op, bound] of [['>=', range.gte], ['>', range.gt], ['<=', range.lte], ['<', range.lt]] as const) {
    if (bound !== undefined) {
      terms.push(`${column} ${op} ?`);
      params.push(bound.getTime());
    }
  }
  return { terms, params };
}
