import { chmodSync, closeSync, existsSync, mkdirSync, openSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';

export interface ConnectionOptions {
  /**
   * Read pages through a memory map (default true). The main thread's connection turns it off: whenever another
   * connection (the writer thread) has committed, SQLite drops a reader's map at its next read transaction, and the
   * munmap with its cross-core TLB flush cost more per authenticated request than the reads it saved.
   */
  readonly memoryMap?: boolean;
}

/** Opens a connection with the store's settings; every connection to the file (main, writer and readers) uses them. */
export function openConnection(file: string, options: ConnectionOptions = {}): Database {
  ownerOnly(file);
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  // FULL: a write acknowledged to a client survives power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Reads come from the page cache or a memory map rather than read(2) calls; sizes are upper bounds, not allocations.
  db.pragma('cache_size = -65536');
  db.pragma(`mmap_size = ${options.memoryMap === false ? 0 : 268435456}`);
  return db;
}

/**
 * Creates `file` (and its directory, 0700) when missing. The database holds ciphertext, wrapped keys and metadata:
 * readable by the owner only. SQLite creates the -wal and -shm files with the mode of the database file, so creating
 * that file 0600 covers all three.
 */
function ownerOnly(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path) && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  }
}

/** The store is claimed by another process: a second `svc serve`, or a rotation or restore beside a running one. */
export class StoreInUseError extends Error {
  override readonly name = 'StoreInUseError';

  constructor(readonly file: string) {
    super(`another svc process (serve or keys rotate) is using ${file}; the SQLite store serves one process (use MongoDB for several)`);
  }
}

/**
 * Claims `file` for one process (the server, or a key rotation): an exclusive lock on a companion file, held by an
 * open transaction until the returned connection closes or the process dies (the kernel drops the lock). A second
 * claim, from any process, fails at once.
 */
export function claimExclusively(file: string): Database {
  ownerOnly(file);
  // Named after the real file, so a symlinked database or data directory claims the same lock.
  return claimLock(`${realpathSync(file)}.lock`, file);
}

/**
 * The claim {@link claimExclusively} takes, for a `file` that does not exist yet (a restore writes it): the same lock
 * file, named after the real directory, without creating `file`. Its directory is created (0700) when missing.
 */
export function claimBeforeCreating(file: string): Database {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  return claimLock(join(realpathSync(dirname(file)), `${basename(file)}.lock`), file);
}

function claimLock(lockFile: string, file: string): Database {
  ownerOnly(lockFile);
  const lock = new BetterSqlite3(lockFile, { timeout: 0 });
  try {
    // Nothing is ever written; the transaction exists only to hold the lock. A journal in memory leaves no
    // `-journal` file beside it (OFF is refused: better-sqlite3 runs SQLite in defensive mode).
    lock.pragma('journal_mode = MEMORY');
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new StoreInUseError(file);
    throw error;
  }
  return lock;
}
