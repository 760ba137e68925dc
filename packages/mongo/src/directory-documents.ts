import type { Member, MemberRole, Tenant, User } from '@svc/core';
import { compact, optional } from './documents';

/** `_id` is the entity id in each of these collections. */
export interface TenantDocument {
  _id: string;
  name: string;
  owner_id: string;
  created_at: Date;
}

export interface UserDocument {
  _id: string;
  email: string;
  /** The e-mail lower-cased: the unique index that makes users one per address, case-insensitively. */
  email_lower: string;
  first_name?: string | null;
  last_name?: string | null;
  picture?: string | null;
  created_at: Date;
}

export interface MemberDocument {
  _id: string;
  tenant_id: string;
  user_id: string;
  role: MemberRole;
  created_by?: string | null;
  created_at: Date;
  modified_by?: string | null;
  modified_at?: Date | null;
}

/** A store-wide flag; `_id` is its name, so claiming it is one insert that only the first caller wins. */
export interface SystemFlagDocument {
  _id: string;
  claimed_at: Date;
}

export const toTenantDocument = (t: Tenant): TenantDocument => ({ _id: t.id, name: t.name, owner_id: t.ownerId, created_at: t.createdAt });

export const fromTenantDocument = (d: TenantDocument): Tenant => ({ id: d._id, name: d.name, ownerId: d.owner_id, createdAt: d.created_at });

export const toUserDocument = (u: User): UserDocument =>
  compact<UserDocument>({
    _id: u.id,
    email: u.email,
    email_lower: u.email.toLowerCase(),
    first_name: u.firstName,
    last_name: u.lastName,
    picture: u.picture,
    created_at: u.createdAt,
  });

export const fromUserDocument = (d: UserDocument): User => ({
  id: d._id,
  email: d.email,
  firstName: optional(d.first_name),
  lastName: optional(d.last_name),
  picture: optional(d.picture),
  createdAt: d.created_at,
});

export const toMemberDocument = (m: Member): MemberDocument =>
  compact<MemberDocument>({
    _id: m.id,
    tenant_id: m.tenantId,
    user_id: m.userId,
    role: m.role,
    created_by: m.createdBy,
    created_at: m.createdAt,
    modified_by: m.modifiedBy,
    modified_at: m.modifiedAt,
  });

export const fromMemberDocument = (d: MemberDocument): Member => ({
  id: d._id,
  tenantId: d.tenant_id,
  userId: d.user_id,
  role: d.role,
  createdBy: optional(d.created_by),
  createdAt: d.created_at,
  modifiedBy: optional(d.modified_by),
  modifiedAt: optional(d.modified_at),
});
