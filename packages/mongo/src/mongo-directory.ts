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
  WriteEffects,
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
import { always, type EffectWrites, whenTrue } from './effect-writes';
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

/**
 * Members; `{ tenant_id, user_id }` is unique, so a user is a member of a tenant at most once. A write with
 * WriteEffects runs in a transaction that stores them when it changed something (see EffectWrites).
 */
export class MongoMemberRepository implements MemberRepository {
  constructor(
    private readonly members: Collection<MemberDocument>,
    private readonly effects: EffectWrites,
  ) {}

  async create(member: Member, effects?: WriteEffects): Promise<void> {
    await this.effects.write(
      effects,
      async (session) => {
        await this.members.insertOne(toMemberDocument(member), { session });
      },
      always,
    );
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

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.write(
      effects,
      async (session) => (await this.members.deleteOne({ _id: id, tenant_id: tenantId }, { session })).deletedCount === 1,
      whenTrue,
    );
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
