import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';

/** Opens a connection with the store's settings; every connection to the file (main and writer thread) uses them. */
export function openConnection(file: string): Database {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  ownerOnly(file);
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  // FULL: a write acknowledged to a client survives power loss, not only a process crash.
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Reads come from the page cache or a memory map rather than read(2) calls; sizes are upper bounds, not allocations.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  return db;
}

/**
 * The database holds ciphertext, wrapped keys and metadata: readable by the owner only. SQLite creates the -wal and
 * -shm files with the mode of the database file, so creating that file 0600 covers all three.
 */
function ownerOnly(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path) && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  }
}
