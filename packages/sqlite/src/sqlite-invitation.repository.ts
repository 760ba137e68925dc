import type { Database, Statement } from 'better-sqlite3';
import type { Invitation, InvitationFilter, InvitationRepository, Page, PageRequest, SecretHashCondition, WriteEffects } from '@svc/core';
import { changed, EffectWrites } from './effect-writes';
import { date, ms, nul, opt, selectPage } from './rows';

interface InvitationRow {
  id: string;
  tenant_id: string;
  email: string;
  secret_hash: string;
  created_by: string | null;
  created_at: number;
  modified_by: string | null;
  modified_at: number | null;
  expires_at: number;
}

const toInvitation = (row: InvitationRow): Invitation => ({
  id: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  secretHash: row.secret_hash,
  createdBy: opt(row.created_by),
  createdAt: new Date(row.created_at),
  modifiedBy: opt(row.modified_by),
  modifiedAt: date(row.modified_at),
  expiresAt: new Date(row.expires_at),
});

/** Invitations: (tenant, e-mail) is UNIQUE, so two concurrent invitations of one address yield one. */
export class SqliteInvitationRepository implements InvitationRepository {
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly bySecret: Statement;
  private readonly byEmail: Statement;
  private readonly replace: Statement;
  private readonly replaceIf: Statement;
  private readonly remove: Statement;
  private readonly removeIf: Statement;

  constructor(
    private readonly db: Database,
    private readonly effects = new EffectWrites(db),
  ) {
    this.insert = db.prepare(`INSERT OR IGNORE INTO invitations (id, tenant_id, email, secret_hash, created_by, created_at,
      modified_by, modified_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.byId = db.prepare('SELECT * FROM invitations WHERE tenant_id = ? AND id = ?');
    this.bySecret = db.prepare('SELECT * FROM invitations WHERE secret_hash = ?');
    this.byEmail = db.prepare('SELECT * FROM invitations WHERE tenant_id = ? AND email = ?');
    const set = 'UPDATE invitations SET secret_hash = ?, modified_by = ?, modified_at = ?, expires_at = ?';
    this.replace = db.prepare(`${set} WHERE tenant_id = ? AND id = ?`);
    // The condition is in the statement's WHERE, so checking and writing are one atomic step.
    this.replaceIf = db.prepare(`${set} WHERE tenant_id = ? AND id = ? AND secret_hash = ?`);
    this.remove = db.prepare('DELETE FROM invitations WHERE tenant_id = ? AND id = ?');
    this.removeIf = db.prepare('DELETE FROM invitations WHERE tenant_id = ? AND id = ? AND secret_hash = ?');
  }

  async create(i: Invitation, effects?: WriteEffects): Promise<boolean> {
    const insert = () =>
      this.insert.run(i.id, i.tenantId, i.email, i.secretHash, nul(i.createdBy), i.createdAt.getTime(), nul(i.modifiedBy),
        ms(i.modifiedAt), i.expiresAt.getTime()).changes === 1;
    return this.effects.guarded(insert, changed, effects);
  }

  async findById(tenantId: string, id: string): Promise<Invitation | undefined> {
    const row = this.byId.get(tenantId, id) as InvitationRow | undefined;
    return row && toInvitation(row);
  }

  async findBySecretHash(secretHash: string): Promise<Invitation | undefined> {
    const row = this.bySecret.get(secretHash) as InvitationRow | undefined;
    return row && toInvitation(row);
  }

  async findByEmail(tenantId: string, email: string): Promise<Invitation | undefined> {
    const row = this.byEmail.get(tenantId, email) as InvitationRow | undefined;
    return row && toInvitation(row);
  }

  async list(tenantId: string, filter: InvitationFilter, page: PageRequest): Promise<Page<Invitation>> {
    let where = 'tenant_id = ?';
    const params: unknown[] = [tenantId];
    if (filter.status === 'PENDING') where += ' AND expires_at > ?';
    if (filter.status === 'EXPIRED') where += ' AND expires_at <= ?';
    if (filter.status) params.push(filter.now.getTime());
    return selectPage<InvitationRow, ReturnType<typeof toInvitation>>(this.db, 'invitations', where, params, page, toInvitation);
  }

  async update(i: Invitation, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean> {
    const values = [i.secretHash, nul(i.modifiedBy), ms(i.modifiedAt), i.expiresAt.getTime(), i.tenantId, i.id];
    const update = () => (condition ? this.replaceIf.run(...values, condition.expectedSecretHash) : this.replace.run(...values)).changes === 1;
    return this.effects.guarded(update, changed, effects);
  }

  async delete(tenantId: string, id: string, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean> {
    const remove = () =>
      (condition ? this.removeIf.run(tenantId, id, condition.expectedSecretHash) : this.remove.run(tenantId, id)).changes === 1;
    return this.effects.guarded(remove, changed, effects);
  }
}
