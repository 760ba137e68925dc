import type { Database, Statement } from 'better-sqlite3';
import type { AccessRule, Permission, Session, SessionGrant, SessionRepository, WriteEffects } from '@svc/core';
import { changed, EffectWrites } from './effect-writes';
import { date } from './rows';

interface SessionRow {
  id: string;
  tenant_id: string;
  application_id: string;
  key_hash: string;
  nonce_hash: string;
  created_at: number;
  expires_at: number;
  authorized_at: number | null;
  permissions: string;
  rules: string;
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  tenantId: row.tenant_id,
  applicationId: row.application_id,
  keyHash: row.key_hash,
  nonceHash: row.nonce_hash,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
  authorizedAt: date(row.authorized_at),
  permissions: JSON.parse(row.permissions) as Permission[],
  rules: JSON.parse(row.rules) as AccessRule[],
});

/** Sessions: key and nonce hashes are UNIQUE and indexed; authorization is a conditional UPDATE, so it happens once. */
export class SqliteSessionRepository implements SessionRepository {
  private readonly insert: Statement;
  private readonly byKey: Statement;
  private readonly byNonce: Statement;
  private readonly grant: Statement;
  private readonly expired: Statement;
  private readonly byApplication: Statement;

  constructor(
    db: Database,
    private readonly effects = new EffectWrites(db),
  ) {
    this.insert = db.prepare(`INSERT INTO sessions (id, tenant_id, application_id, key_hash, nonce_hash, created_at, expires_at,
      authorized_at, permissions, rules) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.byKey = db.prepare('SELECT * FROM sessions WHERE key_hash = ?');
    this.byNonce = db.prepare('SELECT * FROM sessions WHERE nonce_hash = ?');
    this.grant = db.prepare(`UPDATE sessions SET permissions = ?, rules = ?, expires_at = ?, authorized_at = ?
      WHERE tenant_id = ? AND id = ? AND authorized_at IS NULL`);
    this.expired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
    this.byApplication = db.prepare('DELETE FROM sessions WHERE tenant_id = ? AND application_id = ?');
  }

  async create(s: Session, effects?: WriteEffects): Promise<void> {
    const insert = () =>
      this.insert.run(s.id, s.tenantId, s.applicationId, s.keyHash, s.nonceHash, s.createdAt.getTime(), s.expiresAt.getTime(),
        s.authorizedAt ? s.authorizedAt.getTime() : null, JSON.stringify(s.permissions), JSON.stringify(s.rules));
    this.effects.guarded(insert, () => true, effects);
  }

  async findByKeyHash(keyHash: string): Promise<Session | undefined> {
    const row = this.byKey.get(keyHash) as SessionRow | undefined;
    return row && toSession(row);
  }

  async findByNonceHash(nonceHash: string): Promise<Session | undefined> {
    const row = this.byNonce.get(nonceHash) as SessionRow | undefined;
    return row && toSession(row);
  }

  async authorize(tenantId: string, id: string, g: SessionGrant, effects?: WriteEffects): Promise<boolean> {
    const grant = () =>
      this.grant.run(JSON.stringify(g.permissions), JSON.stringify(g.rules), g.expiresAt.getTime(), g.authorizedAt.getTime(), tenantId, id).changes === 1;
    return this.effects.guarded(grant, changed, effects);
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.expired.run(now.getTime()).changes;
  }

  async deleteByApplication(tenantId: string, applicationId: string): Promise<number> {
    return this.byApplication.run(tenantId, applicationId).changes;
  }
}
