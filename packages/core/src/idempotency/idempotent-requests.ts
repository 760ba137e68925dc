import { createHash } from 'node:crypto';
import type { Actor } from '../auth/actor';
import type { Keyring } from '../crypto/keyring';
import type { Clock } from '../shared/clock';
import { ConflictError, UnprocessableError, ValidationError } from '../shared/errors';
import type { RandomSource } from '../shared/random';
import type { IdempotencyRepository, KeptAnswer } from './idempotency';

/** The request header (beyond.md §4); `BT-IDEMPOTENCY-KEY` is its alias. */
export const IDEMPOTENCY_KEY_HEADER = 'SVC-IDEMPOTENCY-KEY';

/**
 * How long a running claim holds its key before another request with the key may take it over: a request that
 * crashed with its process (or hangs) must not wedge the key for the whole TTL. One minute is well past any request
 * svc answers normally; a request still running after it may see its duplicate run too (documented in
 * docs/idempotency.md).
 */
export const IDEMPOTENCY_TAKEOVER_MS = 60_000;

/** 1–255 printable ASCII characters (space to tilde). */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** A kept answer: replayed byte for byte. */
export interface IdempotentAnswer {
  readonly status: number;
  /** The headers worth replaying (Content-Type, Location), as [name, value] pairs. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer;
}

/** The request an idempotency key is bound to. `body` is the request body as received (empty without one). */
export interface IdempotentRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string | Uint8Array;
}

/** A claim this request holds: complete it with the answer, or release it. */
export interface IdempotencyClaim {
  readonly tenantId: string;
  readonly callerId: string;
  readonly key: string;
  readonly claimId: string;
}

/**
 * `rerun`: the key's first request only read (detokenize, a search), so only its answer's digest was kept; this one
 * runs again, and its answer is the first one replayed when its digest is `digest` (`sameAnswer`).
 */
export type IdempotencyOutcome =
  | { readonly kind: 'run'; readonly claim: IdempotencyClaim }
  | { readonly kind: 'replay'; readonly answer: IdempotentAnswer }
  | { readonly kind: 'rerun'; readonly status: number; readonly digest: string };

/** How a completed request's answer is kept: whole, to be replayed, or as its digest when the request only read. */
export type KeptAs = 'answer' | 'digest';

export interface IdempotencyDeps {
  readonly idempotency: IdempotencyRepository;
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** How long a kept answer is replayed (SVC_IDEMPOTENCY_TTL). */
  readonly ttlMs: number;
  /** Defaults to IDEMPOTENCY_TAKEOVER_MS. */
  readonly takeoverMs?: number;
}

/** A kept answer as sealed: status, headers, and the body (base64) or, for a request that only read, its digest. */
interface SealedAnswer {
  s: number;
  h: Array<[string, string]>;
  b: string;
  d?: string;
}

/** The digest of an answer kept as one (`KeptAs` 'digest'): SHA-256 of its body, base64. */
export const answerDigest = (body: Uint8Array): string => createHash('sha256').update(body).digest('base64');

/**
 * The rules of idempotency keys (beyond.md §4): the key's form, the request fingerprint (a keyed hash of method, path
 * and body, never the body), the claim that lets exactly one request with a key run, and the kept answer, sealed
 * under the tenant's key like token data (it holds token data).
 */
export class IdempotentRequests {
  /**
   * Claims this process gave up but could not release (the store refused the delete: a full disk), by scope: their
   * requests have answered, so a retry takes the key over at once rather than waiting out the takeover bound.
   */
  private readonly unreleased = new Map<string, string>();

  constructor(private readonly deps: IdempotencyDeps) {}

  /** The key, or 400 naming `header` when it is empty, longer than 255 characters or not printable. */
  static validateKey(header: string, value: string): string {
    if (!KEY_PATTERN.test(value)) {
      throw ValidationError.field(header, 'An idempotency key is 1 to 255 printable ASCII characters.');
    }
    return value;
  }

  /**
   * Claims `key` for this request, or answers the kept answer of the same request, or refuses: 422 when the key was
   * used for another request (method, path or body), 409 while the first request with it is still running.
   */
  async begin(actor: Actor, header: string, key: string, request: IdempotentRequest): Promise<IdempotencyOutcome> {
    const now = this.deps.clock.now();
    const callerId = actor.sessionId ?? actor.applicationId;
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    const bodyHash = createHash('sha256').update(request.body).digest('hex');
    const fingerprint = keys.requestFingerprint(`${request.method.toUpperCase()}\u0000${request.path}\u0000${bodyHash}`);
    const claimId = Buffer.from(this.deps.random.bytes(16)).toString('base64url');
    const scope = { tenantId: actor.tenantId, callerId, key };
    const staleBefore = new Date(now.getTime() - (this.deps.takeoverMs ?? IDEMPOTENCY_TAKEOVER_MS));
    const input = { ...scope, fingerprint, claimId, claimedAt: now, expiresAt: new Date(now.getTime() + this.deps.ttlMs) };
    let result = await this.deps.idempotency.claim(input, now, staleBefore);
    const given = unreleasedScope(scope);
    if (!result.claimed && result.existing.state === 'running' && result.existing.claimId === this.unreleased.get(given)) {
      // The running claim is one this process released in vain. Forgotten before the takeover (no await between), so
      // of concurrent retries only this one tries it; and only a claim made no later than the dead one is taken over,
      // never a newer one that took its place meanwhile.
      const dead = result.existing;
      this.unreleased.delete(given);
      try {
        result = await this.deps.idempotency.claim(input, now, dead.claimedAt);
      } catch (error) {
        // The store refused again (still full): the next retry may try.
        if (!this.unreleased.has(given)) this.unreleased.set(given, dead.claimId);
        throw error;
      }
    }
    if (result.claimed) return { kind: 'run', claim: { ...scope, claimId } };
    const existing = result.existing;
    if (existing.fingerprint !== fingerprint) {
      throw new UnprocessableError('IDEMPOTENCY_KEY_REUSED', `This ${header} was used for another request: another method, path or body.`, {
        [header]: ['Used for another request.'],
      });
    }
    if (existing.state === 'running' || !existing.sealedResponse) {
      throw new ConflictError('IDEMPOTENCY_KEY_IN_USE', `A request with this ${header} is still running; retry once it has finished.`, {
        [header]: ['A request with this key is still running.'],
      });
    }
    const sealed = JSON.parse(keys.openIdempotent(sealScope(callerId, key), existing.sealedResponse).toString('utf8')) as SealedAnswer;
    if (sealed.d !== undefined) return { kind: 'rerun', status: sealed.s, digest: sealed.d };
    return { kind: 'replay', answer: { status: sealed.s, headers: sealed.h, body: Buffer.from(sealed.b, 'base64') } };
  }

  /**
   * Keeps a 2xx answer (sealed): whole, for replay, or only its digest for a request that only read. A read's
   * answer is never replayed from the store: a retry runs again, so a caller who has lost the right to the plaintext,
   * or a token deleted since, is answered as they are now, the retry is audited like any read, and no plaintext
   * outlives its token in a kept answer. False when the claim was lost meanwhile (taken over after the bound).
   */
  async complete(claim: IdempotencyClaim, answer: IdempotentAnswer, keptAs: KeptAs = 'answer'): Promise<boolean> {
    const kept = await this.seal(claim, answer, keptAs);
    return this.deps.idempotency.complete(kept.tenantId, kept.callerId, kept.key, kept.claimId, kept.sealedResponse, kept.expiresAt);
  }

  /**
   * The answer sealed as `complete` keeps it, for a write to keep in its own transaction (`WriteEffects.kept`): the
   * answer of a create is known before its write, and kept with it, no crash can separate the two.
   */
  async seal(claim: IdempotencyClaim, answer: IdempotentAnswer, keptAs: KeptAs = 'answer'): Promise<KeptAnswer> {
    const keys = await this.deps.keyring.forTenant(claim.tenantId);
    const headers = answer.headers.map(([n, v]): [string, string] => [n, v]);
    const plain: SealedAnswer =
      keptAs === 'digest'
        ? { s: answer.status, h: headers, b: '', d: answerDigest(answer.body) }
        : { s: answer.status, h: headers, b: answer.body.toString('base64') };
    const sealedResponse = keys.sealIdempotent(sealScope(claim.callerId, claim.key), Buffer.from(JSON.stringify(plain), 'utf8'));
    const expiresAt = new Date(this.deps.clock.now().getTime() + this.deps.ttlMs);
    const { tenantId, callerId, key, claimId } = claim;
    return { tenantId, callerId, key, claimId, sealedResponse, expiresAt };
  }

  /**
   * Frees the key after a failed answer, so a retry runs again. When the store cannot (a full disk refuses the
   * delete), the claim is remembered as given up, and a retry with the key takes it over (it then fails or runs as
   * the store allows); the error still reaches the caller, to be logged.
   */
  async release(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.deps.idempotency.release(claim.tenantId, claim.callerId, claim.key, claim.claimId);
    } catch (error) {
      if (this.unreleased.size >= MAX_UNRELEASED) this.unreleased.delete(this.unreleased.keys().next().value!);
      this.unreleased.set(unreleasedScope(claim), claim.claimId);
      throw error;
    }
  }
}

/** At most this many claims remembered as given up (the oldest forgotten first: they wait out the takeover bound). */
const MAX_UNRELEASED = 10_000;

const unreleasedScope = (scope: { readonly tenantId: string; readonly callerId: string; readonly key: string }): string =>
  `${scope.tenantId}\u0000${scope.callerId}\u0000${scope.key}`;

const sealScope = (callerId: string, key: string): string => `${callerId}\u0000${key}`;
