import type { Database } from 'better-sqlite3';
import { metadataIndex } from './metadata-index';

/**
 * Fixed planner statistics. SQLite plans from `sqlite_stat1`; without it, it assumes every `tenant_id = ?` is
 * selective and may scan a whole tenant instead of seeking the few tokens a blind index or metadata pair names.
 * These rows describe a large tenant (many tokens per tenant, few per hash, id or fingerprint), so plans are the
 * same on an empty file and on a full one. They are written once and never replaced by ANALYZE.
 */
const PLANNER_STATISTICS = `
  -- Analyzing a tiny table is the way to have SQLite create sqlite_stat1.
  ANALYZE system_flags;
  DELETE FROM sqlite_stat1 WHERE tbl IN ('tokens', 'token_index_hashes', 'token_metadata');
  INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('tokens', 'sqlite_autoindex_tokens_1', '1000000 1000000 1'),
    ('tokens', 'tokens_by_created', '1000000 1000000 2 1 1 1 1'),
    ('tokens', 'tokens_by_container', '1000000 1000000 100000 2'),
    ('tokens', 'tokens_by_type', '1000000 1000000 125000 2'),
    ('tokens', 'tokens_by_fingerprint', '1000000 1000000 2 2 1'),
    ('tokens', 'tokens_by_expiry', '1000000 10'),
    ('tokens', 'tokens_by_cvc', '1000000 10'),
    ('token_index_hashes', 'token_index_hashes', '3000000 3000000 3 1'),
    ('token_index_hashes', 'token_index_hashes_by_token', '3000000 3000000 3'),
    ('token_metadata', 'token_metadata', '2000000 2000000 200000 20 1'),
    ('token_metadata', 'token_metadata_by_token', '2000000 2000000 2');
`;

/**
 * Several keys per application (migration 11): keys move to their own table, each application's one key becoming
 * its first key there (a new random UUID as its id, the application's creation as its own), and the applications
 * table is rebuilt without its key column. Deleting an application deletes its keys (a trigger, so a delete by hand
 * in SQL does too). Deleting or changing a key counts as a change of applications, so remembered key look-ups see a
 * revocation at once; adding one does not (a key that was not found is never remembered). The count moves once
 * more at the end: the look-ups a process remembered were read from the table this migration replaced.
 */
const APPLICATION_KEYS = `
  CREATE TABLE application_keys (
    id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, application_id TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE,
    created_by TEXT, created_at INTEGER NOT NULL
  );
  CREATE INDEX application_keys_by_application ON application_keys (tenant_id, application_id, created_at DESC, id DESC);
  INSERT INTO application_keys
    SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
        || substr('89ab', 1 + abs(random() % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
      tenant_id, id, key_hash, created_by, created_at
    FROM applications;
  CREATE TABLE applications_without_keys (
    id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
    permissions TEXT NOT NULL, rules TEXT NOT NULL,
    created_by TEXT, created_at INTEGER NOT NULL, modified_by TEXT, modified_at INTEGER, expires_at INTEGER
  );
  INSERT INTO applications_without_keys
    SELECT id, tenant_id, name, type, permissions, rules, created_by, created_at, modified_by, modified_at, expires_at
    FROM applications;
  DROP TABLE applications;
  ALTER TABLE applications_without_keys RENAME TO applications;
  CREATE INDEX applications_by_tenant ON applications (tenant_id, created_at DESC, id DESC);
  CREATE INDEX applications_by_expiry ON applications (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TRIGGER applications_updated AFTER UPDATE ON applications
    BEGIN UPDATE application_changes SET n = n + 1 WHERE id = 1; END;
  CREATE TRIGGER applications_deleted AFTER DELETE ON applications
    BEGIN
      DELETE FROM application_keys WHERE tenant_id = OLD.tenant_id AND application_id = OLD.id;
      UPDATE application_changes SET n = n + 1 WHERE id = 1;
    END;
  CREATE TRIGGER application_keys_updated AFTER UPDATE ON application_keys
    BEGIN UPDATE application_changes SET n = n + 1 WHERE id = 1; END;
  CREATE TRIGGER application_keys_deleted AFTER DELETE ON application_keys
    BEGIN UPDATE application_changes SET n = n + 1 WHERE id = 1; END;
  UPDATE application_changes SET n = n + 1 WHERE id = 1;
`;

/**
 * The audit log and the webhook outbox (migration 15, ADR 4). Events are stored per tenant, newest first for
 * `GET /logs`; those the chainer has not placed yet are found through a partial index, and a place in a tenant's chain
 * is taken once (UNIQUE). An anchor keeps, per tenant, the last event the retention sweep removed. A delivery is one
 * event on its way to one webhook; deleting a webhook deletes its deliveries (a trigger, so a delete by hand does too).
 */
const AUDIT_AND_OUTBOX = `
  CREATE TABLE audit_events (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, actor_id TEXT NOT NULL, actor_type TEXT NOT NULL, entity_type TEXT NOT NULL,
    entity_id TEXT, operation TEXT NOT NULL, outcome TEXT NOT NULL, message TEXT NOT NULL, trace_id TEXT,
    created_at INTEGER NOT NULL, chain_seq INTEGER, prev_hash TEXT, hash TEXT,
    PRIMARY KEY (tenant_id, id)
  ) WITHOUT ROWID;
  CREATE INDEX audit_events_by_created ON audit_events (tenant_id, created_at DESC, id DESC);
  CREATE INDEX audit_events_by_entity_type ON audit_events (tenant_id, entity_type, created_at DESC, id DESC);
  CREATE INDEX audit_events_by_entity_id ON audit_events (tenant_id, entity_id, created_at DESC, id DESC) WHERE entity_id IS NOT NULL;
  CREATE INDEX audit_events_unchained ON audit_events (tenant_id, created_at, id) WHERE chain_seq IS NULL;
  CREATE UNIQUE INDEX audit_events_by_chain ON audit_events (tenant_id, chain_seq) WHERE chain_seq IS NOT NULL;
  CREATE TABLE audit_anchors (tenant_id TEXT PRIMARY KEY, chain_seq INTEGER NOT NULL, hash TEXT NOT NULL);
  CREATE TABLE webhook_deliveries (
    tenant_id TEXT NOT NULL, webhook_id TEXT NOT NULL, event_id TEXT NOT NULL, event_type TEXT NOT NULL, event TEXT NOT NULL,
    status TEXT NOT NULL, attempts TEXT NOT NULL, next_attempt_at INTEGER, lease_until INTEGER, created_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, webhook_id, event_id)
  ) WITHOUT ROWID;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (tenant_id, webhook_id, created_at DESC, event_id DESC);
  CREATE TRIGGER webhooks_deleted AFTER DELETE ON webhooks
    BEGIN DELETE FROM webhook_deliveries WHERE tenant_id = OLD.tenant_id AND webhook_id = OLD.id; END;
`;

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
  `
  DROP INDEX tokens_by_created;
  CREATE INDEX tokens_by_created ON tokens (tenant_id, created_at DESC, id DESC, container, type, expires_at);
  `,
  PLANNER_STATISTICS,
  `
  ALTER TABLE tokens ADD COLUMN metadata_index TEXT NOT NULL DEFAULT '';
  DROP INDEX tokens_by_type;
  CREATE INDEX tokens_by_type ON tokens (tenant_id, type, created_at, expires_at);
  DROP INDEX tokens_by_container;
  CREATE INDEX tokens_by_container ON tokens (tenant_id, container, created_at, expires_at);
  `,
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, application_id TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE, nonce_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, authorized_at INTEGER,
    permissions TEXT NOT NULL, rules TEXT NOT NULL
  );
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);
  CREATE INDEX sessions_by_application ON sessions (tenant_id, application_id);
  CREATE TABLE invitations (
    id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, email TEXT NOT NULL COLLATE NOCASE, secret_hash TEXT NOT NULL UNIQUE,
    created_by TEXT, created_at INTEGER NOT NULL, modified_by TEXT, modified_at INTEGER, expires_at INTEGER NOT NULL,
    UNIQUE (tenant_id, email)
  );
  CREATE INDEX invitations_by_tenant ON invitations (tenant_id, created_at DESC, id DESC);
  `,
  `
  DROP INDEX tokens_by_type;
  CREATE INDEX tokens_by_type ON tokens (tenant_id, type, created_at, expires_at, metadata_index);
  `,
  // Counts changes to applications, whoever makes them (this process, another, a migration, the sqlite3 shell):
  // remembered API key look-ups are checked against it on every request.
  `
  CREATE TABLE application_changes (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
  INSERT INTO application_changes VALUES (1, 0);
  CREATE TRIGGER applications_updated AFTER UPDATE ON applications
    BEGIN UPDATE application_changes SET n = n + 1 WHERE id = 1; END;
  CREATE TRIGGER applications_deleted AFTER DELETE ON applications
    BEGIN UPDATE application_changes SET n = n + 1 WHERE id = 1; END;
  `,
  // Token writes compare-and-set on the version they read (see TokenRepository.update); tokens stored before start at 0.
  `
  ALTER TABLE tokens ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
  `,
  APPLICATION_KEYS,
  // Token intents (migration 12): card or bank data sealed for a day, until it becomes a token.
  `
  CREATE TABLE token_intents (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, sealed_data BLOB NOT NULL, fingerprint TEXT NOT NULL,
    created_by TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX token_intents_by_expiry ON token_intents (expires_at);
  `,
  // Idempotency keys (migration 13): a running claim or a kept answer (sealed), per tenant, caller and key.
  `
  CREATE TABLE idempotency_keys (
    tenant_id TEXT NOT NULL, caller_id TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, claim_id TEXT NOT NULL,
    state TEXT NOT NULL, claimed_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, sealed_response BLOB,
    PRIMARY KEY (tenant_id, caller_id, key)
  );
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
  `,
  // Webhooks (migration 14): the signing secret only sealed with the tenant's key; listed newest first per tenant.
  `
  CREATE TABLE webhooks (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL,
    status TEXT NOT NULL, notify_email TEXT, sealed_secret BLOB NOT NULL, created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL, modified_by TEXT, modified_at INTEGER,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX webhooks_by_created ON webhooks (tenant_id, created_at DESC, id DESC);
  `,
  AUDIT_AND_OUTBOX,
  // Audit chain heads (migration 16): each tenant's head as the chainer last moved it, so that a chain whose newest
  // events were deleted no longer matches it (verify names the cut) and the chainer never reuses their places.
  `
  CREATE TABLE audit_heads (tenant_id TEXT PRIMARY KEY, chain_seq INTEGER NOT NULL, hash TEXT NOT NULL);
  INSERT INTO audit_heads (tenant_id, chain_seq, hash)
    SELECT tenant_id, MAX(chain_seq), hash FROM audit_events WHERE chain_seq IS NOT NULL GROUP BY tenant_id;
  `,
  // Pre-configured proxies (migration 17): transforms as JSON, the configuration only sealed with the tenant's key,
  // the key only as its SHA-256 digest (unique across tenants: the key finds its proxy); listed newest first per tenant.
  `
  CREATE TABLE proxies (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, destination_url TEXT NOT NULL,
    request_transforms TEXT NOT NULL, response_transforms TEXT NOT NULL, application_id TEXT,
    sealed_configuration BLOB NOT NULL, require_auth INTEGER NOT NULL, timeout_seconds INTEGER,
    disable_detokenization INTEGER NOT NULL, key_hash TEXT NOT NULL UNIQUE, version INTEGER NOT NULL,
    created_by TEXT NOT NULL, created_at INTEGER NOT NULL, modified_by TEXT, modified_at INTEGER,
    PRIMARY KEY (tenant_id, id)
  );
  CREATE INDEX proxies_by_created ON proxies (tenant_id, created_at DESC, id DESC);
  `,
  // Metadata pairs sorted by their token's type and created_at (migration 18): a narrow pair's tokens are counted and
  // sorted in its own entries, and a pair with a type and a date range is one range of them (a count reads only the
  // matches, no token row). The table is rebuilt in its new order; a pair whose token is gone (none should be: every
  // write removes a token's pairs with it) is left behind. The planner statistics describe the new key.
  `
  CREATE TABLE token_metadata_sorted (
    tenant_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, type TEXT NOT NULL, created_at INTEGER NOT NULL,
    token_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, key, value, type, created_at, token_id)
  ) WITHOUT ROWID;
  INSERT INTO token_metadata_sorted (tenant_id, key, value, type, created_at, token_id)
    SELECT m.tenant_id, m.key, m.value, t.type, t.created_at, m.token_id
    FROM token_metadata m JOIN tokens t ON t.tenant_id = m.tenant_id AND t.id = m.token_id
    ORDER BY 1, 2, 3, 4, 5, 6;
  DROP TABLE token_metadata;
  ALTER TABLE token_metadata_sorted RENAME TO token_metadata;
  CREATE INDEX token_metadata_by_token ON token_metadata (tenant_id, token_id);
  DELETE FROM sqlite_stat1 WHERE tbl IN ('token_metadata', 'token_metadata_sorted');
  INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('token_metadata', 'token_metadata', '2000000 2000000 200000 20 10 1 1'),
    ('token_metadata', 'token_metadata_by_token', '2000000 2000000 2');
  `,
  // The bootstrap's completion (migration 19): a first start now marks it done once "Default" and its management key
  // exist, and a start that finds the bootstrap claimed but not done makes them again (a first start killed mid-way
  // left a store no key opens). Every store bootstrapped before this marker finished (or was made by `svc tenants
  // create`): it is marked done.
  `
  INSERT OR IGNORE INTO system_flags (name, claimed_at)
    SELECT 'bootstrap-done', claimed_at FROM system_flags WHERE name = 'bootstrap';
  `,
];

/** Migrations that need code: version reached → work to do after its SQL ran. */
export const DATA_MIGRATIONS: Readonly<Record<number, (db: Database) => void>> = {
  6: (db) => {
    const rows = db.prepare('SELECT tenant_id, id, metadata FROM tokens').iterate() as IterableIterator<{ tenant_id: string; id: string; metadata: string }>;
    const update = db.prepare('UPDATE tokens SET metadata_index = ? WHERE tenant_id = ? AND id = ?');
    const pending: Array<[string, string, string]> = [];
    for (const row of rows) pending.push([metadataIndex(JSON.parse(row.metadata) as Record<string, string>), row.tenant_id, row.id]);
    for (const args of pending) update.run(...args);
  },
};

/** The store was migrated by a newer svc than this one. */
export class StoreTooNewError extends Error {
  override readonly name = 'StoreTooNewError';

  constructor(readonly version: number) {
    super(`the store was migrated by a newer svc (schema version ${version}; this svc knows up to ${MIGRATIONS.length}): run that version, or restore a backup made before the upgrade`);
  }
}

/** The `user_version` of a store this svc has migrated: backups made by a newer svc are refused on restore. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema to `target` (default: the latest); tests stop earlier to build a file as an older svc left it. */
export function migrate(db: Database, target = MIGRATIONS.length): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  // A store a newer svc migrated has tables this one would write wrongly (a metadata pair without its type is dropped
  // by INSERT OR IGNORE, silently): refused, as a restore refuses such a backup.
  if (current > MIGRATIONS.length) throw new StoreTooNewError(current);
  for (let version = current; version < target; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      DATA_MIGRATIONS[version + 1]?.(db);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
  // Loads the statistics into this connection's planner.
  db.exec('ANALYZE sqlite_schema');
}
