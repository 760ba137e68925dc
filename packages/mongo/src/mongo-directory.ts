import type { Collection, Filter } from 'mongodb';
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
import {
  fromMemberDocument,
  fromTenantDocument,
  fromUserDocument,
  type MemberDocument,
  type SystemFlagDocument,
  type TenantDocument,
  toMemberDocument,
  toTenantDocument,
  toUserDocument,
  type UserDocument,
} from './directory-documents';
import { isDuplicateKeyError } from './mongo-errors';
import { findPage, NEWEST_FIRST } from './paginate';

export class MongoTenantRepository implements TenantRepository {
  constructor(private readonly tenants: Collection<TenantDocument>) {}

  async create(tenant: Tenant): Promise<void> {
    await this.tenants.insertOne(toTenantDocument(tenant));
  }

  async findById(id: string): Promise<Tenant | undefined> {
    const doc = await this.tenants.findOne({ _id: id });
    return doc ? fromTenantDocument(doc) : undefined;
  }
}

/** A second user with the same e-mail (in any case) is refused by the unique index on `email_lower`. */
export class MongoUserRepository implements UserRepository {
  constructor(private readonly users: Collection<UserDocument>) {}

  async create(user: User): Promise<void> {
    await this.users.insertOne(toUserDocument(user));
  }

  async findById(id: string): Promise<User | undefined> {
    const doc = await this.users.findOne({ _id: id });
    return doc ? fromUserDocument(doc) : undefined;
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const doc = await this.users.findOne({ email_lower: email.toLowerCase() });
    return doc ? fromUserDocument(doc) : undefined;
  }
}

/** Members; `{ tenant_id, user_id }` is unique, so a user is a member of a tenant at most once. */
export class MongoMemberRepository implements MemberRepository {
  constructor(private readonly members: Collection<MemberDocument>) {}

  async create(member: Member): Promise<void> {
    await this.members.insertOne(toMemberDocument(member));
  }

  async findById(tenantId: string, id: string): Promise<Member | undefined> {
    const doc = await this.members.findOne({ _id: id, tenant_id: tenantId });
    return doc ? fromMemberDocument(doc) : undefined;
  }

  async findByUser(tenantId: string, userId: string): Promise<Member | undefined> {
    const doc = await this.members.findOne({ tenant_id: tenantId, user_id: userId });
    return doc ? fromMemberDocument(doc) : undefined;
  }

  async list(tenantId: string, filter: MemberFilter, page: PageRequest): Promise<Page<Member>> {
    const query: Filter<MemberDocument> = { tenant_id: tenantId };
    if (filter.userIds) query.user_id = { $in: [...filter.userIds] };
    return findPage(this.members, query, NEWEST_FIRST, page, fromMemberDocument);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (await this.members.deleteOne({ _id: id, tenant_id: tenantId })).deletedCount === 1;
  }
}

/** Flags are claimed by inserting their name as `_id`: of any number of processes, exactly one insert succeeds. */
export class MongoSystemRepository implements SystemRepository {
  constructor(private readonly flags: Collection<SystemFlagDocument>) {}

  async claimOnce(name: string): Promise<boolean> {
    try {
      await this.flags.insertOne({ _id: name, claimed_at: new Date() });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  async release(name: string): Promise<void> {
    await this.flags.deleteOne({ _id: name });
  }
}
