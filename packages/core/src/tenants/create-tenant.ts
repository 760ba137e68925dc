import { characterCount } from '../shared/text';
import type { Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import { ValidationError } from '../shared/errors';
import { MANAGEMENT_PERMISSIONS } from '../access/permissions';
import type { ApplicationWithKey } from '../applications/application';
import type { CreateApplication } from '../applications/create-application';
import type { Member } from '../members/member';
import type { MemberRepository } from '../members/member';
import type { User, UserRepository } from '../users/user';
import { normalizeEmail } from '../users/email';
import type { Tenant, TenantRepository } from './tenant';

export interface CreateTenantInput {
  readonly name: string;
  readonly ownerEmail: string;
  /** A management key to install instead of generating one (the bootstrap key). */
  readonly managementKey?: string | undefined;
}

/** What provisioning a tenant yields; `management.key` is shown once and never stored. */
export interface ProvisionedTenant {
  readonly tenant: Tenant;
  readonly owner: { readonly member: Member; readonly user: User };
  readonly management: ApplicationWithKey;
}

export interface CreateTenantDeps {
  readonly tenants: TenantRepository;
  readonly users: UserRepository;
  readonly members: MemberRepository;
  readonly createApplication: CreateApplication;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** Operator use case: a tenant, its OWNER member (a user found or made by e-mail) and a management application. */
export class CreateTenant {
  constructor(private readonly deps: CreateTenantDeps) {}

  async execute(input: CreateTenantInput): Promise<ProvisionedTenant> {
    const name = input.name.trim();
    if (name.length === 0 || characterCount(name) > 200) throw ValidationError.field('name', 'Name must be 1 to 200 characters.');
    const email = normalizeEmail('owner_email', input.ownerEmail);
    const now = this.deps.clock.now();
    const user = await this.findOrCreateUser(email, now);
    const tenant: Tenant = { id: this.deps.ids.next(), name, ownerId: user.id, createdAt: now };
    await this.deps.tenants.create(tenant);
    const member: Member = { id: this.deps.ids.next(), tenantId: tenant.id, userId: user.id, role: 'OWNER', createdAt: now };
    await this.deps.members.create(member);
    const management = await this.deps.createApplication.create(
      tenant.id,
      undefined,
      { name: `${name} management`, type: 'management', permissions: MANAGEMENT_PERMISSIONS },
      input.managementKey,
    );
    return { tenant, owner: { member, user }, management };
  }

  private async findOrCreateUser(email: string, now: Date): Promise<User> {
    const existing = await this.deps.users.findByEmail(email);
    if (existing) return existing;
    const user: User = { id: this.deps.ids.next(), email, createdAt: now };
    await this.deps.users.create(user);
    return user;
  }
}
