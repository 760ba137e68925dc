import { ConflictError, ValidationError } from '../shared/errors';
import { requireTokenPermission, requireTransform, transformFor } from '../access/evaluate-access';
import type { Actor } from '../auth/actor';
import { ExpressionEngine, type WorkBudget } from '../expressions';
import type { StoredToken, Token } from './token';
import type { TokenStored } from './token.repository';
import type { TenantKeys } from '../crypto/tenant-keys';
import type { Transform } from '../access/access-rule';
import type { TokenDeps } from './token-deps';
import { resolveContainers, resolveMask, resolveSearchIndexes, validateMetadata } from './token-fields';
import { validateTokenId } from './token-id';
import { parseTokenExpiry } from './token-expiry';
import { computeMaterials } from './token-materials';
import { openToken, sealToken } from './token-sealing';
import { isTokenTypeName, type TokenTypeName, tokenType, withoutCvc } from './token-types';
import { isRecord } from './data-rules';
import { type TokenView, viewToken } from './token-view';
import { type ClaimedTokenIntent, convertFact, type TokenIntentClaims, unknownIntent } from '../token-intents/token-intent-claims';
import { auditOf } from '../audit/audit';
import { type AuditFact, tokenHookData } from '../audit/audit-effects';
import type { WriteEffects } from '../audit/write-effects';
import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';

/** POST /tokens, after the edge has checked the shape. */
export interface CreateTokenInput {
  readonly id?: string | undefined;
  /** Required, except with `tokenIntentId`, where it may be left out or must be the intent's type. */
  readonly type?: string | undefined;
  readonly data: unknown;
  /** Make the token from this token intent's data (without its cvc) instead of `data`; the intent is used up. */
  readonly tokenIntentId?: string | undefined;
  readonly mask?: unknown;
  readonly containers?: readonly string[] | undefined;
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  readonly searchIndexes?: readonly string[] | undefined;
  readonly fingerprintExpression?: string | undefined;
  readonly deduplicateToken?: boolean | undefined;
  readonly expiresAt?: string | undefined;
}

/** A create request checked, its token built and sealed: what the store is given, and how to answer once it has it. */
export interface PreparedToken {
  readonly token: Token;
  readonly sealed: StoredToken;
  readonly deduplicate: boolean;
  /** The caller's create transform for this token: how the created token is shown. */
  readonly transform: Transform;
}

export class CreateToken {
  /** Without `intents`, a request naming a token intent is a 400 on `token_intent_id`. */
  constructor(
    private readonly deps: TokenDeps,
    private readonly intents?: TokenIntentClaims,
  ) {}

  /**
   * `keep`, for a request with an idempotency key: seals the answer the created token makes, which the store keeps in
   * the token's own transaction. A create deduplicated to an existing token writes nothing, and keeps nothing.
   */
  async execute(actor: Actor, input: CreateTokenInput, keep?: KeepAnswer<TokenView>): Promise<TokenView> {
    requireTokenPermission(actor, 'token:create');
    const now = this.deps.clock.now();
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    const { request, claimed } = await this.withIntent(actor, input, now);
    const prepared = this.prepare(actor, request, keys, now);
    const created = this.answer(actor, prepared, { status: 'created' }, keys, now);
    const effects = this.creation(actor, prepared, 'create', now, claimed);
    const outcome = await this.deps.tokens.create(prepared.sealed, {
      deduplicate: prepared.deduplicate,
      now,
      effects: await keptWith(effects, keep, created),
      intentId: claimed?.id,
    });
    if (outcome.status === 'duplicate_id') throw new ConflictError('TOKEN_ID_EXISTS', 'A token with this id already exists.');
    // A concurrent create used the intent up (or it was deleted) since it was read: nothing was stored.
    if (outcome.status === 'intent_gone') throw unknownIntent();
    if (outcome.status === 'created') return created;
    const answer = this.answer(actor, prepared, outcome, keys, now);
    if (!claimed || !this.intents) {
      this.recordDeduplicated(actor, [{ id: outcome.token.id }], 'create', now);
      return answer;
    }
    // Nothing was written: the intent is taken now, with its events and the answer (an intent is never used up
    // without either, even by a crash).
    const facts = this.deduplicatedFacts([{ id: outcome.token.id, claimed }], 'create');
    await this.intents.useUp(actor, claimed.id, now, await keptWith(auditOf(this.deps).write(actor, now, facts), keep, answer));
    return answer;
  }

  /**
   * A request naming a token intent, with the intent read for it and its type and data in the request; any other
   * request as it is. The intent is used up by the store, with the token (`CreateTokenOptions.intentId`).
   */
  async withIntent(actor: Actor, input: CreateTokenInput, now: Date): Promise<{ request: CreateTokenInput; claimed?: ClaimedTokenIntent }> {
    if (input.tokenIntentId === undefined) return { request: input };
    if (!this.intents) throw ValidationError.field('token_intent_id', 'Token intents are not available here.');
    const claimed = await this.intents.claim(actor, input.tokenIntentId, now, input);
    return { request: { ...input, type: claimed.type, data: claimed.data }, claimed };
  }

  /**
   * What storing a prepared token brings: its event (`create`, or `tokenize` in bulk), the `convert` event of the
   * intent it is made of, and its `token.created` message.
   */
  creation(actor: Actor, prepared: PreparedToken, operation: 'create' | 'tokenize', now: Date, claimed?: ClaimedTokenIntent): WriteEffects {
    const message = operation === 'create' ? 'Token created' : 'Token created by tokenize';
    const created: AuditFact = { entityType: 'token', entityId: prepared.token.id, operation, message };
    return auditOf(this.deps).write(actor, now, claimed ? [created, convertFact(claimed.id)] : created, [
      { type: 'token.created', data: tokenHookData(prepared.token) },
    ]);
  }

  /** Creates that deduplication answered with existing tokens: nothing was written, so their events go to the trail. */
  recordDeduplicated(actor: Actor, answered: ReadonlyArray<{ readonly id: string }>, operation: 'create' | 'tokenize', now: Date): void {
    auditOf(this.deps).record(actor, now, this.deduplicatedFacts(answered, operation));
  }

  /** The events of creates answered with existing tokens, with the `convert` of the intent one was made of. */
  deduplicatedFacts(answered: ReadonlyArray<{ readonly id: string; readonly claimed?: ClaimedTokenIntent | undefined }>, operation: 'create' | 'tokenize'): AuditFact[] {
    return answered.flatMap(({ id, claimed }): AuditFact[] => [
      { entityType: 'token', entityId: id, operation, message: 'Token create answered with an existing token (deduplicated)' },
      ...(claimed ? [convertFact(claimed.id)] : []),
    ]);
  }

  /**
   * Checks one create request and builds its sealed token, touching no store. Throws a ValidationError whose fields
   * are named from the request's root (`data.number`), or a ForbiddenError when no rule lets the caller create it.
   */
  prepare(actor: Actor, input: CreateTokenInput, keys: TenantKeys, now: Date, budget: WorkBudget = this.deps.expressions.budget()): PreparedToken {
    if (input.type === undefined) throw ValidationError.field('type', 'Type is required.');
    if (!isTokenTypeName(input.type)) throw ValidationError.field('type', `Unknown token type.`);
    const type = tokenType(input.type);
    const containers = resolveContainers(type, input.containers);
    // Before anything is evaluated on the data: its errors would answer questions about it too.
    if (input.tokenIntentId !== undefined) requireNoOutputsOfData(actor, input, containers);
    const data = type.validate(input.data);
    const metadata = validateMetadata(input.metadata);
    const fingerprintExpression = input.fingerprintExpression ?? type.defaultFingerprintExpression;
    const searchIndexes = resolveSearchIndexes(type, input.searchIndexes);
    const mask = resolveMask(this.deps.expressions, type, input.mask, data, budget);
    const id = this.tokenId(input.id, type.name, data, budget);
    const expiresAt = input.expiresAt === undefined ? undefined : parseTokenExpiry(input.expiresAt, now);
    const transform = requireTransform(actor, 'token:create', { id, containers });

    const materials = computeMaterials(this.deps.expressions, keys, { type: type.name, data, metadata, fingerprintExpression, searchIndexes }, budget);
    const token: Token = {
      id,
      tenantId: actor.tenantId,
      type: type.name,
      data,
      mask,
      containers,
      metadata,
      searchIndexes: input.searchIndexes === undefined && searchIndexes.length === 0 ? undefined : searchIndexes,
      fingerprintExpression,
      fingerprint: materials.fingerprint,
      deduplicateToken: input.deduplicateToken,
      createdBy: actor.applicationId,
      createdAt: now,
      expiresAt,
    };
    return { token, sealed: sealToken(keys, token, materials, this.deps.policy, 0), deduplicate: input.deduplicateToken === true, transform };
  }

  /** The answer to a create the store accepted: the new token, or the existing one deduplication found. */
  answer(actor: Actor, prepared: PreparedToken, outcome: TokenStored, keys: TenantKeys, now: Date): TokenView {
    if (outcome.status === 'existing') {
      const existing = openToken(keys, outcome.token);
      const read = transformFor(actor, 'token:read', existing);
      if (!read) return { token: existing, hasData: false, identityOnly: true };
      return viewToken(this.deps.expressions, existing, read, this.deps.policy, now);
    }
    return viewToken(this.deps.expressions, prepared.token, prepared.transform, this.deps.policy, now);
  }

  /**
   * A literal id, an id expression (an alias) evaluated on the data, or a new UUID. An expression sees a card without
   * its cvc: the cvc is erased after its retention, an id stays for the token's life.
   */
  private tokenId(requested: string | undefined, type: TokenTypeName, data: unknown, budget: WorkBudget): string {
    if (requested === undefined) return this.deps.ids.next();
    if (!ExpressionEngine.isExpression(requested)) return validateTokenId(requested);
    this.deps.expressions.requireAlias('id', requested, budget);
    const visible = withoutCvc(type, data);
    const id = validateTokenId(this.deps.expressions.render('id', requested, { data: visible }, budget));
    // Ids are stored and shown in the clear: an expression must make an alias, not copy the data (or any text in it,
    // such as a card's number) into the id.
    if (copiesData(id, textsOf(visible))) {
      throw ValidationError.field('id', 'An id expression must not contain the token data; use an alias filter.');
    }
    return id;
  }
}

/**
 * A token made of an intent is made by a caller that may never have seen its data (a browser collected it): when that
 * caller may not reveal it, it may not choose anything evaluated on the data either. A mask or an id expression of its
 * own would print the number in the answer, or into the id; a fingerprint expression or search indexes of its own
 * would make the answers (an empty value's 400, a deduplication, another error) questions about the number, one digit
 * at a time. Checked before any of them is evaluated, with the id given (an id expression counts as none: what it
 * makes is data too).
 */
function requireNoOutputsOfData(actor: Actor, input: CreateTokenInput, containers: readonly string[]): void {
  const literalId = input.id !== undefined && !ExpressionEngine.isExpression(input.id) ? input.id : '';
  // No rule at all is the 403 it would be after, before anything is evaluated on the data.
  if (requireTransform(actor, 'token:create', { id: literalId, containers }) === 'reveal') return;
  const message = 'A token made of a token intent by a key that may not reveal it takes the type\'s default here.';
  if (input.mask !== undefined) throw ValidationError.field('mask', message);
  if (input.id !== undefined && ExpressionEngine.isExpression(input.id)) throw ValidationError.field('id', message);
  if (input.fingerprintExpression !== undefined) throw ValidationError.field('fingerprint_expression', message);
  if (input.searchIndexes !== undefined) throw ValidationError.field('search_indexes', message);
}

/** Characters of the data an id may hold in one run: an alias may keep a card's BIN (up to 8 digits) in the clear. */
const LONGEST_KEPT_RUN = 8;

const letterAndDigits = (text: string): string => text.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();

/**
 * Whether `id` holds any text of the data (4 characters or more), or most of one: a run of three quarters of its
 * letters and digits (and more than LONGEST_KEPT_RUN), separators and case set aside (`slice: 0, 15`, or the digits
 * joined by dashes). A heuristic against copying that lets aliases be: an alias keeps at most a head (a BIN) and a
 * tail (the last four), and the random digits between them rarely extend either run far.
 */
function copiesData(id: string, texts: readonly string[]): boolean {
  if (texts.some((text) => text.length >= 4 && id.includes(text))) return true;
  const plainId = letterAndDigits(id);
  return texts.some((text) => {
    const plain = letterAndDigits(text);
    const run = Math.max(LONGEST_KEPT_RUN + 1, Math.ceil(plain.length * 0.75));
    if (plain.length < run || plainId.length < run) return false;
    const runsOfId = new Set<string>();
    for (let i = 0; i + run <= plainId.length; i++) runsOfId.add(plainId.slice(i, i + run));
    for (let i = 0; i + run <= plain.length; i++) if (runsOfId.has(plain.slice(i, i + run))) return true;
    return false;
  });
}

/** Every string in `data`: the data itself, or each one found in its objects and arrays, however deep. */
function textsOf(data: unknown): string[] {
  if (typeof data === 'string') return [data];
  if (Array.isArray(data)) return data.flatMap(textsOf);
  return isRecord(data) ? Object.values(data).flatMap(textsOf) : [];
}
