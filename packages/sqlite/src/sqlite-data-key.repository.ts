import type { Database, Statement } from 'better-sqlite3';
import type { DataKeyRepository, WrappedDataKey } from '@svc/core';

interface DataKeyRow {
  tenant_id: string;
  wrapped: Buffer;
  created_at: number;
}

const toKey = (row: DataKeyRow): WrappedDataKey => ({ tenantId: row.tenant_id, wrapped: row.wrapped, createdAt: new Date(row.created_at) });

/** Wrapped tenant data keys; the insert ignores a concurrent winner and reads back whichever key was stored. */
export class SqliteDataKeyRepository implements DataKeyRepository {
  private readonly byTenant: Statement;
  private readonly insert: Statement;
  private readonly every: Statement;
  private readonly rewrap: Statement;

  constructor(db: Database) {
    this.byTenant = db.prepare('SELECT * FROM data_keys WHERE tenant_id = ?');
    this.insert = db.prepare('INSERT OR IGNORE INTO data_keys (tenant_id, wrapped, created_at) VALUES (?, ?, ?)');
    this.every = db.prepare('SELECT * FROM data_keys');
    this.rewrap = db.prepare('UPDATE data_keys SET wrapped = ? WHERE tenant_id = ?');
  }

  async find(tenantId: string): Promise<WrappedDataKey | undefined> {
    const row = this.byTenant.get(tenantId) as DataKeyRow | undefined;
    return row && toKey(row);
  }

  async createIfAbsent(key: WrappedDataKey): Promise<WrappedDataKey> {
    this.insert.run(key.tenantId, Buffer.from(key.wrapped), key.createdAt.getTime());
    return toKey(this.byTenant.get(key.tenantId) as DataKeyRow);
  }

  async all(): Promise<readonly WrappedDataKey[]> {
    return (this.every.all() as DataKeyRow[]).map(toKey);
  }

  async replace(key: WrappedDataKey): Promise<void> {
    this.rewrap.run(Buffer.from(key.wrapped), key.tenantId);
  }
}
