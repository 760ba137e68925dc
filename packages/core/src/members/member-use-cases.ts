import { type Audit, auditOf } from '../audit/audit';
import { memberHookData } from '../audit/audit-effects';
import type { Clock } from '../shared/clock';
import { NotFoundError, UnprocessableError, ValidationError } from '../shared/errors';
import { isUuid } from '../shared/ids';
import { type Page, pageRequest } from '../shared/pagination';
import type { Actor } from '../auth/actor';
import { requirePermission } from '../auth/authorize';
import type { User, UserRepository } from '../users/user';
import type { Member, MemberRepository } from './member';

export const MAX_MEMBER_PAGE_SIZE = 50;

/** A member with its user, as the API shows it. */
export interface MemberWithUser {
  readonly member: Member;
  readonly user: User;
}

export interface MemberDeps {
  readonly members: MemberRepository;
  readonly users: UserRepository;
  readonly clock?: Clock | undefined;
  /** Records what callers do (ADR 4); absent in unit tests of other rules. */
  readonly audit?: Audit | undefined;
}

export async function withUser(users: UserRepository, member: Member): Promise<MemberWithUser> {
  const user = await users.findById(member.userId);
  return { member, user: user ?? { id: member.userId, email: '', createdAt: member.createdAt } };
}

export interface ListMembersInput {
  readonly userIds?: readonly string[] | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

/** GET /tenants/self/members. */
export class ListMembers {
  constructor(private readonly deps: MemberDeps) {}

  async execute(actor: Actor, input: ListMembersInput): Promise<Page<MemberWithUser>> {
    requirePermission(actor, 'tenant:member:read');
    const request = pageRequest(input.page, input.size, MAX_MEMBER_PAGE_SIZE);
    input.userIds?.forEach((id, i) => {
      if (!isUuid(id)) throw ValidationError.field(`user_id[${i}]`, 'Must be a UUID.');
    });
    const page = await this.deps.members.list(actor.tenantId, input.userIds?.length ? { userIds: input.userIds } : {}, request);
    return { ...page, items: await Promise.all(page.items.map((m) => withUser(this.deps.users, m))) };
  }
}

/**
 * DELETE /tenants/self/members/{id}. Members hold no keys of their own (applications and sessions belong to the
 * tenant), so removing the membership removes all of the member's access to the tenant. The OWNER stays: 422.
 */
export class DeleteMember {
  constructor(private readonly deps: MemberDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'tenant:member:delete');
    const member = await this.deps.members.findById(actor.tenantId, id);
    if (!member) throw new NotFoundError('member');
    if (member.role === 'OWNER') throw new UnprocessableError('OWNER_NOT_DELETABLE', 'The OWNER member cannot be deleted.');
    const now = this.deps.clock?.now() ?? new Date();
    const effects = auditOf(this.deps).write(actor, now, { entityType: 'tenant_member', entityId: id, operation: 'delete', message: 'Tenant member deleted' }, [
      { type: 'tenant.member.deleted', data: memberHookData(member) },
    ]);
    if (!(await this.deps.members.delete(actor.tenantId, id, effects))) throw new NotFoundError('member');
  }
}
