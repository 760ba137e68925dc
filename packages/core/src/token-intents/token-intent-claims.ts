import type { AuditFact } from '../audit/audit-effects';
import { ValidationError } from '../shared/errors';
import type { Actor } from '../auth/actor';
import type { Keyring } from '../crypto/keyring';
import { withoutCvc } from '../tokens/token-types';
import type { StoredTokenIntent, TokenIntentRepository, TokenIntentType } from './token-intent';
import { openIntentData } from './token-intent-sealing';

/** An intent taken out of the store for one token create: what the token is made of, and how to put it back. */
export interface ClaimedTokenIntent {
  readonly type: TokenIntentType;
  /** The intent's data without the cvc: a token never carries an intent's cvc. Secret. */
  readonly data: unknown;
  /** The intent as it was stored, for {@link TokenIntentClaims.release}. */
  readonly intent: StoredTokenIntent;
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
 * Token intents becoming tokens (POST /tokens and POST /tokenize with `token_intent_id`). `claim` takes the intent out
 * of the store atomically, so of concurrent creates naming one intent exactly one gets it and at most one token is
 * made; the caller then creates the token, and calls `release` when that fails, which puts the intent back.
 */
export class TokenIntentClaims {
  constructor(private readonly deps: { readonly intents: TokenIntentRepository; readonly keyring: Keyring }) {}

  /**
   * Checks the request against the intent and takes the intent. A 400 names `token_intent_id` for an intent that is
   * unknown, expired, deleted, already used or another tenant's; `type` when the request names another type;
   * `data` and `token_intent_id` when the request carries both. Nothing is taken when it fails.
   */
  async claim(actor: Actor, id: string, now: Date, request: TokenIntentRequest = {}): Promise<ClaimedTokenIntent> {
    if (request.data !== undefined && request.data !== null) {
      const both = 'A token is made from either data or token_intent_id, not both.';
      throw new ValidationError({ data: [both], token_intent_id: [both] });
    }
    const found = await this.deps.intents.findById(actor.tenantId, id, now);
    if (!found) throw ValidationError.field('token_intent_id', UNKNOWN);
    if (request.type !== undefined && request.type !== found.type) {
      throw ValidationError.field('type', `The token intent holds ${found.type} data: the type must be ${found.type}, or left out.`);
    }
    // Intents never change, so the one found is the one taken; a concurrent claim or delete may have taken it first.
    // The take records nothing: the intent's `convert` event goes with the token made of it (`convertFact`), so a
    // create that stores nothing (and gives the intent back) leaves no event saying it was converted.
    const intent = await this.deps.intents.take(actor.tenantId, id, now);
    if (!intent) throw ValidationError.field('token_intent_id', UNKNOWN);
    try {
      const keys = await this.deps.keyring.forTenant(actor.tenantId);
      return { type: intent.type, data: withoutCvc(intent.type, openIntentData(keys, intent.id, intent.sealedData)), intent };
    } catch (error) {
      await this.deps.intents.create(intent);
      throw error;
    }
  }

  /** Puts back an intent whose token could not be created, as it was (it keeps its expiry). */
  async release(claimed: ClaimedTokenIntent): Promise<void> {
    await this.deps.intents.create(claimed.intent);
  }

  /**
   * Puts back every intent of a create that stored nothing, each tried even when another fails. Never throws: it runs
   * while the create's own error is on its way out, and that error is the one the caller must see. An intent that
   * cannot be put back stays used up (the store refused it); nothing is made of it either way.
   */
  async releaseAll(claimed: readonly ClaimedTokenIntent[]): Promise<void> {
    await Promise.allSettled(claimed.map((intent) => this.release(intent)));
  }
}
