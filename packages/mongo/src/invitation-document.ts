import type { Invitation } from '@svc/core';
import { compact, optional } from './documents';

/** An invitation; `_id` is its id. Only the hash of its link's secret is stored. */
export interface InvitationDocument {
  _id: string;
  tenant_id: string;
  email: string;
  /** The e-mail lower-cased: `{ tenant_id, email_lower }` is unique, one invitation per address and tenant. */
  email_lower: string;
  secret_hash: string;
  created_by?: string | null;
  created_at: Date;
  modified_by?: string | null;
  modified_at?: Date | null;
  expires_at: Date;
}

export const toInvitationDocument = (i: Invitation): InvitationDocument =>
  compact<InvitationDocument>({
    _id: i.id,
    tenant_id: i.tenantId,
    email: i.email,
    email_lower: i.email.toLowerCase(),
    secret_hash: i.secretHash,
    created_by: i.createdBy,
    created_at: i.createdAt,
    modified_by: i.modifiedBy,
    modified_at: i.modifiedAt,
    expires_at: i.expiresAt,
  });

export const fromInvitationDocument = (d: InvitationDocument): Invitation => ({
  id: d._id,
  tenantId: d.tenant_id,
  email: d.email,
  secretHash: d.secret_hash,
  createdBy: optional(d.created_by),
  createdAt: d.created_at,
  modifiedBy: optional(d.modified_by),
  modifiedAt: optional(d.modified_at),
  expiresAt: d.expires_at,
});
