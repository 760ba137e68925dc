import { auditOf } from '../audit/audit';
import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import { tokenHookData } from '../audit/audit-effects';
import { ConflictError, ForbiddenError, NotFoundError } from '../shared/errors';
import { mergePatch } from '../shared/merge-patch';
import { requireTokenPermission, requireTransform, type TokenScope, transformFor } from '../access/evaluate-access';
import { type Transform, transformRank } from '../access/access-rule';
import type { Actor } from '../auth/actor';
import type { TenantKeys } from '../crypto/tenant-keys';
import type { StoredToken, Token } from './token';
import type { TokenDeps } from './token-deps';
import { resolveContainers, resolveMask, resolveSearchIndexes, validateMetadata } from './token-fields';
import { parseTokenExpiry } from './token-expiry';
import { computeMaterials } from './token-materials';
import { openToken, sealToken } from './token-sealing';
import { tokenType } from './token-types';
import { liveData, type TokenView, viewToken } from './token-view';
import { loadToken } from './manage-tokens';

/** The most a caller is shown of a token where it is, by a read (and detokenize) or by a search; undefined: nothing. */
function shownTo(actor: Actor, token: TokenScope): Transform | undefined {
  const read = transformFor(actor, 'token:read', token);
  const search = transformFor(actor, 'token:search', token);
  return transformRank(search) > transformRank(read) ? search : read;
}

/**
 * PATCH /tokens/{id}. `data`, `mask` and `metadata` are RFC 7386 merge patches; the rest replace. A key that is
 * absent leaves its field alone; `expiresAt: null` clears the expiry.
 */
export interface UpdateTokenInput {
  readonly data?: unknown;
  readonly mask?: unknown;
  readonly metadata?: Readonly<Record<string, string | null>> | null | undefined;
  readonly containers?: readonly string[] | undefined;
  readonly searchIndexes?: readonly string[] | undefined;
  readonly fingerprintExpression?: string | undefined;
  readonly deduplicateToken?: boolean | undefined;
  readonly expiresAt?: string | null | undefined;
}

const has = (input: object, key: string): boolean => Object.prototype.hasOwnProperty.call(input, key);

/**
 * Rounds of read, merge and compare-and-set before an update gives up. Each round one of the writers racing on a token
 * wins, so this many concurrent writers on one token all get through; past that the update answers a conflict, never
 * a lost update.
 */
export const MAX_UPDATE_ATTEMPTS = 50;

export class UpdateToken {
  constructor(private readonly deps: TokenDeps) {}

  /** `keep`: the answer is kept with the update (an idempotency key's, see KeepAnswer). */
  async execute(actor: Actor, id: string, input: UpdateTokenInput, keep?: KeepAnswer<TokenView>): Promise<TokenView> {
    requireTokenPermission(actor, 'token:update');
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt++) {
      const view = await this.attempt(actor, id, input, keep);
      if (view) return view;
    }
    throw new ConflictError('TOKEN_UPDATE_CONFLICT', 'The token kept changing under concurrent updates; send the update again.');
  }

  /**
   * One read-modify-write: the patch is applied to the token as stored now, and access is checked on it. Undefined
   * when the token changed between the read and the write, so that nothing was written and the caller tries again.
   */
  private async attempt(actor: Actor, id: string, input: UpdateTokenInput, keep: KeepAnswer<TokenView> | undefined): Promise<TokenView | undefined> {
    const now = this.deps.clock.now();
    const stored = await loadToken(this.deps, actor, id, now);
    requireTransform(actor, 'token:update', stored);
    // Masks, fingerprint and index expressions are evaluated on the plaintext: changing them could make it readable
    // (a mask of `{{ data }}`) or guessable (fingerprints and errors as oracles), so only a caller who may see the
    // plaintext may change them.
    const readTransform = transformFor(actor, 'token:read', stored);
    const changesDerivations = has(input, 'mask') || input.fingerprintExpression !== undefined || input.searchIndexes !== undefined;
    if (changesDerivations && readTransform !== 'reveal') {
      throw new ForbiddenError('Changing how a token is masked, fingerprinted or indexed needs reveal access to it.');
    }
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    const { updated, sealed } = this.patched(actor, keys, stored, input, now);
    const effects = auditOf(this.deps).write(actor, now, { entityType: 'token', entityId: id, operation: 'update', message: 'Token updated' }, [
      { type: 'token.updated', data: tokenHookData(updated) },
    ]);
    // The response shows what the caller may read, not what its update rule says: the merged data is not all theirs.
    // Made before the write, so that the write can keep it (a conflict or a gone token writes nothing, nor keeps it).
    const view = viewToken(this.deps.expressions, updated, readTransform ?? 'redact', this.deps.policy, now);
    const outcome = await this.deps.tokens.update(sealed, now, await keptWith(effects, keep, view));
    if (outcome.status === 'conflict') return undefined;
    if (outcome.status === 'gone') throw new NotFoundError('token');
    return view;
  }

  /** The stored token with the patch applied, in plaintext (for the response) and sealed at the version it was read. */
  private patched(
    actor: Actor,
    keys: TenantKeys,
    stored: StoredToken,
    input: UpdateTokenInput,
    now: Date,
  ): { readonly updated: Token; readonly sealed: StoredToken } {
    const current = openToken(keys, stored);
    const type = tokenType(current.type);

    const currentData = liveData(current, this.deps.policy, now);
    const data = has(input, 'data') ? type.validate(mergePatch(currentData, input.data)) : currentData;
    const metadata = has(input, 'metadata')
      ? validateMetadata((input.metadata === null ? {} : mergePatch(current.metadata, input.metadata)) as Record<string, string>)
      : current.metadata;
    const containers = input.containers === undefined ? current.containers : resolveContainers(type, input.containers);
    if (input.containers !== undefined) {
      requireTransform(actor, 'token:update', { id: current.id, containers });
      // A move may not widen what the caller itself is shown of the token, by a read or by a search: a key that masks
      // /pci/ and reveals /general/ would otherwise move a card to /general/ and read (or search) it in plaintext.
      const before = shownTo(actor, current);
      const after = shownTo(actor, { id: current.id, containers });
      if (transformRank(after) > transformRank(before)) {
        throw new ForbiddenError(`This move would show the API key the token ${after === 'reveal' ? 'in plaintext' : after === 'mask' ? 'masked' : 'redacted'} (by a read or a search), more than it is shown where the token is now.`);
      }
    }
    const fingerprintExpression = input.fingerprintExpression ?? current.fingerprintExpression;
    const searchIndexes = input.searchIndexes === undefined ? (current.searchIndexes ?? []) : resolveSearchIndexes(type, input.searchIndexes);
    const patchedMask = has(input, 'mask') ? (input.mask === null ? undefined : mergePatch(current.mask, input.mask)) : current.mask;
    const mask = resolveMask(this.deps.expressions, type, patchedMask, data);
    const expiresAt = !has(input, 'expiresAt')
      ? current.expiresAt
      : input.expiresAt === null || input.expiresAt === undefined
        ? undefined
        : parseTokenExpiry(input.expiresAt, now);

    const materials = computeMaterials(this.deps.expressions, keys, { type: type.name, data, metadata, fingerprintExpression, searchIndexes });
    const updated: Token = {
      ...current,
      data,
      mask,
      metadata,
      containers,
      searchIndexes: searchIndexes.length > 0 || current.searchIndexes !== undefined ? searchIndexes : undefined,
      fingerprintExpression,
      fingerprint: materials.fingerprint,
      deduplicateToken: input.deduplicateToken ?? current.deduplicateToken,
      modifiedBy: actor.applicationId,
      modifiedAt: now,
      expiresAt,
    };
    return { updated, sealed: sealToken(keys, updated, materials, this.deps.policy, stored.version) };
  }
}
