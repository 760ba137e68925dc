import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { Store } from '@svc/core';
import { migrate } from './schema';
import { WriteQueue } from './write-queue';
import { SqliteApplicationRepository } from './sqlite-application.repository';
import { SqliteDataKeyRepository } from './sqlite-data-key.repository';
import { SqliteTokenRepository } from './sqlite-token.repository';
import { SqliteSessionRepository } from './sqlite-session.repository';
import { SqliteInvitationRepository } from './sqlite-invitation.repository';
import { SqliteMemberRepository, SqliteSystemRepository, SqliteTenantRepository, SqliteUserRepository } from './sqlite-directory';

export interface SqliteStoreOptions {
  /** Path of the database file; created with its directory when missing. */
  readonly file: string;
  /**
   * Side-table matches above which a search leaf filters instead of driving the query (default 2,000). Tests set
   * it to 0 to run the search contract through the filtering path as well.
   */
  readonly broadLeafThreshold?: number;
}

/**
 * The embedded store: one SQLite file in WAL mode, so readers never block the writer and several processes
 * (a running `svc serve` and `svc tenants create`) can share it. The schema is created or migrated on open.
 */
export class SqliteStore implements Store {
  readonly tenants: SqliteTenantRepository;
  readonly users: SqliteUserRepository;
  readonly members: SqliteMemberRepository;
  readonly applications: SqliteApplicationRepository;
  readonly system: SqliteSystemRepository;
  readonly dataKeys: SqliteDataKeyRepository;
  readonly tokens: SqliteTokenRepository;
  readonly sessions: SqliteSessionRepository;
  readonly invitations: SqliteInvitationRepository;

  constructor(
    readonly db: Database,
    broadLeafThreshold = 2_000,
  ) {
    this.tenants = new SqliteTenantRepository(db);
    this.users = new SqliteUserRepository(db);
    this.members = new SqliteMemberRepository(db);
    this.applications = new SqliteApplicationRepository(db);
    this.system = new SqliteSystemRepository(db);
    this.dataKeys = new SqliteDataKeyRepository(db);
    this.tokens = new SqliteTokenRepository(db, new WriteQueue(db), broadLeafThreshold);
    this.sessions = new SqliteSessionRepository(db);
    this.invitations = new SqliteInvitationRepository(db);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  mkdirSync(dirname(options.file), { recursive: true });
  const db = new BetterSqlite3(options.file);
  db.pragma('journal_mode = WAL');
  // FULL: a write acknowledged to a client survives power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Reads come from the page cache or a memory map rather than read(2) calls; sizes are upper bounds, not allocations.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  migrate(db);
  return new SqliteStore(db, options.broadLeafThreshold);
}
