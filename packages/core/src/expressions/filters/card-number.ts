/**
 * Card-number arithmetic shared by the card filters: BIN length and the Luhn checksum.
 */

/** The BIN is 6 digits for numbers under 16 digits, else 8 (the 2022 ISO/IEC 7812 change). */
export function binLength(digitCount: number): number {
  return digitCount < 16 ? 6 : 8;
}

/** Card numbers (PANs) have 12 to 19 digits. */
export const MIN_CARD_DIGITS = 12;
export const MAX_CARD_DIGITS = 19;

function weighted(digit: number, fromRight: number): number {
  if (fromRight % 2 === 0) return digit;
  const doubled = digit * 2;
  return doubled > 9 ? doubled - 9 : doubled;
}

/** True when the digits pass the Luhn (mod 10) check. */
export function passesLuhn(digits: readonly number[]): boolean {
  const sum = digits.reduce((acc, d, i) => acc + weighted(d, digits.length - 1 - i), 0);
  return sum % 10 === 0;
}

/**
 * Returns a copy of `digits` with the digit at `free` chosen so the whole number passes Luhn.
 * Any position works: doubling is a bijection on 0–9, so exactly one digit fits.
 */
export function completeLuhn(digits: readonly number[], free: number): number[] {
  const fromRight = digits.length - 1 - free;
  const rest = digits.reduce((acc, d, i) => (i === free ? acc : acc + weighted(d, digits.length - 1 - i)), 0);
  const result = [...digits];
  for (let candidate = 0; candidate <= 9; candidate++) {
    if ((rest + weighted(candidate, fromRight)) % 10 === 0) {
      result[free] = candidate;
      break;
    }
  }
  return result;
}
