import type { WriteEffects } from '../audit/write-effects';
import type { Page, PageRequest } from '../shared/pagination';

export const MEMBER_ROLES = ['OWNER', 'ADMIN'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Ties a user to a tenant with a role. The OWNER member is made with its tenant and cannot be deleted. */
export interface Member {
  readonly id: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly role: MemberRole;
  readonly createdBy?: string | undefined;
  readonly createdAt: Date;
  readonly modifiedBy?: string | undefined;
  readonly modifiedAt?: Date | undefined;
}

export interface MemberFilter {
  readonly userIds?: readonly string[];
}

export interface MemberRepository {
  create(member: Member, effects?: WriteEffects): Promise<void>;
  findById(tenantId: string, id: string): Promise<Member | undefined>;
  findByUser(tenantId: string, userId: string): Promise<Member | undefined>;
  /** Ordered by created_at descending, then id. */
  list(tenantId: string, filter: MemberFilter, page: PageRequest): Promise<Page<Member>>;
  delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean>;
}
