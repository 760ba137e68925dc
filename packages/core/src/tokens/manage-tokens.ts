import { NotFoundError } from '../shared/errors';
import { requireTokenPermission, requireTransform } from '../access/evaluate-access';
import type { Actor } from '../auth/actor';
import type { StoredToken } from './token';
import type { TokenDeps } from './token-deps';
import { openToken } from './token-sealing';
import { type TokenView, viewToken } from './token-view';
import { auditOf } from '../audit/audit';
import { tokenHookData } from '../audit/audit-effects';

const notFound = (): NotFoundError => new NotFoundError('token');

/** A live token of the caller's tenant; absent, expired and foreign tokens are all "not found". */
export async function loadToken(deps: TokenDeps, actor: Actor, id: string, now: Date): Promise<StoredToken> {
  const stored = await deps.tokens.findById(actor.tenantId, id, now);
  if (!stored) throw notFound();
  return stored;
}

/** GET /tokens/{id}: the token with its data per the caller's transform. */
export class GetToken {
  constructor(private readonly deps: TokenDeps) {}

  async execute(actor: Actor, id: string): Promise<TokenView> {
    requireTokenPermission(actor, 'token:read');
    const now = this.deps.clock.now();
    const stored = await loadToken(this.deps, actor, id, now);
    const transform = requireTransform(actor, 'token:read', stored);
    const operation = transform === 'reveal' ? 'reveal' : 'read';
    const message = transform === 'reveal' ? 'Token read with its data revealed' : `Token read with its data ${transform === 'mask' ? 'masked' : 'redacted'}`;
    auditOf(this.deps).record(actor, now, { entityType: 'token', entityId: id, operation, message });
    if (transform === 'redact') return { token: stored, hasData: false };
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    return viewToken(this.deps.expressions, openToken(keys, stored), transform, this.deps.policy, now);
  }
}

/** DELETE /tokens/{id}. */
export class DeleteToken {
  constructor(private readonly deps: TokenDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requireTokenPermission(actor, 'token:delete');
    const now = this.deps.clock.now();
    const stored = await loadToken(this.deps, actor, id, now);
    requireTransform(actor, 'token:delete', stored);
    const effects = auditOf(this.deps).write(actor, now, { entityType: 'token', entityId: id, operation: 'delete', message: 'Token deleted' }, [
      { type: 'token.deleted', data: tokenHookData(stored) },
    ]);
    if (!(await this.deps.tokens.delete(actor.tenantId, id, effects))) throw notFound();
  }
}
