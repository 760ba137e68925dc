import { normalizeContainer } from '../shared/container';
import type { DateBounds } from './token-query';

const DAY_MS = 86_400_000;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A date or date-time of a query. A date stands for the whole UTC day that starts at `start`. */
export interface QueryDate {
  readonly start: Date;
  readonly wholeDay: boolean;
}

/**
 * Parses an ISO 8601 date (`2024-01-31`) or date-time (`2024-01-31T10:00`, `…:00Z`, `…:00.123+02:00`), strictly:
 * every field in range, no 24:00, no leap seconds. A date-time without an offset is UTC. Undefined when invalid.
 */
export function parseQueryDate(text: string): QueryDate | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offset = parseOffset(match[8]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offset === undefined) return undefined;
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second, millis));
  date.setUTCFullYear(year, month - 1, day); // Date.UTC maps years 0–99 to 1900–1999
  return { start: new Date(date.getTime() - offset * 60_000), wholeDay: match[4] === undefined };
}

/** Offset in minutes east of UTC; undefined when out of range. */
function parseOffset(text: string | undefined): number | undefined {
  if (text === undefined || text.toUpperCase() === 'Z') return 0;
  const digits = text.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return undefined;
  return (text[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

function dayAfter(date: QueryDate): Date {
  return new Date(date.start.getTime() + DAY_MS);
}

/** A bare date matches its whole UTC day; a bare date-time matches that instant exactly. */
export function exactBounds(date: QueryDate): DateBounds {
  return date.wholeDay ? { gte: date.start, lt: dayAfter(date) } : { gte: date.start, lte: date.start };
}

/** Lower bound of a range. A date bound covers its whole day: `{2024-01-31` starts after that day ends. */
export function lowerBound(date: QueryDate, inclusive: boolean): DateBounds {
  if (date.wholeDay) return { gte: inclusive ? date.start : dayAfter(date) };
  return inclusive ? { gte: date.start } : { gt: date.start };
}

/** Upper bound of a range. A date bound covers its whole day: `2024-01-31]` runs to the end of that day. */
export function upperBound(date: QueryDate, inclusive: boolean): DateBounds {
  if (date.wholeDay) return { lt: inclusive ? dayAfter(date) : date.start };
  return inclusive ? { lte: date.start } : { lt: date.start };
}

/** A container path as tokens store it (lower-cased, `/` at both ends, `[a-z0-9_-]` segments), or undefined. */
export function containerPath(value: string): string | undefined {
  return value.startsWith('/') ? normalizeContainer(value) : undefined;
}
