import { ValidationError } from '../shared/errors';
import { abaRoutingValid, luhnValid } from './checksums';

/**
 * Building blocks for validating token data. Token data is secret: every message here describes the rule that was
 * broken and never repeats the submitted value.
 */

/** Field path (`data`, `data.number`) to messages, collected so one response reports every problem. */
export type ErrorMap = Record<string, string[]>;

/** Records `message` against `path`. */
export function addError(errors: ErrorMap, path: string, message: string): void {
  (errors[path] ??= []).push(message);
}

/** Throws a ValidationError when any error was collected. */
export function throwIfAny(errors: ErrorMap): void {
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** Throws a 400 on `data` when data is absent (`undefined`) or `null`. */
export function requireData(data: unknown): void {
  if (data === undefined || data === null) throw ValidationError.field('data', 'Data is required.');
}

/** True for a JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string of digits with a fixed shape and, for some types, a check digit. */
export interface DigitRule {
  /** Human name used in messages, e.g. `Card number`. */
  readonly label: string;
  readonly pattern: RegExp;
  /** How the accepted shape reads in a message, e.g. `13 to 19 digits without separators`. */
  readonly shape: string;
  /** Applied to the value with any `-` removed, after the pattern matched. */
  readonly checksum?: (digits: string) => boolean;
}

/** Why `value` breaks `rule`, or undefined when it satisfies it. The message never contains the value. */
export function digitProblem(value: unknown, rule: DigitRule): string | undefined {
  if (typeof value !== 'string') return `${rule.label} must be a string.`;
  if (!rule.pattern.test(value)) return `${rule.label} must be ${rule.shape}.`;
  if (rule.checksum !== undefined && !rule.checksum(value.replace(/-/g, ''))) {
    return `${rule.label} fails its check digit validation.`;
  }
  return undefined;
}

export const CARD_NUMBER: DigitRule = {
  label: 'Card number',
  pattern: /^\d{13,19}$/,
  shape: '13 to 19 digits without separators',
  checksum: luhnValid,
};

export const CVC: DigitRule = { label: 'CVC', pattern: /^\d{3,4}$/, shape: '3 or 4 digits' };

export const ROUTING_NUMBER: DigitRule = {
  label: 'Routing number',
  pattern: /^\d{9}$/,
  shape: 'nine digits',
  checksum: abaRoutingValid,
};

/** Interface.md says "up to seventeen digits"; the floor of 3 matches `us_bank_account_number`. */
export const ACCOUNT_NUMBER: DigitRule = { label: 'Account number', pattern: /^\d{3,17}$/, shape: '3 to 17 digits' };
/** A `bank` token's account number: "up to seventeen digits" (interface.md §2.4, decisions.md §5). */
export const BANK_ACCOUNT_NUMBER: DigitRule = { label: 'Account number', pattern: /^\d{1,17}$/, shape: '1 to 17 digits' };

export const SOCIAL_SECURITY_NUMBER: DigitRule = {
  label: 'Social security number',
  pattern: /^\d{3}-?\d{2}-?\d{4}$/,
  shape: 'nine digits, optionally written NNN-NN-NNNN',
};

export const EMPLOYER_ID_NUMBER: DigitRule = {
  label: 'Employer identification number',
  pattern: /^\d{2}-?\d{7}$/,
  shape: 'nine digits, optionally written NN-NNNNNNN',
};

/** Why `value` is not an integer within [min, max], or undefined. */
export function integerProblem(value: unknown, label: string, min: number, max: number, shape: string): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return `${label} must be an integer.`;
  if (value < min || value > max) return `${label} must be ${shape}.`;
  return undefined;
}
