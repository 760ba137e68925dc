import { isRecord } from '../tokens/data-rules';
import { type CardBrand, cardBrand } from './card-brand';
import type { StoredTokenIntent, TokenIntentType } from './token-intent';

/** What the API shows of a card intent: never the full number, never the cvc. */
export interface CardDetails {
  /** The first 6 digits. */
  readonly bin: string;
  readonly last4: string;
  readonly expirationMonth?: number | undefined;
  readonly expirationYear?: number | undefined;
  readonly brand: CardBrand | 'unknown';
  /** Always `unknown`: credit, debit or prepaid needs an issuer BIN table, which svc does not ship. */
  readonly funding: 'unknown';
}

/** What the API shows of a bank intent: the routing number (it names the bank, not the account) and the last 4. */
export interface BankDetails {
  readonly routingNumber: string;
  readonly accountNumberLast4: string;
}

/** A token intent as the API shows it. */
export interface TokenIntentView {
  readonly id: string;
  readonly tenantId: string;
  readonly type: TokenIntentType;
  readonly fingerprint: string;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly card?: CardDetails | undefined;
  readonly bank?: BankDetails | undefined;
}

const text = (data: Readonly<Record<string, unknown>>, key: string): string => (typeof data[key] === 'string' ? data[key] : '');
const integer = (data: Readonly<Record<string, unknown>>, key: string): number | undefined => (typeof data[key] === 'number' ? data[key] : undefined);

function cardDetails(data: Readonly<Record<string, unknown>>): CardDetails {
  const number = text(data, 'number');
  return {
    bin: number.slice(0, 6),
    last4: number.slice(-4),
    expirationMonth: integer(data, 'expiration_month'),
    expirationYear: integer(data, 'expiration_year'),
    brand: cardBrand(number),
    funding: 'unknown',
  };
}

function bankDetails(data: Readonly<Record<string, unknown>>): BankDetails {
  return { routingNumber: text(data, 'routing_number'), accountNumberLast4: text(data, 'account_number').slice(-4) };
}

/** The view of an intent whose data (validated at creation) is open in memory. */
export function viewTokenIntent(intent: StoredTokenIntent, data: unknown): TokenIntentView {
  const record = isRecord(data) ? data : {};
  const { sealedData: _sealed, ...attributes } = intent;
  return {
    ...attributes,
    card: intent.type === 'card' ? cardDetails(record) : undefined,
    bank: intent.type === 'bank' ? bankDetails(record) : undefined,
  };
}
