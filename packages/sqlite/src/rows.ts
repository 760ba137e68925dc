import type { Database } from 'better-sqlite3';
import { offsetOf, type Page, type PageRequest, pageOf } from '@svc/core';

/** Row helpers: times are epoch milliseconds, absent optional values are NULL. */
export const ms = (date: Date | undefined): number | null => (date ? date.getTime() : null);
export const date = (value: number | null): Date | undefined => (value === null ? undefined : new Date(value));
export const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
export const nul = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

/** `(?, ?, ?)` for an IN list of `count` values. */
export const placeholders = (count: number): string => Array.from({ length: count }, () => '?').join(', ');

/**
 * One page of `table` rows matching `where`, newest first (created_at, then id), with the total: the list query
 * every tenant-scoped repository shares.
 */
export function selectPage<Row, T>(
  db: Database,
  table: string,
  where: string,
  params: readonly unknown[],
  page: PageRequest,
  map: (row: Row) => T,
): Page<T> {
  const total = (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...params) as { n: number }).n;
  const rows = db
    .prepare(`SELECT * FROM ${table} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
    .all(...params, page.size, offsetOf(page)) as Row[];
  return pageOf(rows.map(map), total, page);
}
