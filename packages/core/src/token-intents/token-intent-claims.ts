import type { AuditFact } from '../audit/audit-effects';
import type { WriteEffects } from '../audit/write-effects';
import { ValidationError } from '../shared/errors';
import type { Actor } from '../auth/actor';
import type { Keyring } from '../crypto/keyring';
import { withoutCvc } from '../tokens/token-types';
import type { TokenIntentRepository, TokenIntentType } from './token-intent';
import { openIntentData } from './token-intent-sealing';

/** The intent a token create names, read and checked: what the token is made of. The store uses it up with the token. */
export interface ClaimedTokenIntent {
  readonly id: string;
  readonly type: TokenIntentType;
  /** The intent's data without the cvc: a token never carries an intent's cvc. Secret. */
  readonly data: unknown;
}

/** The other fields of the token create request that names the intent. */
export interface TokenIntentRequest {
  readonly type?: string | undefined;
  readonly data?: unknown;
}

/** The event of an intent that became a token: stored with the token's own, in the token's write. */
export const convertFact = (intentId: string): AuditFact => ({
  entityType: 'token_intent',
  entityId: intentId,
  operation: 'convert',
  message: 'Token intent converted to a token',
});

const UNKNOWN = 'No token intent with this id: it never existed, has expired, was deleted or has become a token.';

/**
 * Token intents becoming tokens (POST /tokens and POST /tokenize with `token_intent_id`). `claim` reads the intent and
 * checks the request against it; the store then uses the intent up in the token's own atomic step
 * (`CreateTokenOptions.intentId`), so of concurrent creates naming one intent exactly one makes a token, and a create
 * that stores nothing, or a process killed before the commit, leaves the intent as it was.
 */
export class TokenIntentClaims {
  constructor(private readonly deps: { readonly intents: TokenIntentRepository; readonly keyring: Keyring }) {}

  /**
   * Checks the request against the intent and opens it. A 400 names `token_intent_id` for an intent that is unknown,
   * expired, deleted, already used or another tenant's; `type` when the request names another type; `data` and
   * `token_intent_id` when the request carries both.
   */
  async claim(actor: Actor, id: string, now: Date, request: TokenIntentRequest = {}): Promise<ClaimedTokenIntent> {
    if (request.data !== undefined && request.data !== null) {
      const both = 'A token is made from either data or token_intent_id, not both.';
      throw new ValidationError({ data: [both], token_intent_id: [both] });
    }
    const intent = await this.deps.intents.findById(actor.tenantId, id, now);
    if (!intent) throw unknownIntent();
    if (request.type !== undefined && request.type !== intent.type) {
      throw ValidationError.field('type', `The token intent holds ${intent.type} data: the type must be ${intent.type}, or left out.`);
    }
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    return { id: intent.id, type: intent.type, data: withoutCvc(intent.type, openIntentData(keys, intent.id, intent.sealedData)) };
  }

  /**
   * Uses the intent up for a create that deduplication answered with an existing token: the intent is taken with
   * `effects` (its `convert` event, the answer kept for an idempotency key) in one atomic step. A 400 on
   * `token_intent_id` when a concurrent create or delete took it first.
   */
  async useUp(actor: Actor, id: string, now: Date, effects: WriteEffects): Promise<void> {
    if (!(await this.deps.intents.take(actor.tenantId, id, now, effects))) throw unknownIntent();
  }
}

/**
 * The 400 of a create naming an intent that is not live: never existed, expired, deleted, another tenant's, or used
 * up (also by a concurrent create, which the store tells with `intent_gone`). `field` is where the request names it.
 */
export function unknownIntent(field = 'token_intent_id'): ValidationError {
  return ValidationError.field(field, UNKNOWN);
}
