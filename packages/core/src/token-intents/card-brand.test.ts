import fc from 'fast-check';
import { luhnValid } from '../tokens/checksums';
import { CARD_BRANDS, cardBrand, IIN_DIGITS, IIN_RANGES, inRange } from './card-brand';

const SEED = 20261123;
const RUNS = 2000;

/** `prefix` padded with zeros to `length - 1` digits, then the Luhn check digit. */
function cardNumber(prefix: string, length = 16): string {
  const body = prefix.padEnd(length - 1, '0');
  for (let digit = 0; digit <= 9; digit++) if (luhnValid(`${body}${digit}`)) return `${body}${digit}`;
  throw new Error('unreachable');
}

const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));

describe('cardBrand', () => {
  it.each([
    ['4242424242424242', 'visa'],
    ['4000056655665556', 'visa'],
    ['4222222222222', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['5105105105105100', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['2720990000000007', 'mastercard'],
    ['378282246310005', 'american-express'],
    ['341111111111111', 'american-express'],
    ['6011111111111117', 'discover'],
    ['6445644564456445', 'discover'],
    ['6500000000000002', 'discover'],
    ['3056930009020004', 'diners-club'],
    ['36227206271667', 'diners-club'],
    ['3566002020360505', 'jcb'],
    ['213112345678901', 'jcb'],
    ['6200000000000005', 'unionpay'],
    ['8171999927660000', 'unionpay'],
    ['8100000000000000', 'unionpay'],
    ['6759649826438453', 'maestro'],
    ['5018000000000009', 'maestro'],
    ['6304000000000000', 'maestro'],
    ['5066991111111118', 'elo'],
    ['6362970000457013', 'elo'],
    ['4011780000000000', 'elo'],
    ['6504050000000000', 'elo'],
    ['6062826786276634', 'hipercard'],
    ['3841001111222233334', 'hipercard'],
    ['2200000000000004', 'mir'],
    ['2204999999999999', 'mir'],
  ])('reads %s as %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });

  it.each([
    ['a number no network publishes', '9999999999999995'],
    ['the gap between Mir and Mastercard', '2205000000000000'],
    ['the gap below Mastercard 2-series', '2220999999999999'],
    ['the gap after Mastercard 2-series', '2721000000000000'],
    ["the 81 numbers past UnionPay's 810000–817199", '8172000000000000'],
    ['the end of the 81 series', '8199999999999999'],
    ['an empty string', ''],
    ['something that is not digits', '4242-4242-4242-4242'],
  ])('answers unknown for %s', (_case, number) => {
    expect(cardBrand(number)).toBe('unknown');
  });

  it('holds ranges of equally long prefixes, from ≤ to, for brands of the catalogue only', () => {
    for (const range of IIN_RANGES) {
      expect({ range, ok: range.from.length === range.to.length && range.from <= range.to && /^\d+$/.test(range.from) && /^\d+$/.test(range.to) }).toEqual({ range, ok: true });
      expect(CARD_BRANDS).toContain(range.brand);
    }
    expect(Math.max(...IIN_RANGES.map((r) => r.from.length))).toBe(IIN_DIGITS);
  });

  it('has no two ranges of the same length that overlap, so the most specific match is never ambiguous', () => {
    for (const a of IIN_RANGES) {
      for (const b of IIN_RANGES) {
        if (a === b || a.from.length !== b.from.length) continue;
        expect({ a, b, overlap: a.from <= b.to && b.from <= a.to }).toEqual({ a, b, overlap: false });
      }
    }
  });

  it('names every brand of the catalogue for some number', () => {
    const named = new Set(IIN_RANGES.map((range) => cardBrand(cardNumber(range.from))));
    for (const brand of CARD_BRANDS) expect(named).toContain(brand);
  });
});

describe('cardBrand, property-based', () => {
  it('depends on the first six digits only', () => {
    fc.assert(
      fc.property(digits(6, 6), digits(7, 13), digits(7, 13), (bin, tailA, tailB) => {
        expect(cardBrand(bin + tailA)).toBe(cardBrand(bin + tailB));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('names the brand of the most specific range that holds the number', () => {
    fc.assert(
      fc.property(fc.constantFrom(...IIN_RANGES), fc.nat(), digits(10, 13), (range, pick, tail) => {
        // A prefix inside the range, anywhere between its ends.
        const span = Number(range.to) - Number(range.from) + 1;
        const prefix = String(Number(range.from) + (pick % span)).padStart(range.from.length, '0');
        const number = prefix + tail;
        const specific = IIN_RANGES.filter((r) => inRange(number, r) && r.from.length > range.from.length);
        const expected = specific.length > 0 ? specific.sort((a, b) => b.from.length - a.from.length)[0]!.brand : range.brand;
        expect(cardBrand(number)).toBe(expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('answers a brand or unknown for any text, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 25 }), digits(0, 25)), (text) => {
        expect([...CARD_BRANDS, 'unknown']).toContain(cardBrand(text));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('answers unknown for any number outside every range', () => {
    fc.assert(
      fc.property(digits(13, 19), (number) => {
        fc.pre(!IIN_RANGES.some((range) => inRange(number, range)));
        expect(cardBrand(number)).toBe('unknown');
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
