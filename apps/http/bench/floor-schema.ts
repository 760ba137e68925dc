/**
 * The floor's store (floor-server.ts): the vault's token row reduced to what a create, a read by id and a search by id
 * touch, with the vault's four indexes a create must maintain (fingerprint, created, container, type), and the
 * key-change counter every request reads.
 */
export const FLOOR_SCHEMA = `
  CREATE TABLE IF NOT EXISTS tokens (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, sealed_data BLOB NOT NULL, fingerprint TEXT NOT NULL,
    container TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX IF NOT EXISTS tokens_by_fingerprint ON tokens (tenant_id, fingerprint, type, created_at);
  CREATE INDEX IF NOT EXISTS tokens_by_created ON tokens (tenant_id, created_at DESC, id DESC, container, type, expires_at);
  CREATE INDEX IF NOT EXISTS tokens_by_container ON tokens (tenant_id, container, created_at, expires_at);
  CREATE INDEX IF NOT EXISTS tokens_by_type ON tokens (tenant_id, type, created_at, expires_at);
  CREATE TABLE IF NOT EXISTS key_changes (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
  INSERT OR IGNORE INTO key_changes (id, n) VALUES (1, 0);
`;

/** A token row as the floor inserts it: tenant, id, type, sealed data, fingerprint, container, created at (ms). */
export type FloorRow = [string, string, string, Buffer, string, string, number];

/** The insert of one {@link FloorRow}. */
export const FLOOR_INSERT =
  'INSERT INTO tokens (tenant_id, id, type, sealed_data, fingerprint, container, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
