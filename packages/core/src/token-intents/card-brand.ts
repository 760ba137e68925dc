/**
 * Card brands from the issuer identification number (IIN): the leading digits of a card number. The table holds
 * published ranges of the networks Basis Theory names (its brand names, which are also credit-card-type's); where two
 * ranges hold a number, the longer prefix is the more specific and wins (Elo's 6-digit ranges inside Visa's `4`,
 * Discover's `65` and Maestro's `50`). Only the first six digits are ever read. Funding (credit, debit, prepaid) needs
 * an issuer BIN table, which svc does not ship.
 */

export const CARD_BRANDS = [
  'visa',
  'mastercard',
  'american-express',
  'discover',
  'diners-club',
  'jcb',
  'unionpay',
  'maestro',
  'elo',
  'hipercard',
  'mir',
] as const;

export type CardBrand = (typeof CARD_BRANDS)[number];

/** A range of IIN prefixes, both ends inclusive and of the same number of digits (`2221`–`2720`). */
export interface IinRange {
  readonly brand: CardBrand;
  readonly from: string;
  readonly to: string;
}

type Entry = readonly [CardBrand, readonly (string | readonly [string, string])[]];

/** Brand → prefixes, a single prefix or an inclusive [from, to] range of equally long prefixes. */
const TABLE: readonly Entry[] = [
  ['visa', ['4']],
  ['mastercard', [['51', '55'], ['2221', '2720']]],
  ['american-express', ['34', '37']],
  ['discover', ['6011', ['644', '649'], '65']],
  ['diners-club', [['300', '305'], '3095', '36', ['38', '39']]],
  ['jcb', [['3528', '3589'], '2131', '1800']],
  // UnionPay's 81 series ends at 817199 (8172–8199 belong to no network of the table).
  ['unionpay', ['62', ['810', '816'], ['8170', '8171']]],
  ['maestro', ['493698', '50', ['56', '59'], '63', '67']],
  [
    'elo',
    [
      '401178', '401179', '431274', '438935', '451416', '457393', '457631', '457632', '504175', ['506699', '506778'],
      ['509000', '509999'], '627780', '636297', '636368', ['650031', '650033'], ['650035', '650051'],
      ['650405', '650439'], ['650485', '650538'], ['650541', '650598'], ['650700', '650718'], ['650720', '650727'],
      ['650901', '650978'], ['651652', '651679'], ['655000', '655019'], ['655021', '655058'],
    ],
  ],
  ['hipercard', ['606282', '384100', '384140', '384160']],
  ['mir', [['2200', '2204']]],
];

/** Every range of the table, longest prefixes first, so the first match is the most specific one. */
export const IIN_RANGES: readonly IinRange[] = TABLE.flatMap(([brand, prefixes]) =>
  prefixes.map((p): IinRange => (typeof p === 'string' ? { brand, from: p, to: p } : { brand, from: p[0], to: p[1] })),
).sort((a, b) => b.from.length - a.from.length);

/** How many leading digits the brand depends on: the longest prefix in the table. */
export const IIN_DIGITS = 6;

const DIGITS = /^\d+$/;

/** True when `number` starts with a prefix inside `range` (compared as digit strings of the range's length). */
export function inRange(number: string, range: IinRange): boolean {
  if (number.length < range.from.length) return false;
  const prefix = number.slice(0, range.from.length);
  return prefix >= range.from && prefix <= range.to;
}

/** The brand of a card number from its leading digits, or `unknown` when no published range holds it. */
export function cardBrand(number: string): CardBrand | 'unknown' {
  if (!DIGITS.test(number)) return 'unknown';
  return IIN_RANGES.find((range) => inRange(number, range))?.brand ?? 'unknown';
}
