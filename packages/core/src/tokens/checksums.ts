/**
 * Check-digit arithmetic for the token types: Luhn (mod 10) for card numbers and the ABA 3-7-1 checksum for
 * US bank routing numbers. Both take the digits as a string and answer false for anything that is not digits.
 */

const DIGITS = /^\d+$/;
const ROUTING = /^\d{9}$/;
const ABA_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

/** True when `digits` is a non-empty string of digits that passes the Luhn (mod 10) check. */
export function luhnValid(digits: string): boolean {
  if (!DIGITS.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    const digit = Number(digits[digits.length - 1 - i]);
    // Every second digit from the right is doubled; a two-digit result counts as the sum of its digits.
    const weighted = i % 2 === 1 ? digit * 2 : digit;
    sum += weighted > 9 ? weighted - 9 : weighted;
  }
  return sum % 10 === 0;
}

/** True when `digits` is exactly nine digits whose 3-7-1 weighted sum is a multiple of 10 (ABA routing number). */
export function abaRoutingValid(digits: string): boolean {
  if (!ROUTING.test(digits)) return false;
  const sum = ABA_WEIGHTS.reduce((acc, weight, i) => acc + weight * Number(digits[i]), 0);
  return sum % 10 === 0;
}
