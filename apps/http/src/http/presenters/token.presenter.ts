import type { TokenView } from '@svc/core';
import { iso } from './pagination';

/** A token as the API shows it: `data` only when the caller's transform yields it. */
export function presentToken(view: TokenView) {
  return tokenFields(view, undefined);
}

/** A token in a bulk tokenize answer: as {@link presentToken}, with `_extras`. */
export function presentTokenWithExtras(view: TokenView, extras: { readonly deduplicated: boolean }) {
  return tokenFields(view, extras);
}

function tokenFields(view: TokenView, extras: { readonly deduplicated: boolean } | undefined) {
  const t = view.token;
  if (view.identityOnly) {
    return { id: t.id, type: t.type, tenant_id: t.tenantId, fingerprint: t.fingerprint, containers: t.containers, _extras: extras };
  }
  return {
    id: t.id,
    type: t.type,
    tenant_id: t.tenantId,
    // `undefined` leaves the field out of the JSON. Not a conditional spread: a spread among other fields takes V8's
    // slow copy path, about half a microsecond a token.
    data: view.hasData ? view.data : undefined,
    mask: t.mask,
    fingerprint: t.fingerprint,
    fingerprint_expression: t.fingerprintExpression,
    containers: t.containers,
    metadata: t.metadata,
    search_indexes: t.searchIndexes,
    created_by: t.createdBy,
    created_at: iso(t.createdAt),
    modified_by: t.modifiedBy,
    modified_at: iso(t.modifiedAt),
    expires_at: iso(t.expiresAt),
    _extras: extras,
  };
}
