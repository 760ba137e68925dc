import { char, chars, count, optionalString, textOrNull } from './args';
import type { FilterSet } from './filter-set';

/**
 * Masking filters. They never fail open: when the requested reveal would show the whole value, the whole
 * value is masked instead (except `last4` and `reveal_last`, whose documented contract is to return a value
 * no longer than the requested length as it is).
 */

// reveal_last keeps dashes so SSN/EIN and dashed card numbers keep their shape (XXX-XX-6789), as Basis
// Theory's own mask examples show; dashes carry no data.
const REVEAL_LAST_KEEPS = '-';

function last4(value: unknown): string | null {
  const text = textOrNull('last4', value);
  return text === null ? null : chars(text).slice(-4).join('');
}

function revealLast(value: unknown, length?: unknown, maskChar?: unknown): string | null {
  const shown = count('reveal_last', 'length', length);
  const mask = char('reveal_last', 'mask_char', maskChar, 'X');
  const text = textOrNull('reveal_last', value);
  if (text === null) return null;
  const all = chars(text);
  if (all.length <= shown) return text;
  const cut = all.length - shown;
  return all.map((c, i) => (i >= cut || REVEAL_LAST_KEEPS.includes(c) ? c : mask)).join('');
}

function reveal(value: unknown, first?: unknown, last?: unknown, maskChar?: unknown, preserve?: unknown): string | null {
  const head = count('reveal', 'reveal_first', first, 0);
  const tail = count('reveal', 'reveal_last', last, 0);
  const mask = char('reveal', 'mask_char', maskChar, 'X');
  const kept = new Set(chars(optionalString('reveal', 'preserve_chars', preserve)));
  const text = textOrNull('reveal', value);
  if (text === null) return null;
  const all = chars(text);
  if (head + tail >= all.length) return mask.repeat(all.length);
  const cut = all.length - tail;
  const masked = all.map((c, i) => (i < head || i >= cut || kept.has(c) ? c : mask)).join('');
  return masked === text ? mask.repeat(all.length) : masked;
}

/** `last4`, `reveal_last`, `reveal`. */
export const maskingFilters: FilterSet = {
  last4,
  reveal_last: revealLast,
  reveal,
};
