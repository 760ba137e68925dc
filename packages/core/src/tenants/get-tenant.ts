import type { Actor } from '../auth/actor';
import { requirePermission } from '../auth/authorize';
import { NotFoundError } from '../shared/errors';
import type { Tenant, TenantRepository } from './tenant';

/** GET /tenants/self: the caller's own tenant. */
export class GetTenant {
  constructor(private readonly deps: { readonly tenants: TenantRepository }) {}

  async execute(actor: Actor): Promise<Tenant> {
    requirePermission(actor, 'tenant:read');
    const tenant = await this.deps.tenants.findById(actor.tenantId);
    if (!tenant) throw new NotFoundError('tenant');
    return tenant;
  }
}
