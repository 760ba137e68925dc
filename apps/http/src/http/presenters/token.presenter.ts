import type { TokenView } from '@svc/core';
import { iso } from './pagination';

/** A token as the API shows it: `data` only when the caller's transform yields it. */
export function presentToken(view: TokenView) {
  const t = view.token;
  if (view.identityOnly) {
    return { id: t.id, type: t.type, tenant_id: t.tenantId, fingerprint: t.fingerprint, containers: t.containers };
  }
  return {
    id: t.id,
    type: t.type,
    tenant_id: t.tenantId,
    ...(view.hasData ? { data: view.data } : {}),
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
  };
}
