import type { Database, Statement } from 'better-sqlite3';
import type { StoredTokenIntent, TokenIntentRepository, TokenIntentType, WriteEffects } from '@svc/core';
import { EffectWrites } from './effect-writes';

interface TokenIntentRow {
  tenant_id: string;
  id: string;
  type: string;
  sealed_data: Buffer;
  fingerprint: string;
  created_by: string;
  created_at: number;
  expires_at: number;
}

const toIntent = (row: TokenIntentRow): StoredTokenIntent => ({
  id: row.id,
  tenantId: row.tenant_id,
  type: row.type as TokenIntentType,
  sealedData: new Uint8Array(row.sealed_data),
  fingerprint: row.fingerprint,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
});

/**
 * Token intents on the main connection. A take is one `DELETE … RETURNING` statement: SQLite runs it as one write
 * transaction, so of concurrent takes (from this process or another) exactly one deletes the row and gets it back.
 */
export class SqliteTokenIntentRepository implements TokenIntentRepository {
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly takeLive: Statement;
  private readonly expired: Statement;

  constructor(
    db: Database,
    private readonly effects = new EffectWrites(db),
  ) {
    this.insert = db.prepare(`INSERT INTO token_intents (tenant_id, id, type, sealed_data, fingerprint, created_by, created_at, expires_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    this.byId = db.prepare('SELECT * FROM token_intents WHERE tenant_id = ? AND id = ? AND expires_at > ?');
    this.takeLive = db.prepare('DELETE FROM token_intents WHERE tenant_id = ? AND id = ? AND expires_at > ? RETURNING *');
    this.expired = db.prepare('DELETE FROM token_intents WHERE expires_at <= ?');
  }

  async create(i: StoredTokenIntent, effects?: WriteEffects): Promise<void> {
    const insert = () =>
      this.insert.run(i.tenantId, i.id, i.type, Buffer.from(i.sealedData), i.fingerprint, i.createdBy, i.createdAt.getTime(), i.expiresAt.getTime());
    this.effects.guarded(insert, () => true, effects);
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredTokenIntent | undefined> {
    const row = this.byId.get(tenantId, id, now.getTime()) as TokenIntentRow | undefined;
    return row && toIntent(row);
  }

  async take(tenantId: string, id: string, now: Date, effects?: WriteEffects): Promise<StoredTokenIntent | undefined> {
    const take = () => this.takeLive.get(tenantId, id, now.getTime()) as TokenIntentRow | undefined;
    const row = this.effects.guarded(take, (taken) => taken !== undefined, effects);
    return row && toIntent(row);
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.expired.run(now.getTime()).changes;
  }
}
