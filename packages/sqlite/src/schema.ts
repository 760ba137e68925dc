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
  `
  CREATE TABLE data_keys (tenant_id TEXT PRIMARY KEY, wrapped BLOB NOT NULL, created_at INTEGER NOT NULL);
  CREATE TABLE tokens (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, sealed_data BLOB NOT NULL,
    mask TEXT, container TEXT NOT NULL, containers TEXT NOT NULL, metadata TEXT NOT NULL, search_indexes TEXT,
    fingerprint_expression TEXT NOT NULL, fingerprint TEXT NOT NULL, deduplicate_token INTEGER,
    created_by TEXT NOT NULL, created_at INTEGER NOT NULL, modified_by TEXT, modified_at INTEGER,
    expires_at INTEGER, cvc_expires_at INTEGER,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX tokens_by_fingerprint ON tokens (tenant_id, fingerprint, type, created_at);
  CREATE INDEX tokens_by_created ON tokens (tenant_id, created_at DESC, id DESC);
  CREATE INDEX tokens_by_expiry ON tokens (expires_at) WHERE expires_at IS NOT NULL;
  CREATE INDEX tokens_by_cvc ON tokens (cvc_expires_at) WHERE cvc_expires_at IS NOT NULL;
  CREATE TABLE token_index_hashes (
    tenant_id TEXT NOT NULL, hash TEXT NOT NULL, token_id TEXT NOT NULL, PRIMARY KEY (tenant_id, hash, token_id)
  ) WITHOUT ROWID;
  CREATE TABLE token_metadata (
    tenant_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, token_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, key, value, token_id)
  ) WITHOUT ROWID;
  CREATE INDEX token_metadata_by_token ON token_metadata (tenant_id, token_id);
  CREATE INDEX token_index_hashes_by_token ON token_index_hashes (tenant_id, token_id);
  `,
  `
  CREATE INDEX tokens_by_container ON tokens (tenant_id, container, created_at);
  CREATE INDEX tokens_by_type ON tokens (tenant_id, type, created_at);
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
