import type { Member, ProvisionedTenant, Tenant, User } from '@svc/core';
import { presentApplication } from './application.presenter';
import { iso } from './pagination';

export function presentUser(user: User) {
  return { id: user.id, email: user.email, first_name: user.firstName, last_name: user.lastName, picture: user.picture };
}

export function presentMember(member: Member, user: User) {
  return {
    id: member.id,
    tenant_id: member.tenantId,
    role: member.role,
    user: presentUser(user),
    created_by: member.createdBy,
    created_at: iso(member.createdAt),
    // The Basis Theory SDK reads a member's creation from `created_date` (interface.md names it `created_at`).
    created_date: iso(member.createdAt),
    modified_by: member.modifiedBy,
    modified_at: iso(member.modifiedAt),
  };
}

export function presentTenant(tenant: Tenant) {
  return { id: tenant.id, name: tenant.name, owner_id: tenant.ownerId, created_at: iso(tenant.createdAt) };
}

/**
 * GET /tenants/self, in the shape of Basis Theory's tenant object. svc has one kind of tenant and no settings; a tenant
 * is created by its owner and never modified, so the owner and the creation time stand for both.
 */
export function presentSelfTenant(tenant: Tenant) {
  const createdAt = iso(tenant.createdAt);
  return {
    id: tenant.id,
    name: tenant.name,
    owner_id: tenant.ownerId,
    type: 'PRODUCTION',
    settings: {},
    created_by: tenant.ownerId,
    created_at: createdAt,
    modified_by: tenant.ownerId,
    modified_at: createdAt,
  };
}

/** What `svc tenants create` prints: the tenant, its OWNER member and the management application with its key. */
export function presentProvisionedTenant(result: ProvisionedTenant) {
  return {
    tenant: presentTenant(result.tenant),
    owner: presentMember(result.owner.member, result.owner.user),
    application: presentApplication(result.management.application, result.management.key),
  };
}
