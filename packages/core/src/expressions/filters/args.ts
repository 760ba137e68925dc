import { toValue } from 'liquidjs';
import { ExpressionError } from '../expression-error';

/**
 * Argument and input coercion shared by the filters. Every failure is an {@link ExpressionError} whose
 * message names the filter and the parameter, never the offending value (it may be token data).
 */

/** The value as text: strings as they are, numbers and booleans printed; null and undefined give null. */
export function textOrNull(filter: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw new ExpressionError(`${filter}: expects a text value.`);
}

/** Like {@link textOrNull}, but null is an error. */
export function requiredText(filter: string, value: unknown): string {
  const text = textOrNull(filter, value);
  if (text === null) throw new ExpressionError(`${filter}: expects a value, got null.`);
  return text;
}

/** A non-negative integer argument (numbers or numeric strings); `fallback` when omitted. */
export function count(filter: string, name: string, value: unknown, fallback?: number): number {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  const parsed = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isSafeInteger(parsed) || parsed < 0) {
    throw new ExpressionError(`${filter}: ${name} must be a non-negative integer.`);
  }
  return parsed;
}

/** A single-character argument (one code point); `fallback` when omitted. */
export function char(filter: string, name: string, value: unknown, fallback?: string): string {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || Array.from(value).length !== 1) {
    throw new ExpressionError(`${filter}: ${name} must be a single character.`);
  }
  return value;
}

/** An optional string argument ('' when omitted). */
export function optionalString(filter: string, name: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ExpressionError(`${filter}: ${name} must be a string.`);
  return value;
}

/**
 * A boolean argument. Basis Theory's examples pass them quoted (`card_mask: 'true', 'false'`), and the
 * string `'false'` must not count as true, so only real booleans and the words true/false are accepted.
 */
export function flag(filter: string, name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (word === 'true') return true;
    if (word === 'false') return false;
  }
  throw new ExpressionError(`${filter}: ${name} must be true or false.`);
}

/** The characters of a string, as code points, so masking never splits a surrogate pair. */
export function chars(text: string): string[] {
  return Array.from(text);
}

/** Liquid's own string conversion (nil is empty, arrays are joined, anything else String()), as its output writes values. */
export function liquidText(value: unknown): string {
  const v: unknown = toValue(value);
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(liquidText).join('');
  return String(v);
}
