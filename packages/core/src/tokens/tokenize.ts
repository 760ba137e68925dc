import { requireTokenPermission } from '../access/evaluate-access';
import type { Actor } from '../auth/actor';
import { ConflictError, ForbiddenError, ValidationError } from '../shared/errors';
import { errorsWithin, fieldPath, joinFieldPath } from '../shared/field-path';
import type { TenantKeys } from '../crypto/tenant-keys';
import { type ClaimedTokenIntent, convertFact, unknownIntent } from '../token-intents/token-intent-claims';
import { auditOf } from '../audit/audit';
import type { CreateToken, CreateTokenInput, PreparedToken } from './create-token';
import type { KeepAnswer } from '../idempotency/keep-answer';
import type { TokenDeps } from './token-deps';
import { type EffectsIfOutcomes, type ExpectedOutcome, outcomesAsExpected, type TokenStored } from './token.repository';
import type { StoredToken } from './token';
import type { TokenView } from './token-view';
import { isRecord } from './data-rules';

/**
 * POST /tokenize (beyond.md §1). The body is any JSON value: an object with `type` and `data` (or `type` and
 * `token_intent_id`) is a token create request, any other string, number or boolean becomes a `token`-type token,
 * `null` stays, and arrays and other objects keep their shape. The answer has the body's shape with each request
 * replaced by its token and each value by its token's id.
 */

/** Something in a tokenize body that becomes a token, with where it is (`card`, `[3]`, `cards[0].number`). */
export type TokenizeLeaf =
  | { readonly kind: 'request'; readonly path: string; readonly node: Readonly<Record<string, unknown>> }
  | { readonly kind: 'value'; readonly path: string; readonly value: string | number | boolean };

const has = (node: object, key: string): boolean => Object.prototype.hasOwnProperty.call(node, key);

/**
 * One token create request, as POST /tokens takes it: an object with `type` and `data`, or with `token_intent_id`
 * (its `type` may be left out, as on POST /tokens: the intent has one). beyond.md names `type` and `token_intent_id`;
 * without this, `{ "token_intent_id": "…" }` was a plain object whose id became a token of its own, and no card.
 */
export function isTokenCreateRequest(node: unknown): node is Record<string, unknown> {
  return isRecord(node) && (has(node, 'token_intent_id') || (has(node, 'type') && has(node, 'data')));
}

/**
 * Rebuilds `body` with every leaf (a create request, or a string, number or boolean outside one) replaced by what
 * `replace` answers, visiting leaves in document order. Object keys are kept as they are; `null` stays `null`.
 * Recursion is bounded by the body's depth, which the edge limits before anything walks it.
 */
export function mapTokenizeBody(body: unknown, replace: (leaf: TokenizeLeaf) => unknown): unknown {
  const walk = (node: unknown, path: PropertyKey[]): unknown => {
    if (node === null || node === undefined) return node;
    if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') {
      return replace({ kind: 'value', path: fieldPath(path), value: node });
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (isTokenCreateRequest(node)) return replace({ kind: 'request', path: fieldPath(path), node });
    if (isRecord(node)) {
      const out = Object.create(null) as Record<string, unknown>;
      for (const [key, value] of Object.entries(node)) out[key] = walk(value, [...path, key]);
      return out;
    }
    return node;
  };
  return walk(body, []);
}

/** Every leaf of a tokenize body, in document order. */
export function tokenizeLeaves(body: unknown): TokenizeLeaf[] {
  const leaves: TokenizeLeaf[] = [];
  mapTokenizeBody(body, (leaf) => leaves.push(leaf));
  return leaves;
}

/** One token to create, with the path errors about it are named by. */
export interface TokenizeItem {
  readonly path: string;
  readonly input: CreateTokenInput;
}

/** What became of one item: the token (for a create request) or only its id (for a bare value). */
export interface TokenizeResult {
  readonly view: TokenView;
  /** True when deduplication answered an existing token instead of creating one. */
  readonly deduplicated: boolean;
}

/**
 * The work a bulk call's expressions may do together, in single expressions' limits: the largest body's default
 * fingerprints (its data gone over once, about 525,000 units at 1 MiB) fit, with room.
 */
export const BULK_WORK_TIMES = 2;

/** A bare value becomes a token of type `token`, with every other setting at its default. */
export const valueTokenInput = (value: string | number | boolean): CreateTokenInput => ({ type: 'token', data: value });

/**
 * Creates every item's token, all or nothing: every item is checked first and all their errors are reported together,
 * keyed by path; then all tokens are stored in one transaction. Nothing is stored when any item is invalid, refused
 * or has the id of a live token. The intents items name are used up with their tokens, in the same transaction; one
 * named twice in a call, or used up by a concurrent create, is a 400 at its item.
 */
export class Tokenize {
  constructor(
    private readonly deps: TokenDeps,
    private readonly create: CreateToken,
    /** The most tokens one call may create (`SVC_TOKENIZE_LIMIT`). */
    readonly limit: number,
  ) {}

  /**
   * `keep`, for a request with an idempotency key: seals the answer the call makes, predicted before the write (which
   * tokens deduplicate to which), and the store keeps it in the call's own transaction when its outcomes are the
   * predicted ones. When they are not (a concurrent create or update in between), it is kept after the write.
   */
  async execute(actor: Actor, items: readonly TokenizeItem[], keep?: KeepAnswer<readonly TokenizeResult[]>): Promise<TokenizeResult[]> {
    requireTokenPermission(actor, 'token:create');
    requireWithinLimit(items.length, this.limit);
    const now = this.deps.clock.now();
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    const { prepared, outcomes, kept } = await this.createAll(actor, items, keys, now, keep);
    // The answer kept with the write, when it was: the very results sealed.
    if (kept) return [...kept];
    return outcomes.map((created, i) => ({
      view: this.create.answer(actor, prepared[i]!, created, keys, now),
      deduplicated: created.status === 'existing',
    }));
  }

  /**
   * Every check {@link execute} makes before it writes, and nothing else: 400 and 403 as it would answer them. For a
   * caller that must know a later create will not be refused before it does something else first (the proxy's
   * transforms, which create their tokens only once every step has passed).
   */
  async check(actor: Actor, items: readonly TokenizeItem[]): Promise<void> {
    requireTokenPermission(actor, 'token:create');
    requireWithinLimit(items.length, this.limit);
    const now = this.deps.clock.now();
    await this.prepareAll(actor, items, await this.deps.keyring.forTenant(actor.tenantId), now);
  }

  /** Every item checked and prepared; all their errors together, keyed by path. */
  private async prepareAll(
    actor: Actor,
    items: readonly TokenizeItem[],
    keys: TenantKeys,
    now: Date,
  ): Promise<{ prepared: PreparedToken[]; intents: Array<ClaimedTokenIntent | undefined> }> {
    const invalid: Record<string, readonly string[]> = Object.create(null);
    const refused: Record<string, readonly string[]> = Object.create(null);
    const prepared: PreparedToken[] = [];
    /** The intent each prepared token is made of, by index. */
    const intents: Array<ClaimedTokenIntent | undefined> = [];
    /** The intents named so far: a second item naming one could make no token of its own. */
    const named = new Set<string>();
    // The items' expressions (ids, fingerprints, search indexes) share one bound: each alone could do an
    // expression's whole work, and a hundred of them held the event loop for seconds.
    const budget = this.deps.expressions.budget(BULK_WORK_TIMES);
    for (const item of items) {
      try {
        const intentId = item.input.tokenIntentId;
        if (intentId !== undefined && named.has(intentId)) throw unknownIntent();
        if (intentId !== undefined) named.add(intentId);
        const { request, claimed: intent } = await this.create.withIntent(actor, item.input, now);
        prepared.push(this.create.prepare(actor, request, keys, now, budget));
        intents[prepared.length - 1] = intent;
      } catch (error) {
        if (error instanceof ValidationError) Object.assign(invalid, errorsWithin(item.path, error.errors));
        else if (error instanceof ForbiddenError) refused[item.path || 'body'] = [error.message];
        else throw error;
        // Past the call's bound every later item would fail the same way, without being looked at: the error names
        // the item where the bound was crossed.
        if (budget.exhausted) break;
      }
    }
    if (Object.keys(invalid).length > 0) throw new ValidationError(invalid);
    if (Object.keys(refused).length > 0) throw new ForbiddenError('The API key may not create one or more of these tokens.', refused);
    return { prepared, intents };
  }

  private async createAll(
    actor: Actor,
    items: readonly TokenizeItem[],
    keys: TenantKeys,
    now: Date,
    keep: KeepAnswer<readonly TokenizeResult[]> | undefined,
  ): Promise<{ prepared: readonly PreparedToken[]; outcomes: readonly TokenStored[]; kept?: readonly TokenizeResult[] }> {
    const { prepared, intents } = await this.prepareAll(actor, items, keys, now);
    let answer: TokenizeResult[] | undefined;
    let ifOutcomes: EffectsIfOutcomes | undefined;
    if (keep) {
      const predicted = await this.predict(prepared, now);
      answer = predicted.map((o, i) => ({ view: this.create.answer(actor, prepared[i]!, o, keys, now), deduplicated: o.status === 'existing' }));
      ifOutcomes = { expected: predicted.map(expectedOf), effects: { events: [], messages: [], kept: await keep(answer) } };
    }
    const outcome = await this.deps.tokens.createMany(
      prepared.map((p, i) => ({
        token: p.sealed,
        deduplicate: p.deduplicate,
        effects: this.create.creation(actor, p, 'tokenize', now, intents[i]),
        intentId: intents[i]?.id,
        // The intent is used up in the call's step either way: its `convert` event goes with it.
        effectsIfExisting: intents[i] && auditOf(this.deps).write(actor, now, convertFact(intents[i]!.id)),
      })),
      now,
      ifOutcomes,
    );
    // Every item was prepared (none threw), so `prepared` and `items` share their indexes.
    if (outcome.status === 'intent_gone') throw new ValidationError(errorsWithin(items[outcome.index]!.path, unknownIntent().errors));
    if (outcome.status === 'duplicate_id') {
      const field = joinFieldPath(items[outcome.index]!.path, 'id');
      throw new ConflictError('TOKEN_ID_EXISTS', 'A token with this id already exists; no token was created.', {
        [field]: ['A token with this id already exists.'],
      });
    }
    const deduplicated = outcome.outcomes.flatMap((o) => (o.status === 'existing' ? [{ id: o.token.id }] : []));
    if (deduplicated.length > 0) this.create.recordDeduplicated(actor, deduplicated, 'tokenize', now);
    const kept = ifOutcomes && outcomesAsExpected(outcome.outcomes, ifOutcomes.expected) ? answer : undefined;
    return { prepared, outcomes: outcome.outcomes, kept };
  }

  /**
   * The outcomes the store will reach, as far as a read before the write can tell: a deduplicating token answered by
   * the live token of its fingerprint, else by an earlier token of the call, else created.
   */
  private async predict(prepared: readonly PreparedToken[], now: Date): Promise<TokenStored[]> {
    const outcomes: TokenStored[] = [];
    const made: StoredToken[] = [];
    const found = new Map<string, StoredToken | undefined>();
    for (const { sealed: token, deduplicate } of prepared) {
      if (deduplicate) {
        const key = `${token.type}\u0000${token.fingerprint}`;
        if (!found.has(key)) found.set(key, await this.deps.tokens.findByFingerprint(token.tenantId, token.type, token.fingerprint, now));
        const existing = found.get(key) ?? made.find((t) => t.type === token.type && t.fingerprint === token.fingerprint);
        if (existing) {
          outcomes.push({ status: 'existing', token: existing });
          continue;
        }
      }
      made.push(token);
      outcomes.push({ status: 'created' });
    }
    return outcomes;
  }
}

const expectedOf = (o: TokenStored): ExpectedOutcome =>
  o.status === 'created' ? { status: 'created' } : { status: 'existing', id: o.token.id, version: o.token.version, createdAt: o.token.createdAt.getTime() };

/** 400 naming the limit when a bulk call holds more than it allows. */
export function requireWithinLimit(count: number, limit: number, what = 'tokens', setting = 'SVC_TOKENIZE_LIMIT'): void {
  if (count > limit) {
    throw ValidationError.field('body', `At most ${limit} ${what} per request (${setting}); this request has ${count}.`);
  }
}
