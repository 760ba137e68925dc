import { ValidationError } from '../shared/errors';
import {
  ACCOUNT_NUMBER,
  CARD_NUMBER,
  digitProblem,
  type DigitRule,
  EMPLOYER_ID_NUMBER,
  isRecord,
  requireData,
  ROUTING_NUMBER,
  SOCIAL_SECURITY_NUMBER,
} from './data-rules';
import { validateBankData, validateCardData } from './object-data';

export { abaRoutingValid, luhnValid } from './checksums';

/** Every token type the vault accepts (decisions.md §5). */
export const TOKEN_TYPE_NAMES = [
  'token',
  'card',
  'bank',
  'card_number',
  'us_bank_account_number',
  'us_bank_routing_number',
  'social_security_number',
  'employer_id_number',
] as const;

export type TokenTypeName = (typeof TOKEN_TYPE_NAMES)[number];

/**
 * A token type's defaults and data rules. Token data is secret; the templates here are Liquid expressions over it,
 * evaluated by the expression engine.
 */
export interface TokenType {
  readonly name: TokenTypeName;
  /** The container a token of this type lands in when the request names none, e.g. `/pci/high/`. */
  readonly defaultContainer: string;
  /** Liquid template whose value is hashed (keyed, per tenant) into the token's fingerprint. */
  readonly defaultFingerprintExpression: string;
  /** A Liquid template string, or for `card` and `bank` an object of templates; undefined for `token` (no mask). */
  readonly defaultMask?: unknown;
  /** Liquid templates whose values are indexed (as keyed hashes) when the request gives no `search_indexes`. */
  readonly defaultSearchIndexes: readonly string[];
  /** Whether a request may set `search_indexes` (only `token`, `social_security_number`, `employer_id_number`). */
  readonly supportsSearchIndexes: boolean;
  /**
   * Validates data; returns the normalized data or throws ValidationError whose keys are `data` or `data.<field>`
   * (e.g. `data.number`, `data.expiration_month`). Messages must NOT contain the data value (no secrets in errors).
   * Valid data is returned unchanged: nothing is trimmed or converted. A `bank` account number takes 1 to 17 digits
   * ("up to seventeen"), a `us_bank_account_number` 3 to 17 (decisions.md §5).
   */
  validate(data: unknown): unknown;
}

type Definition = Omit<TokenType, 'name'>;

const REVEAL_LAST_4 = '{{ data | reveal_last: 4 }}';
const WITHOUT_DASHES = "{{ data | remove: '-' }}";
const DASHED_MASK = "{{ data | reveal: 0, 4, 'X', '-' }}";
const DASHED_INDEXES = ['{{ data }}', WITHOUT_DASHES, '{{ data | last4 }}'] as const;

/** A scalar type's data is a string matching `rule`; errors go on `data`. */
function stringValidator(rule: DigitRule): (data: unknown) => unknown {
  return (data) => {
    requireData(data);
    const problem = digitProblem(data, rule);
    if (problem !== undefined) throw ValidationError.field('data', problem);
    return data;
  };
}

/** The shared defaults of the plain-number types: fingerprint the value, mask all but the last 4, no indexes. */
function scalar(rule: DigitRule): Omit<Definition, 'defaultContainer'> {
  return {
    defaultFingerprintExpression: '{{ data }}',
    defaultMask: REVEAL_LAST_4,
    defaultSearchIndexes: [],
    supportsSearchIndexes: false,
    validate: stringValidator(rule),
  };
}

function anyJson(data: unknown): unknown {
  requireData(data);
  return data;
}

const DEFINITIONS: Readonly<Record<TokenTypeName, Definition>> = {
  token: {
    defaultContainer: '/general/high/',
    defaultFingerprintExpression: '{{ data | stringify }}',
    defaultSearchIndexes: [],
    supportsSearchIndexes: true,
    validate: anyJson,
  },
  card: {
    defaultContainer: '/pci/high/',
    defaultFingerprintExpression: '{{ data.number }}',
    // The cvc is never part of a mask: it must not outlive its retention period in any form.
    defaultMask: Object.freeze({
      number: '{{ data.number | reveal_last: 4 }}',
      expiration_month: '{{ data.expiration_month }}',
      expiration_year: '{{ data.expiration_year }}',
    }),
    defaultSearchIndexes: [],
    supportsSearchIndexes: false,
    validate: validateCardData,
  },
  bank: {
    defaultContainer: '/bank/high/',
    defaultFingerprintExpression: '{{ data.account_number }}|{{ data.routing_number }}',
    defaultMask: Object.freeze({
      routing_number: '{{ data.routing_number }}',
      account_number: '{{ data.account_number | reveal_last: 4 }}',
    }),
    defaultSearchIndexes: [],
    supportsSearchIndexes: false,
    validate: validateBankData,
  },
  card_number: { ...scalar(CARD_NUMBER), defaultContainer: '/pci/high/' },
  us_bank_account_number: { ...scalar(ACCOUNT_NUMBER), defaultContainer: '/bank/high/' },
  us_bank_routing_number: { ...scalar(ROUTING_NUMBER), defaultContainer: '/bank/low/' },
  social_security_number: {
    defaultContainer: '/pii/high/',
    defaultFingerprintExpression: WITHOUT_DASHES,
    defaultMask: DASHED_MASK,
    defaultSearchIndexes: DASHED_INDEXES,
    supportsSearchIndexes: true,
    validate: stringValidator(SOCIAL_SECURITY_NUMBER),
  },
  employer_id_number: {
    defaultContainer: '/pii/high/',
    defaultFingerprintExpression: WITHOUT_DASHES,
    defaultMask: DASHED_MASK,
    defaultSearchIndexes: DASHED_INDEXES,
    supportsSearchIndexes: true,
    validate: stringValidator(EMPLOYER_ID_NUMBER),
  },
};

const TYPES: ReadonlyMap<TokenTypeName, TokenType> = new Map(
  TOKEN_TYPE_NAMES.map((name) => [name, Object.freeze({ name, ...DEFINITIONS[name] })]),
);

/** True when `value` names a token type (exact, case-sensitive). */
export function isTokenTypeName(value: string): value is TokenTypeName {
  return (TOKEN_TYPE_NAMES as readonly string[]).includes(value);
}

/** The catalogue entry for `name`. */
export function tokenType(name: TokenTypeName): TokenType {
  const type = TYPES.get(name);
  if (type === undefined) throw new Error(`Unknown token type: ${name}`);
  return type;
}

/** True when the card data's cvc should be tracked for retention: data is an object with a `cvc` string. */
export function hasCvc(type: TokenTypeName, data: unknown): boolean {
  return type === 'card' && isRecord(data) && typeof data['cvc'] === 'string';
}

/** Returns card data without cvc (for retention); other data unchanged. */
export function withoutCvc(type: TokenTypeName, data: unknown): unknown {
  if (type !== 'card' || !isRecord(data) || !Object.hasOwn(data, 'cvc')) return data;
  const { cvc: _erased, ...rest } = data;
  return rest;
}
