import type { AccessRule, Application, ApplicationType, Permission } from '@svc/core';
import { compact, optional } from './documents';

/** An application; `_id` is its id (a UUID the vault generated). Only the SHA-256 of its key is stored. */
export interface ApplicationDocument {
  _id: string;
  tenant_id: string;
  name: string;
  type: ApplicationType;
  permissions: Permission[];
  rules: AccessRule[];
  key_hash: string;
  created_by?: string | null;
  created_at: Date;
  modified_by?: string | null;
  modified_at?: Date | null;
  expires_at?: Date | null;
}

export function toApplicationDocument(app: Application): ApplicationDocument {
  return compact<ApplicationDocument>({
    _id: app.id,
    tenant_id: app.tenantId,
    name: app.name,
    type: app.type,
    permissions: [...app.permissions],
    rules: app.rules.map((rule) => compact({ ...rule })),
    key_hash: app.keyHash,
    created_by: app.createdBy,
    created_at: app.createdAt,
    modified_by: app.modifiedBy,
    modified_at: app.modifiedAt,
    expires_at: app.expiresAt,
  });
}

export function fromApplicationDocument(doc: ApplicationDocument): Application {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    name: doc.name,
    type: doc.type,
    permissions: [...doc.permissions],
    rules: [...doc.rules],
    keyHash: doc.key_hash,
    createdBy: optional(doc.created_by),
    createdAt: doc.created_at,
    modifiedBy: optional(doc.modified_by),
    modifiedAt: optional(doc.modified_at),
    expiresAt: optional(doc.expires_at),
  };
}
