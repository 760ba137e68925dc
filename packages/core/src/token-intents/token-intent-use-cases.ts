import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import { type Audit, auditOf } from '../audit/audit';
import { factsAbout } from '../audit/audit-effects';
import { NotFoundError, ValidationError } from '../shared/errors';
import type { Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { Actor } from '../auth/actor';
import { requirePermission } from '../auth/authorize';
import type { Keyring } from '../crypto/keyring';
import type { ExpressionEngine } from '../expressions';
import { computeMaterials } from '../tokens/token-materials';
import { tokenType, withoutCvc } from '../tokens/token-types';
import { isTokenIntentType, type StoredTokenIntent, type TokenIntentRepository } from './token-intent';
import { openIntentData, sealIntentData } from './token-intent-sealing';
import { type TokenIntentView, viewTokenIntent } from './token-intent-view';

/** Default lifetime of a token intent: 24 hours. */
export const TOKEN_INTENT_LIFETIME_MS = 24 * 3_600_000;

/** An event about a token intent. */
export const intentFact = factsAbout('token_intent');

export interface TokenIntentDeps {
  readonly intents: TokenIntentRepository;
  readonly keyring: Keyring;
  readonly expressions: ExpressionEngine;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Milliseconds an intent is kept after creation. */
  readonly lifetimeMs: number;
  /** Records what callers do (ADR 4); absent in unit tests of other rules. */
  readonly audit?: Audit | undefined;
}

/** POST /token-intents, after the edge has checked the shape. */
export interface CreateTokenIntentInput {
  readonly type?: string | undefined;
  readonly data: unknown;
}

const notFound = (): NotFoundError => new NotFoundError('token intent');

/**
 * POST /token-intents: card or bank data checked exactly as a token of that type, sealed and kept until it expires
 * or becomes a token. Needs `token:intent:create` (public and private applications, and sessions granted it).
 */
export class CreateTokenIntent {
  constructor(private readonly deps: TokenIntentDeps) {}

  /** `keep`: seals the answer for an idempotency key, kept in the intent's own write. */
  async execute(actor: Actor, input: CreateTokenIntentInput, keep?: KeepAnswer<TokenIntentView>): Promise<TokenIntentView> {
    requirePermission(actor, 'token:intent:create');
    if (input.type === undefined) throw ValidationError.field('type', 'Type is required.');
    if (!isTokenIntentType(input.type)) throw ValidationError.field('type', 'A token intent is of type card or bank.');
    const type = tokenType(input.type);
    const data = type.validate(input.data);
    const now = this.deps.clock.now();
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    // The fingerprint a token of this type would get by default, so a client can match an intent to its tokens.
    const { fingerprint } = computeMaterials(this.deps.expressions, keys, {
      type: type.name,
      data,
      metadata: {},
      fingerprintExpression: type.defaultFingerprintExpression,
      searchIndexes: [],
    });
    const id = this.deps.ids.next();
    const intent: StoredTokenIntent = {
      id,
      tenantId: actor.tenantId,
      type: input.type,
      // A token made of the intent never gets the cvc, and an intent outlives a cvc's retention (a day against an
      // hour by default): it is checked, then dropped, never kept.
      sealedData: sealIntentData(keys, id, withoutCvc(type.name, data)),
      fingerprint,
      createdBy: actor.applicationId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.deps.lifetimeMs),
    };
    const created = viewTokenIntent(intent, data);
    await this.deps.intents.create(intent, await keptWith(auditOf(this.deps).write(actor, now, intentFact(id, 'create', 'Token intent created')), keep, created));
    return created;
  }
}

/** GET /token-intents/{id}: absent, expired, used, deleted and foreign intents are all "not found". */
export class GetTokenIntent {
  constructor(private readonly deps: TokenIntentDeps) {}

  async execute(actor: Actor, id: string): Promise<TokenIntentView> {
    requirePermission(actor, 'token:intent:read');
    const intent = await this.deps.intents.findById(actor.tenantId, id, this.deps.clock.now());
    if (!intent) throw notFound();
    auditOf(this.deps).record(actor, this.deps.clock.now(), intentFact(id, 'reveal', 'Token intent read with its data'));
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    return viewTokenIntent(intent, openIntentData(keys, intent.id, intent.sealedData));
  }
}

/** DELETE /token-intents/{id}. */
export class DeleteTokenIntent {
  constructor(private readonly deps: TokenIntentDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'token:intent:delete');
    const now = this.deps.clock.now();
    const effects = auditOf(this.deps).write(actor, now, intentFact(id, 'delete', 'Token intent deleted'));
    if (!(await this.deps.intents.take(actor.tenantId, id, now, effects))) throw notFound();
  }
}
