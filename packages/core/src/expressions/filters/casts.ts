import { ExpressionError } from '../expression-error';
import type { FilterSet } from './filter-set';

/** `to_boolean`, `to_number`, `to_string`: null stays null; a value that cannot be cast is an error. */

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function toBoolean(value: unknown): boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && !Number.isNaN(value)) return value !== 0;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (word === 'true') return true;
    if (word === 'false') return false;
  }
  throw new ExpressionError('to_boolean: the value cannot be cast to a boolean.');
}

function toNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) {
    const n = Number(value.trim());
    if (Number.isFinite(n)) return n;
  }
  throw new ExpressionError('to_number: the value cannot be cast to a number.');
}

function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new ExpressionError('to_string: the value cannot be cast to a string.');
}

export const castFilters: FilterSet = {
  to_boolean: toBoolean,
  to_number: toNumber,
  to_string: toText,
};
