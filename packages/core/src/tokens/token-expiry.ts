import { ValidationError } from '../shared/errors';
import { parseIsoDate } from '../shared/dates';

// `M/D/YYYY`, optionally with ` h:mm[:ss] AM|PM` and an offset ` +hh:mm` (interface.md 2.5).
const US = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(AM|PM)(?:\s*([+-])(\d{2}):?(\d{2}))?)?$/i;

function parseUsDate(value: string): Date | undefined {
  const m = US.exec(value.trim());
  if (!m) return undefined;
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  let hours = m[4] === undefined ? 0 : Number(m[4]);
  const minutes = m[5] === undefined ? 0 : Number(m[5]);
  const seconds = m[6] === undefined ? 0 : Number(m[6]);
  if (m[4] !== undefined) {
    if (hours < 1 || hours > 12 || minutes > 59 || seconds > 59) return undefined;
    hours = (hours % 12) + (m[7]!.toUpperCase() === 'PM' ? 12 : 0);
  }
  const utc = Date.UTC(year, month - 1, day, hours, minutes, seconds);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  if (m[8] !== undefined && (Number(m[9]) > 14 || Number(m[10]) > 59)) return undefined;
  const offsetMinutes = m[8] === undefined ? 0 : (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
  return new Date(utc - offsetMinutes * 60_000);
}

/**
 * A token's `expires_at`: ISO 8601, `M/D/YYYY h:mm:ss AM|PM +hh:mm` or `M/D/YYYY` (midnight UTC); without an offset
 * the time is UTC. It must lie in the future.
 */
export function parseTokenExpiry(value: string, now: Date, field = 'expires_at'): Date {
  const date = parseIsoDate(value) ?? parseUsDate(value);
  if (!date) throw ValidationError.field(field, 'Must be an ISO 8601 date-time, M/D/YYYY h:mm:ss AM|PM +hh:mm, or M/D/YYYY.');
  if (date.getTime() <= now.getTime()) throw ValidationError.field(field, 'Must be in the future.');
  return date;
}
