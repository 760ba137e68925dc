import type { WriteEffects } from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import type {
  Member,
  MemberFilter,
  MemberRepository,
  Page,
  PageRequest,
  SystemRepository,
  Tenant,
  TenantRepository,
  User,
  UserRepository,
} from '@svc/core';
import { paginate } from './paginate';

export class InMemoryTenantRepository implements TenantRepository {
  private readonly tenants = new Map<string, Tenant>();

  async create(tenant: Tenant): Promise<void> {
    this.tenants.set(tenant.id, tenant);
  }

  async findById(id: string): Promise<Tenant | undefined> {
    return this.tenants.get(id);
  }
}

export class InMemoryUserRepository implements UserRepository {
  private readonly users = new Map<string, User>();

  async create(user: User): Promise<void> {
    if (await this.findByEmail(user.email)) throw new Error('duplicate user e-mail');
    this.users.set(user.id, user);
  }

  async findById(id: string): Promise<User | undefined> {
    return this.users.get(id);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const wanted = email.toLowerCase();
    return [...this.users.values()].find((u) => u.email.toLowerCase() === wanted);
  }
}

export class InMemoryMemberRepository implements MemberRepository {
  private readonly members = new Map<string, Member>();

  constructor(private readonly effects?: InMemoryEffects) {}

  async create(member: Member, effects?: WriteEffects): Promise<void> {
    this.members.set(member.id, member);
    this.effects?.write(effects);
  }

  async findById(tenantId: string, id: string): Promise<Member | undefined> {
    const member = this.members.get(id);
    return member?.tenantId === tenantId ? member : undefined;
  }

  async findByUser(tenantId: string, userId: string): Promise<Member | undefined> {
    return [...this.members.values()].find((m) => m.tenantId === tenantId && m.userId === userId);
  }

  async list(tenantId: string, filter: MemberFilter, page: PageRequest): Promise<Page<Member>> {
    const matches = [...this.members.values()].filter(
      (m) => m.tenantId === tenantId && (!filter.userIds || filter.userIds.includes(m.userId)),
    );
    return paginate(matches, page);
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    if (this.members.get(id)?.tenantId !== tenantId) return false;
    this.members.delete(id);
    this.effects?.write(effects);
    return true;
  }
}

export class InMemorySystemRepository implements SystemRepository {
  private readonly claimed = new Set<string>();

  async claimOnce(name: string): Promise<boolean> {
    if (this.claimed.has(name)) return false;
    this.claimed.add(name);
    return true;
  }

  async release(name: string): Promise<void> {
    this.claimed.delete(name);
  }
}
