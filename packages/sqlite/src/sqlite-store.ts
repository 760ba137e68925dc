import { type BatchObserver, BatchingWriter } from './write-queue';
import type { Database } from 'better-sqlite3';
import type { Store, StoreFault } from '@svc/core';
import { claimExclusively, openConnection } from './connection';
import { interruptedRestores } from './backup';
import { basename, dirname, join } from 'node:path';
import { InProcessTokenWriter } from './in-process-writer';
import { migrate } from './schema';
import { ThreadTokenWriter, workerScript } from './thread-writer';
import type { TokenWriter } from './write-queue';
import { readerScript, SearchReaders } from './search-readers';
import { Checkpointer, checkpointScript, WRITER_AUTOCHECKPOINT_PAGES } from './checkpointer';
import { SqliteApplicationRepository } from './sqlite-application.repository';
import { SqliteDataKeyRepository } from './sqlite-data-key.repository';
import { SqliteTokenRepository } from './sqlite-token.repository';
import { AuditKeyCourier } from './audit-key-courier';
import { AuditChainWrites } from './audit-chain-writes';
import { SqliteSessionRepository } from './sqlite-session.repository';
import { SqliteInvitationRepository } from './sqlite-invitation.repository';
import { SqliteTokenIntentRepository } from './sqlite-token-intent.repository';
import { SqliteIdempotencyRepository } from './sqlite-idempotency.repository';
import { SqliteWebhookRepository } from './sqlite-webhook.repository';
import { SqliteProxyRepository } from './sqlite-proxy.repository';
import { SqliteWebhookDeliveryRepository } from './sqlite-webhook-delivery.repository';
import { SqliteAuditLogRepository } from './sqlite-audit-log.repository';
import { EffectWrites } from './effect-writes';
import { SqliteMemberRepository, SqliteSystemRepository, SqliteTenantRepository, SqliteUserRepository } from './sqlite-directory';

export interface SqliteStoreOptions {
  /** Path of the database file; created with its directory when missing. */
  readonly file: string;
  /**
   * Side-table matches above which a search leaf filters instead of driving the query (default 2,000). Tests set
   * it to 0 to run the search contract through the filtering path as well.
   */
  readonly broadLeafThreshold?: number;
  /**
   * Commit token writes on a writer thread with its own connection, so the event loop never waits for fsync
   * (default true; falls back to this thread when the compiled worker is not there).
   */
  readonly writerThread?: boolean;
  /** Searches run on this many reader threads with their own connections (default 0: on this thread). */
  readonly searchReaders?: number;
  /**
   * Claims the file for this process alone (default false): `svc serve` and `svc keys rotate` open it so, and a
   * second such opener fails at once (two servers would contend for one writer; a rotation under a running server
   * would leave new tenants' data keys wrapped under the old master key). `svc tenants create` opens the file
   * without it while the server runs.
   */
  readonly exclusive?: boolean;
}

/** The store fault a SQLite error shows by its code (SqliteStore.fault). */
export function sqliteFault(error: unknown): StoreFault | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === 'SQLITE_FULL') return 'full';
  if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) return 'damaged';
  return undefined;
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
  readonly tokenIntents: SqliteTokenIntentRepository;
  readonly idempotency: SqliteIdempotencyRepository;
  readonly webhooks: SqliteWebhookRepository;
  readonly webhookDeliveries: SqliteWebhookDeliveryRepository;
  readonly auditLog: SqliteAuditLogRepository;
  readonly proxies: SqliteProxyRepository;

  constructor(
    readonly db: Database,
    private readonly writer: TokenWriter,
    broadLeafThreshold = 2_000,
    private readonly readers?: SearchReaders,
    private readonly claim?: Database,
    private readonly checkpointer?: Checkpointer,
  ) {
    // Write effects (ADR 4) of the main connection's writes: statements prepared once, shared by its repositories.
    const chains = new AuditChainWrites(db);
    const effects = new EffectWrites(db, chains);
    this.tenants = new SqliteTenantRepository(db);
    this.users = new SqliteUserRepository(db);
    this.members = new SqliteMemberRepository(db, effects);
    this.applications = new SqliteApplicationRepository(db, effects);
    this.system = new SqliteSystemRepository(db);
    this.dataKeys = new SqliteDataKeyRepository(db);
    const courier = new AuditKeyCourier();
    this.tokens = new SqliteTokenRepository(db, writer, broadLeafThreshold, readers, courier);
    this.sessions = new SqliteSessionRepository(db, effects);
    this.invitations = new SqliteInvitationRepository(db, effects);
    this.tokenIntents = new SqliteTokenIntentRepository(db, effects);
    this.idempotency = new SqliteIdempotencyRepository(db);
    this.webhooks = new SqliteWebhookRepository(db, effects);
    this.webhookDeliveries = new SqliteWebhookDeliveryRepository(db);
    this.proxies = new SqliteProxyRepository(db, effects);
    this.auditLog = new SqliteAuditLogRepository(db, writer, courier, chains);
  }

  /** Tells `observer` of each batch the writer commits (GET /metrics); nothing is timed until this is called. */
  observeWrites(observer: BatchObserver): void {
    if (this.writer instanceof BatchingWriter) this.writer.observeBatches(observer);
  }

  /** A read on the main connection, and a round trip through the writer (an empty transaction: no fsync). */
  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    await this.writer.run({ op: 'ping' });
  }

  /**
   * SQLite's own codes, which the writer thread's errors carry across too: no room on the disk (`SQLITE_FULL`: the
   * statement and its transaction were rolled back), or a file that is not the database it was (`SQLITE_CORRUPT`,
   * `SQLITE_NOTADB`).
   */
  fault(error: unknown): StoreFault | undefined {
    return sqliteFault(error);
  }

  /** Stops the threads, then closes the connection and, last, releases the claim, even when a thread fails to stop. */
  async close(): Promise<void> {
    try {
      await this.writer.close();
      await this.readers?.close();
      await this.checkpointer?.close();
    } finally {
      if (this.db.open) this.db.close();
      if (this.claim?.open) this.claim.close();
    }
  }
}

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  // Any opening, the server's or a command's (`svc tenants create` would make a store beside the copy too).
  const left = interruptedRestores(options.file);
  if (left.length > 0) {
    throw new Error(
      `${join(dirname(options.file), left[0]!)} is a restore's copy and there is no ${basename(options.file)}: a restore is running, or one was interrupted. Run svc restore again (it clears the copy), or remove the copy to start an empty store.`,
    );
  }
  const claim = options.exclusive ? claimExclusively(options.file) : undefined;
  let db: Database | undefined;
  try {
    db = openConnection(options.file, { memoryMap: false });
    migrate(db);
    // The file is this process's alone: a delivery still leased was leased by a process that died (a crash), and is
    // due again now rather than when its lease would have run out.
    if (claim) db.prepare('UPDATE webhook_deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL').run();
    const script = options.writerThread === false ? undefined : workerScript();
    // With a writer thread, checkpoints run on a thread of their own, so commits never wait behind one.
    const checkpoints = script ? checkpointScript() : undefined;
    const checkpointer = checkpoints ? new Checkpointer(options.file, checkpoints) : undefined;
    const writer = script ? new ThreadTokenWriter(options.file, script, checkpointer ? WRITER_AUTOCHECKPOINT_PAGES : undefined) : new InProcessTokenWriter(db);
    const readerFile = (options.searchReaders ?? 0) > 0 ? readerScript() : undefined;
    const readers = readerFile ? new SearchReaders(options.file, readerFile, options.searchReaders!, options.broadLeafThreshold ?? 2_000) : undefined;
    return new SqliteStore(db, writer, options.broadLeafThreshold, readers, claim, checkpointer);
  } catch (error) {
    if (db?.open) db.close();
    claim?.close();
    throw error;
  }
}
