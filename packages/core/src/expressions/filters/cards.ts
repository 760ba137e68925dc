import { ExpressionError } from '../expression-error';
import { char, chars, flag, optionalString, textOrNull } from './args';
import { binLength, MAX_CARD_DIGITS, MIN_CARD_DIGITS } from './card-number';
import type { FilterSet } from './filter-set';

/** `card_bin`, `card_exp`, `card_mask`. (`alias_card` lives with the other aliases.) */

function cardBin(value: unknown, separator?: unknown): string | null {
  const sep = optionalString('card_bin', 'separator_char', separator);
  const text = textOrNull('card_bin', value);
  if (text === null) return null;
  const digits = sep === '' ? text : text.split(sep).join('');
  if (!/^\d+$/.test(digits) || digits.length < MIN_CARD_DIGITS || digits.length > MAX_CARD_DIGITS) {
    throw new ExpressionError('card_bin: expects a card number of 12 to 19 digits (pass its separator_char).');
  }
  return digits.slice(0, binLength(digits.length));
}

const EXP_FORMATS: Readonly<Record<string, (mm: string, yyyy: string) => string>> = {
  MM: (mm) => mm,
  MMYY: (mm, yyyy) => `${mm}${yyyy.slice(2)}`,
  YYYY: (_mm, yyyy) => yyyy,
  'YYYY-MM': (mm, yyyy) => `${yyyy}-${mm}`,
  'YYYY/MM': (mm, yyyy) => `${yyyy}/${mm}`,
  'MM/YY': (mm, yyyy) => `${mm}/${yyyy.slice(2)}`,
  'MM/YYYY': (mm, yyyy) => `${mm}/${yyyy}`,
  MM_YYYY: (mm, yyyy) => `${mm}_${yyyy}`,
  'MM-YYYY': (mm, yyyy) => `${mm}-${yyyy}`,
};

function expPart(card: object, key: string, max: number): number {
  const raw: unknown = Object.prototype.hasOwnProperty.call(card, key) ? Reflect.get(card, key) : undefined;
  const n = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > max) {
    throw new ExpressionError(`card_exp: the card's ${key} is missing or invalid.`);
  }
  return n;
}

function cardExp(value: unknown, format?: unknown): string | null {
  const render = typeof format === 'string' && Object.hasOwn(EXP_FORMATS, format) ? EXP_FORMATS[format] : undefined;
  if (!render) throw new ExpressionError(`card_exp: format must be one of ${Object.keys(EXP_FORMATS).join(', ')}.`);
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ExpressionError('card_exp: expects a card with expiration_month and expiration_year.');
  }
  const month = expPart(value, 'expiration_month', 12);
  const year = expPart(value, 'expiration_year', 9999);
  return render(String(month).padStart(2, '0'), String(year).padStart(4, '0'));
}

function cardMask(value: unknown, revealBin?: unknown, revealLast4?: unknown, maskChar?: unknown, preserve?: unknown): string | null {
  const bin = flag('card_mask', 'reveal_bin', revealBin, false);
  const last4 = flag('card_mask', 'reveal_last4', revealLast4, true);
  const mask = char('card_mask', 'mask_char', maskChar, 'X');
  const kept = new Set(chars(optionalString('card_mask', 'preserve_char', preserve)));
  const text = textOrNull('card_mask', value);
  if (text === null) return null;
  const all = chars(text);
  const slots = all.filter((c) => !kept.has(c)).length;
  const binEnd = bin ? binLength(slots) : 0;
  const lastStart = last4 ? slots - 4 : slots;
  let slot = 0;
  const masked = all
    .map((c) => {
      if (kept.has(c)) return c;
      const k = slot++;
      return k < binEnd || k >= lastStart ? c : mask;
    })
    .join('');
  return masked === text ? mask.repeat(all.length) : masked;
}

export const cardFilters: FilterSet = {
  card_bin: cardBin,
  card_exp: cardExp,
  card_mask: cardMask,
};
