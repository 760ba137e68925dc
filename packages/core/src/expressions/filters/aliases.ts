import type { RandomSource } from '../../shared/random';
import { ExpressionError } from '../expression-error';
import { chars, count, flag, requiredText } from './args';
import { binLength, completeLuhn, MAX_CARD_DIGITS, MIN_CARD_DIGITS } from './card-number';
import type { FilterSet } from './filter-set';

/**
 * Random alias filters, used in `id` expressions. All randomness comes from the injected
 * {@link RandomSource}. An alias must never be the data itself, so when the requested reveal would
 * cover the whole value, nothing is revealed.
 */

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';
const ALPHANUMERIC = LOWER + DIGITS;
const CARD_DELIMITERS = new Set([' ', '-']);
const ALIAS_CARD_ATTEMPTS = 100;

function pick(random: RandomSource, alphabet: string): string {
  return alphabet.charAt(random.int(alphabet.length));
}

/** Maps every character outside the revealed head and tail through `replace`. */
function aliasMiddle(filter: string, value: unknown, first: unknown, last: unknown, replace: (c: string) => string): string {
  let head = count(filter, 'reveal_first_length', first, 0);
  let tail = count(filter, 'reveal_last_length', last, 0);
  const all = chars(requiredText(filter, value));
  if (head + tail >= all.length) head = tail = 0;
  const cut = all.length - tail;
  return all.map((c, i) => (i < head || i >= cut ? c : replace(c))).join('');
}

function preserveFormat(random: RandomSource, c: string): string {
  if (/\p{Lu}/u.test(c)) return pick(random, UPPER);
  if (/\p{L}/u.test(c)) return pick(random, LOWER);
  if (/\p{N}/u.test(c)) return pick(random, DIGITS);
  return c;
}

function aliasCard(random: RandomSource, value: unknown, revealBin: unknown, revealLast4: unknown): string {
  const bin = flag('alias_card', 'reveal_bin', revealBin, false);
  const last4 = flag('alias_card', 'reveal_last4', revealLast4, false);
  const all = chars(requiredText('alias_card', value));
  if (!all.every((c) => CARD_DELIMITERS.has(c) || DIGITS.includes(c))) {
    throw new ExpressionError('alias_card: expects a card number of digits, spaces and dashes.');
  }
  const original = all.filter((c) => DIGITS.includes(c)).map(Number);
  const n = original.length;
  if (n < MIN_CARD_DIGITS || n > MAX_CARD_DIGITS) {
    throw new ExpressionError('alias_card: expects a card number of 12 to 19 digits.');
  }
  const kept = (k: number): boolean => (bin && k < binLength(n)) || (last4 && k >= n - 4);
  const free = original.map((_, k) => k).filter((k) => !kept(k));
  // One free digit is fixed by the checksum, so at least one more must be random or the alias is the card.
  if (free.length < 2) throw new ExpressionError('alias_card: the card number is too short for the revealed digits.');
  const checkPosition = free[free.length - 1];
  for (let attempt = 0; attempt < ALIAS_CARD_ATTEMPTS; attempt++) {
    const drafted = original.map((d, k) => (kept(k) ? d : random.int(10)));
    const alias = completeLuhn(drafted, checkPosition);
    if (alias.some((d, k) => d !== original[k])) return withDelimiters(all, alias);
  }
  throw new ExpressionError('alias_card: could not generate an alias different from the card number.');
}

function withDelimiters(layout: readonly string[], digits: readonly number[]): string {
  let k = 0;
  return layout.map((c) => (CARD_DELIMITERS.has(c) ? c : String(digits[k++]))).join('');
}

/** `alias_preserve_format`, `alias_preserve_length`, `alias_card`. */
export function createAliasFilters(random: RandomSource): FilterSet {
  return {
    alias_preserve_format: (value, first, last) =>
      aliasMiddle('alias_preserve_format', value, first, last, (c) => preserveFormat(random, c)),
    alias_preserve_length: (value, first, last) =>
      aliasMiddle('alias_preserve_length', value, first, last, () => pick(random, ALPHANUMERIC)),
    alias_card: (value, revealBin, revealLast4) => aliasCard(random, value, revealBin, revealLast4),
  };
}
