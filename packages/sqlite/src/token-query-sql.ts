import type { TokenQuery } from '@svc/core';

/** A WHERE fragment over `tokens t` and its positional parameters. */
export interface SqlFragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

const COLUMNS = { id: 't.id', type: 't.type', fingerprint: 't.fingerprint', created_by: 't.created_by', modified_by: 't.modified_by' } as const;
const DATES = { created_at: 't.created_at', modified_at: 't.modified_at' } as const;

/** The smallest string greater than every string that starts with `prefix`: prefix scans become index ranges. */
const prefixEnd = (prefix: string): string => `${prefix}\u{10FFFF}`;

/**
 * The SQLite store's query compiler. Every leaf is written so that an index can answer it: blind indexes and
 * metadata through their side tables' primary keys, containers and ids as ranges, dates as ranges.
 */
export function compileTokenQuery(query: TokenQuery, tenantId: string): SqlFragment {
  switch (query.kind) {
    case 'all':
      return { sql: '1', params: [] };
    case 'term':
      return { sql: `${COLUMNS[query.field]} = ?`, params: [query.value] };
    case 'id_prefix':
      return { sql: 't.id >= ? AND t.id < ?', params: [query.value, prefixEnd(query.value)] };
    case 'data':
      return {
        sql: 't.id IN (SELECT h.token_id FROM token_index_hashes h WHERE h.tenant_id = ? AND h.hash = ?)',
        params: [tenantId, query.value],
      };
    case 'metadata':
      return {
        sql: 't.id IN (SELECT m.token_id FROM token_metadata m WHERE m.tenant_id = ? AND m.key = ? AND m.value = ?)',
        params: [tenantId, query.key, query.value],
      };
    case 'container':
      return query.prefix
        ? { sql: '(t.container >= ? AND t.container < ?)', params: [query.path, prefixEnd(query.path)] }
        : { sql: 't.container = ?', params: [query.path] };
    case 'range': {
      const column = DATES[query.field];
      const parts = [`${column} IS NOT NULL`];
      const params: number[] = [];
      for (const [op, bound] of [['>=', query.gte], ['>', query.gt], ['<=', query.lte], ['<', query.lt]] as const) {
        if (bound !== undefined) {
          parts.push(`${column} ${op} ?`);
          params.push(bound.getTime());
        }
      }
      return { sql: `(${parts.join(' AND ')})`, params };
    }
    case 'and':
    case 'or': {
      const items = query.items.map((q) => compileTokenQuery(q, tenantId));
      return {
        sql: `(${items.map((i) => i.sql).join(query.kind === 'and' ? ' AND ' : ' OR ')})`,
        params: items.flatMap((i) => i.params),
      };
    }
    case 'not': {
      const item = compileTokenQuery(query.item, tenantId);
      return { sql: `NOT ${item.sql.startsWith('(') ? item.sql : `(${item.sql})`}`, params: item.params };
    }
  }
}
