import { ValidationError } from '../shared/errors';
import {
  BANK_ACCOUNT_NUMBER,
  addError,
  CARD_NUMBER,
  CVC,
  digitProblem,
  type ErrorMap,
  integerProblem,
  isRecord,
  requireData,
  ROUTING_NUMBER,
  throwIfAny,
} from './data-rules';

/** One attribute of an object-shaped token (card, bank): whether it must be present and what makes it valid. */
interface FieldRule {
  readonly label: string;
  readonly required: boolean;
  /** Why the (present) value is invalid, or undefined. Never echoes the value. */
  readonly problem: (value: unknown) => string | undefined;
}

type FieldRules = Readonly<Record<string, FieldRule>>;

const CARD_FIELDS: FieldRules = {
  number: { label: CARD_NUMBER.label, required: true, problem: (v) => digitProblem(v, CARD_NUMBER) },
  expiration_month: {
    label: 'Expiration month',
    required: false,
    problem: (v) => integerProblem(v, 'Expiration month', 1, 12, 'a month from 1 to 12'),
  },
  expiration_year: {
    label: 'Expiration year',
    required: false,
    problem: (v) => integerProblem(v, 'Expiration year', 1000, 9999, 'a four-digit year'),
  },
  cvc: { label: CVC.label, required: false, problem: (v) => digitProblem(v, CVC) },
};

const BANK_FIELDS: FieldRules = {
  routing_number: { label: ROUTING_NUMBER.label, required: true, problem: (v) => digitProblem(v, ROUTING_NUMBER) },
  account_number: { label: BANK_ACCOUNT_NUMBER.label, required: true, problem: (v) => digitProblem(v, BANK_ACCOUNT_NUMBER) },
};

/**
 * Checks an object against its field rules: every rule's attribute, and no attribute without a rule. An optional
 * attribute is absent when its key is missing; a present `null` is checked like any other value (and fails).
 */
function validateObject(data: unknown, kind: string, fields: FieldRules): unknown {
  requireData(data);
  if (!isRecord(data)) throw ValidationError.field('data', `${kind} data must be an object.`);
  const errors: ErrorMap = {};
  for (const key of Object.keys(data)) {
    if (!Object.hasOwn(fields, key)) addError(errors, `data.${key}`, `Unknown attribute for ${kind.toLowerCase()} data.`);
  }
  for (const [key, rule] of Object.entries(fields)) {
    if (!Object.hasOwn(data, key)) {
      if (rule.required) addError(errors, `data.${key}`, `${rule.label} is required.`);
      continue;
    }
    const problem = rule.problem(data[key]);
    if (problem !== undefined) addError(errors, `data.${key}`, problem);
  }
  throwIfAny(errors);
  return data;
}

/** Card: `number` (required), `expiration_month`, `expiration_year` (integers), `cvc` (string); nothing else. */
export function validateCardData(data: unknown): unknown {
  return validateObject(data, 'Card', CARD_FIELDS);
}

/** Bank: `routing_number` (ABA) and `account_number` (1 to 17 digits), both required strings; nothing else. */
export function validateBankData(data: unknown): unknown {
  return validateObject(data, 'Bank', BANK_FIELDS);
}
