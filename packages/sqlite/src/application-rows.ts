import type { AccessRule, Application, ApplicationKey, Permission } from '@svc/core';
import { date, ms, nul, opt } from './rows';

/** A row of `applications`; its keys are rows of `application_keys`. */
export interface ApplicationRow {
  id: string;
  tenant_id: string;
  name: string;
  type: Application['type'];
  permissions: string;
  rules: string;
  created_by: string | null;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
  expires_at: number | null;
}

/** A row of `application_keys`: only the SHA-256 of the key, never the key. */
export interface ApplicationKeyRow {
  id: string;
  tenant_id: string;
  application_id: string;
  key_hash: string;
  created_by: string | null;
  created_at: number;
}

export function toApplication(row: ApplicationRow): Application {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    type: row.type,
    permissions: JSON.parse(row.permissions) as Permission[],
    rules: JSON.parse(row.rules) as AccessRule[],
    createdBy: opt(row.created_by),
    createdAt: new Date(row.created_at),
    modifiedBy: opt(row.modified_by),
    modifiedAt: date(row.modified_at),
    expiresAt: date(row.expires_at),
  };
}

export function toApplicationRow(app: Application): ApplicationRow {
  return {
    id: app.id,
    tenant_id: app.tenantId,
    name: app.name,
    type: app.type,
    permissions: JSON.stringify(app.permissions),
    rules: JSON.stringify(app.rules),
    created_by: nul(app.createdBy),
    created_at: app.createdAt.getTime(),
    modified_by: nul(app.modifiedBy),
    modified_at: ms(app.modifiedAt),
    expires_at: ms(app.expiresAt),
  };
}

export function toApplicationKey(row: ApplicationKeyRow): ApplicationKey {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    applicationId: row.application_id,
    keyHash: row.key_hash,
    createdBy: opt(row.created_by),
    createdAt: new Date(row.created_at),
  };
}

export function toApplicationKeyRow(key: ApplicationKey): ApplicationKeyRow {
  return {
    id: key.id,
    tenant_id: key.tenantId,
    application_id: key.applicationId,
    key_hash: key.keyHash,
    created_by: nul(key.createdBy),
    created_at: key.createdAt.getTime(),
  };
}
