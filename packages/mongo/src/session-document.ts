import type { AccessRule, Permission, Session } from '@svc/core';
import { compact, optional } from './documents';

/** A session; `_id` is its id. Only the hashes of the session key and of the nonce are stored. */
export interface SessionDocument {
  _id: string;
  tenant_id: string;
  application_id: string;
  key_hash: string;
  nonce_hash: string;
  created_at: Date;
  /** The TTL index deletes the session (lazily) once this instant has passed. */
  expires_at: Date;
  authorized_at?: Date | null;
  permissions: Permission[];
  rules: AccessRule[];
}

export const toSessionDocument = (s: Session): SessionDocument =>
  compact<SessionDocument>({
    _id: s.id,
    tenant_id: s.tenantId,
    application_id: s.applicationId,
    key_hash: s.keyHash,
    nonce_hash: s.nonceHash,
    created_at: s.createdAt,
    expires_at: s.expiresAt,
    authorized_at: s.authorizedAt,
    permissions: [...s.permissions],
    rules: s.rules.map((rule) => compact({ ...rule })),
  });

export const fromSessionDocument = (d: SessionDocument): Session => ({
  id: d._id,
  tenantId: d.tenant_id,
  applicationId: d.application_id,
  keyHash: d.key_hash,
  nonceHash: d.nonce_hash,
  createdAt: d.created_at,
  expiresAt: d.expires_at,
  authorizedAt: optional(d.authorized_at),
  permissions: [...d.permissions],
  rules: [...d.rules],
});
