import type { Database } from 'better-sqlite3';

/**
 * Schema migrations, applied in order on open; `PRAGMA user_version` records how many ran. Never edit a shipped
 * migration: append a new one. Times are stored as epoch milliseconds (INTEGER).
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE system_flags (name TEXT PRIMARY KEY, claimed_at INTEGER NOT NULL);
  CREATE TABLE tenants (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, owner_id TEXT NOT NULL, created_at INTEGER NOT NULL
  );
  CREATE TABLE users (
    id TEXT PRIMARY KEY, email TEXT NOT NULL COLLATE NOCASE UNIQUE, first_name TEXT, last_name TEXT, picture TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE members (
    id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL,
    created_by TEXT, created_at INTEGER NOT NULL, modified_by TEXT, modified_at INTEGER,
    UNIQUE (tenant_id, user_id)
  );
  CREATE INDEX members_by_tenant ON members (tenant_id, created_at DESC, id DESC);
  CREATE TABLE applications (
    id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
    permissions TEXT NOT NULL, rules TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE,
    created_by TEXT, created_at INTEGER NOT NULL, modified_by TEXT, modified_at INTEGER, expires_at INTEGER
  );
  CREATE INDEX applications_by_tenant ON applications (tenant_id, created_at DESC, id DESC);
  CREATE INDEX applications_by_expiry ON applications (expires_at) WHERE expires_at IS NOT NULL;
  `,
];

export function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
