import { ValidationError } from './errors';

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Parses a strict ISO 8601 date or date-time (no offset means UTC). Returns undefined when invalid. */
export function parseIsoDate(value: string): Date | undefined {
  // An offset of hours alone (`+01`, ISO 8601's ±hh) is the same offset with `:00`.
  const text = value.trim().replace(/([T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?[+-]\d{2})$/i, '$1:00');
  if (!ISO.test(text)) return undefined;
  const [datePart] = text.split(/[T ]/i);
  const [y, m, d] = datePart!.split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return undefined;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) && text.length > 10;
  const normalized = text.length === 10 ? `${text}T00:00:00Z` : hasZone ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`;
  const offset = /([+-])(\d{2}):?(\d{2})$/.exec(text.length > 10 ? text : '');
  if (offset && (Number(offset[2]) > 14 || Number(offset[3]) > 59)) return undefined;
  const date = new Date(normalized);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** An ISO 8601 time that must lie after `now`; a 400 on `field` otherwise. */
export function futureDate(field: string, value: string, now: Date): Date {
  const date = parseIsoDate(value);
  if (!date) throw ValidationError.field(field, 'Must be an ISO 8601 date or date-time.');
  if (date.getTime() <= now.getTime()) throw ValidationError.field(field, 'Must be in the future.');
  return date;
}
