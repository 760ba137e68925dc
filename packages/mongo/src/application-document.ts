import type { AccessRule, Application, ApplicationKey, ApplicationType, Permission } from '@svc/core';
import { compact, optional } from './documents';

/** One key of an application, inside the application's document. Only the SHA-256 of the key is stored. */
export interface ApplicationKeyDocument {
  id: string;
  key_hash: string;
  created_by?: string | null;
  created_at: Date;
}

/**
 * An application; `_id` is its id (a UUID the vault generated). Its keys live inside it, so adding one under the
 * per-application limit, revoking one and replacing them all are each one atomic single-document update, and a
 * deleted application takes its keys with it. `keys.key_hash` has a unique index across all documents.
 */
export interface ApplicationDocument {
  _id: string;
  tenant_id: string;
  name: string;
  type: ApplicationType;
  permissions: Permission[];
  rules: AccessRule[];
  keys: ApplicationKeyDocument[];
  created_by?: string | null;
  created_at: Date;
  modified_by?: string | null;
  modified_at?: Date | null;
  expires_at?: Date | null;
}

/** The fields of an application besides its id, tenant and keys: what an update of the application replaces. */
export type ApplicationFields = Omit<ApplicationDocument, '_id' | 'tenant_id' | 'keys'>;

/** Every field an update sets or, when undefined, removes (see `setOrUnset`). */
export function applicationFields(app: Application): { [K in keyof ApplicationFields]: ApplicationFields[K] | undefined } {
  return {
    name: app.name,
    type: app.type,
    permissions: [...app.permissions],
    rules: app.rules.map((rule) => compact({ ...rule })),
    created_by: app.createdBy,
    created_at: app.createdAt,
    modified_by: app.modifiedBy,
    modified_at: app.modifiedAt,
    expires_at: app.expiresAt,
  };
}

export function toApplicationDocument(app: Application, keys: readonly ApplicationKey[]): ApplicationDocument {
  return compact<ApplicationDocument>({
    _id: app.id,
    tenant_id: app.tenantId,
    ...applicationFields(app),
    keys: keys.map(toApplicationKeyDocument),
  } as ApplicationDocument);
}

export function fromApplicationDocument(doc: Omit<ApplicationDocument, 'keys'>): Application {
  return {
    id: doc._id,
    tenantId: doc.tenant_id,
    name: doc.name,
    type: doc.type,
    permissions: [...doc.permissions],
    rules: [...doc.rules],
    createdBy: optional(doc.created_by),
    createdAt: doc.created_at,
    modifiedBy: optional(doc.modified_by),
    modifiedAt: optional(doc.modified_at),
    expiresAt: optional(doc.expires_at),
  };
}

export function toApplicationKeyDocument(key: ApplicationKey): ApplicationKeyDocument {
  return compact<ApplicationKeyDocument>({ id: key.id, key_hash: key.keyHash, created_by: key.createdBy, created_at: key.createdAt });
}

/** The keys of an application document, newest first (created_at descending, then id). */
export function fromApplicationKeyDocuments(doc: Pick<ApplicationDocument, '_id' | 'tenant_id' | 'keys'>): ApplicationKey[] {
  return (doc.keys ?? [])
    .map((key) => ({
      id: key.id,
      tenantId: doc.tenant_id,
      applicationId: doc._id,
      keyHash: key.key_hash,
      createdBy: optional(key.created_by),
      createdAt: key.created_at,
    }))
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
