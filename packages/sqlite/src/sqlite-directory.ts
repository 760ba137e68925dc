import type { Database, Statement } from 'better-sqlite3';
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
import { changed, EffectWrites } from './effect-writes';
import { date, ms, nul, opt, placeholders, selectPage } from './rows';

interface TenantRow {
  id: string;
  name: string;
  owner_id: string;
  created_at: number;
}

export class SqliteTenantRepository implements TenantRepository {
  private readonly insert: Statement;
  private readonly byId: Statement;

  constructor(db: Database) {
    this.insert = db.prepare('INSERT INTO tenants (id, name, owner_id, created_at) VALUES (?, ?, ?, ?)');
    this.byId = db.prepare('SELECT * FROM tenants WHERE id = ?');
  }

  async create(tenant: Tenant): Promise<void> {
    this.insert.run(tenant.id, tenant.name, tenant.ownerId, tenant.createdAt.getTime());
  }

  async findById(id: string): Promise<Tenant | undefined> {
    const row = this.byId.get(id) as TenantRow | undefined;
    return row && { id: row.id, name: row.name, ownerId: row.owner_id, createdAt: new Date(row.created_at) };
  }
}

interface UserRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  picture: string | null;
  created_at: number;
}

const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  firstName: opt(row.first_name),
  lastName: opt(row.last_name),
  picture: opt(row.picture),
  createdAt: new Date(row.created_at),
});

export class SqliteUserRepository implements UserRepository {
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly byEmail: Statement;

  constructor(db: Database) {
    this.insert = db.prepare('INSERT INTO users (id, email, first_name, last_name, picture, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.byId = db.prepare('SELECT * FROM users WHERE id = ?');
    this.byEmail = db.prepare('SELECT * FROM users WHERE email = ?');
  }

  async create(user: User): Promise<void> {
    this.insert.run(user.id, user.email, nul(user.firstName), nul(user.lastName), nul(user.picture), user.createdAt.getTime());
  }

  async findById(id: string): Promise<User | undefined> {
    const row = this.byId.get(id) as UserRow | undefined;
    return row && toUser(row);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = this.byEmail.get(email) as UserRow | undefined;
    return row && toUser(row);
  }
}

interface MemberRow {
  id: string;
  tenant_id: string;
  user_id: string;
  role: Member['role'];
  created_by: string | null;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
}

const toMember = (row: MemberRow): Member => ({
  id: row.id,
  tenantId: row.tenant_id,
  userId: row.user_id,
  role: row.role,
  createdBy: opt(row.created_by),
  createdAt: new Date(row.created_at),
  modifiedBy: opt(row.modified_by),
  modifiedAt: date(row.modified_at),
});

export class SqliteMemberRepository implements MemberRepository {
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly byUser: Statement;
  private readonly remove: Statement;

  constructor(
    private readonly db: Database,
    private readonly effects = new EffectWrites(db),
  ) {
    this.insert = db.prepare(`INSERT INTO members (id, tenant_id, user_id, role, created_by, created_at, modified_by, modified_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.byId = db.prepare('SELECT * FROM members WHERE tenant_id = ? AND id = ?');
    this.byUser = db.prepare('SELECT * FROM members WHERE tenant_id = ? AND user_id = ?');
    this.remove = db.prepare('DELETE FROM members WHERE tenant_id = ? AND id = ?');
  }

  async create(m: Member, effects?: WriteEffects): Promise<void> {
    const insert = () =>
      this.insert.run(m.id, m.tenantId, m.userId, m.role, nul(m.createdBy), m.createdAt.getTime(), nul(m.modifiedBy), ms(m.modifiedAt));
    this.effects.guarded(insert, () => true, effects);
  }

  async findById(tenantId: string, id: string): Promise<Member | undefined> {
    const row = this.byId.get(tenantId, id) as MemberRow | undefined;
    return row && toMember(row);
  }

  async findByUser(tenantId: string, userId: string): Promise<Member | undefined> {
    const row = this.byUser.get(tenantId, userId) as MemberRow | undefined;
    return row && toMember(row);
  }

  async list(tenantId: string, filter: MemberFilter, page: PageRequest): Promise<Page<Member>> {
    let where = 'tenant_id = ?';
    const params: unknown[] = [tenantId];
    if (filter.userIds) {
      where += ` AND user_id IN (${placeholders(filter.userIds.length)})`;
      params.push(...filter.userIds);
    }
    return selectPage<MemberRow, ReturnType<typeof toMember>>(this.db, 'members', where, params, page, toMember);
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.guarded(() => this.remove.run(tenantId, id).changes === 1, changed, effects);
  }
}

export class SqliteSystemRepository implements SystemRepository {
  private readonly claim: Statement;
  private readonly unclaim: Statement;

  constructor(db: Database) {
    this.claim = db.prepare('INSERT OR IGNORE INTO system_flags (name, claimed_at) VALUES (?, ?)');
    this.unclaim = db.prepare('DELETE FROM system_flags WHERE name = ?');
  }

  async release(name: string): Promise<void> {
    this.unclaim.run(name);
  }

  async claimOnce(name: string): Promise<boolean> {
    return this.claim.run(name, Date.now()).changes === 1;
  }
}
