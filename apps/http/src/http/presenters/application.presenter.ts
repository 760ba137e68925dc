import type { AccessRule, Application } from '@svc/core';
import { iso } from './pagination';

export function presentRule(rule: AccessRule) {
  return {
    description: rule.description,
    priority: rule.priority,
    container: rule.container,
    conditions: rule.conditions,
    transform: rule.transform,
    permissions: rule.permissions,
  };
}

/** An application as the API shows it; `key` only when create or regenerate produced one. */
export function presentApplication(app: Application, key?: string) {
  return {
    id: app.id,
    tenant_id: app.tenantId,
    name: app.name,
    key,
    type: app.type,
    permissions: app.permissions,
    rules: app.rules.map(presentRule),
    created_by: app.createdBy,
    created_at: iso(app.createdAt),
    modified_by: app.modifiedBy,
    modified_at: iso(app.modifiedAt),
    expires_at: iso(app.expiresAt),
  };
}
