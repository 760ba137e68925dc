import { closeSync, constants, existsSync, fsyncSync, linkSync, openSync, readdirSync, realpathSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { claimBeforeCreating, StoreInUseError } from './connection';
import { SCHEMA_VERSION } from './schema';

/** A backup or restore refused for a reason its message gives (no store, a file in the way, not an svc store…). */
export class SqliteBackupError extends Error {
  override readonly name = 'SqliteBackupError';
}

/** Called as work goes on: how much is done out of `total` (pages for a backup, bytes for a restore). */
export type ProgressListener = (done: number, total: number) => void;

export interface SqliteBackupOptions {
  /** The store's database file (`svc.db`); it must exist. */
  readonly file: string;
  /** Where the copy goes; its directory must exist. */
  readonly destination: string;
  /** Replace `destination` when it exists (default false: refused, and it is left as it was). */
  readonly overwrite?: boolean;
  readonly onProgress?: ProgressListener;
  /** Stops the copy (a Ctrl-C): it is refused as interrupted, and nothing is left behind. */
  readonly signal?: AbortSignal;
}

export interface SqliteBackupResult {
  readonly pages: number;
  readonly bytes: number;
  /** The store's schema version (PRAGMA user_version) at the moment of the copy. */
  readonly schemaVersion: number;
}

/** Pages copied per step (4 MB at SQLite's default page size): the progress line moves a few times a second. */
const PAGES_PER_STEP = 1_024;

/**
 * An online, consistent copy of the store in `file`, also while `svc serve` writes to it (no lock is taken: the store
 * is in WAL mode, where a reader never blocks the writer). The copy reads one snapshot: a read transaction is open on
 * the source for the whole copy, so every step of SQLite's backup API reads the same committed state, and commits
 * that land meanwhile neither restart the copy (which, under a steady write load, never finished) nor enter it. The
 * WAL cannot be checkpointed past that snapshot until the copy ends, so it grows for that long.
 *
 * The copy is written to a temporary file beside `destination` (owner-only, 0600), made a single self-contained file
 * (rollback journal, not WAL), flushed to disk, and only then given its name: an interrupted backup never leaves a
 * half-written file under that name. Without `overwrite`, a `destination` that exists is refused, also one that
 * appeared while the copy ran.
 */
export async function backupSqliteStore(options: SqliteBackupOptions): Promise<SqliteBackupResult> {
  const { file, destination } = options;
  if (!existsSync(file)) throw new SqliteBackupError(`there is no store to back up: ${file} does not exist (check SVC_DATA_DIR)`);
  if (!options.overwrite && existsSync(destination)) throw new SqliteBackupError(`${destination} already exists`);
  if (!isDirectory(dirname(destination))) throw new SqliteBackupError(`the directory ${dirname(destination)} does not exist`);
  if (isDirectory(destination)) throw new SqliteBackupError(`${destination} is a directory`);
  const own = ['', '-wal', '-shm', '-journal', '.lock'].map((suffix) => realPath(`${file}${suffix}`));
  if (own.includes(realPath(destination))) throw new SqliteBackupError(`${destination} is one of the store's own files`);

  const temp = copyOf(destination, 'backup', process.pid);
  // What a backup to the same name killed before it ended (kill -9, a crash) left: its process is gone.
  removeLeftovers(dirname(destination), copiesOf(destination, 'backup'), (pid) => pid === process.pid || !isRunning(pid));
  const source = openExisting(file, 'the store');
  try {
    // Owner-only from the first byte: the copy holds ciphertext, wrapped keys, keyed hashes and metadata.
    closeSync(openSync(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600));
    // The snapshot: from this read on, the source connection reads this committed state until COMMIT.
    source.exec('BEGIN');
    const schemaVersion = svcSchemaVersion(source, file);
    const copied = await source.backup(temp, {
      progress: ({ totalPages, remainingPages }) => {
        stopIfAborted(options.signal);
        options.onProgress?.(totalPages - remainingPages, totalPages);
        return PAGES_PER_STEP;
      },
    });
    source.exec('COMMIT');
    options.onProgress?.(copied.totalPages, copied.totalPages);
    singleFile(temp);
    fsyncFile(temp);
    stopIfAborted(options.signal);
    publish(temp, destination, options.overwrite ?? false);
    return { pages: copied.totalPages, bytes: statSync(destination).size, schemaVersion };
  } catch (error) {
    removeDatabaseFiles(temp);
    throw error;
  } finally {
    if (source.open) source.close();
  }
}

export interface SqliteRestoreOptions {
  /** The backup to restore (made by {@link backupSqliteStore}, or a copy of a stopped store's `svc.db`). */
  readonly backup: string;
  /** The store's database file to create (`svc.db`); its directory must be empty but for `allowed` names. */
  readonly file: string;
  /**
   * Names that may already be in the directory (the caller's, such as `master.key`); the store's own lock file is
   * always allowed, since it holds no data.
   */
  readonly allowed?: readonly string[];
  /** A last check of the copy (the CLI opens its data keys with the master key); throwing refuses the restore. */
  readonly verify?: (db: Database) => Promise<void> | void;
  readonly onProgress?: ProgressListener;
  /** Stops the restore (a Ctrl-C): it is refused as interrupted, and the directory is left as it was. */
  readonly signal?: AbortSignal;
}

export interface SqliteRestoreResult {
  readonly bytes: number;
  readonly schemaVersion: number;
}

const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Restores a backup as the store `file`, into a directory that holds no store: the directory is claimed as
 * `svc serve` claims it (so no server or key rotation can start meanwhile), must hold nothing but `allowed` names, and
 * the backup is copied to a temporary file there, which must be an svc store (a schema version this svc knows) that
 * passes SQLite's integrity check and `verify`. It is then flushed to disk and linked as `file` in one step: a
 * failed restore leaves the directory as it found it, and none leaves a half-written `file`. The backup itself is
 * only read.
 */
export async function restoreSqliteStore(options: SqliteRestoreOptions): Promise<SqliteRestoreResult> {
  const { backup, file } = options;
  if (!existsSync(backup)) throw new SqliteBackupError(`${backup} does not exist`);
  if (!statSync(backup).isFile()) throw new SqliteBackupError(`${backup} is not a file`);
  if (statSync(backup).size === 0) throw new SqliteBackupError(`${backup} is empty`);
  const dir = dirname(file);
  const claim = claimRestoreTarget(file);
  const temp = copyOf(file, 'restore', process.pid);
  try {
    // The claim is held: no other restore is running, so a restore's copy found here is what one killed left.
    removeLeftovers(dir, copiesOf(file, 'restore'), () => true);
    const allowed = new Set([`${basename(file)}.lock`, ...(options.allowed ?? [])]);
    const present = readdirSync(dir).filter((name) => !allowed.has(name));
    if (present.length > 0) {
      const shown = present.sort().slice(0, 5).join(', ') + (present.length > 5 ? `, and ${present.length - 5} more` : '');
      throw new SqliteBackupError(`${dir} is not empty (${shown}): restore into an empty data directory`);
    }
    const bytes = await copyFile(backup, temp, options.onProgress, options.signal);
    const copy = openExisting(temp, backup);
    let schemaVersion: number;
    try {
      schemaVersion = svcSchemaVersion(copy, backup);
      const problems = (copy.pragma('integrity_check') as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
      if (problems.length !== 1 || problems[0] !== 'ok') {
        throw new SqliteBackupError(`${backup} fails SQLite's integrity check: ${problems.slice(0, 3).join('; ')}`);
      }
      await options.verify?.(copy);
    } catch (error) {
      throw asBackupError(error, backup);
    } finally {
      copy.close();
    }
    fsyncFile(temp);
    stopIfAborted(options.signal);
    publish(temp, file, false);
    return { bytes, schemaVersion };
  } catch (error) {
    removeDatabaseFiles(temp);
    throw error;
  } finally {
    claim.close();
  }
}

/** Claims the directory a restore writes into, as `svc serve` would; refuses while a server or rotation holds it. */
function claimRestoreTarget(file: string): Database {
  try {
    return claimBeforeCreating(file);
  } catch (error) {
    if (!(error instanceof StoreInUseError)) throw error;
    throw new SqliteBackupError(`${dirname(file)} is in use by a running svc serve (or keys rotate): a restore goes into an empty data directory that no server uses`);
  }
}

/** Opens an existing database file, refusing (rather than creating) a missing one. */
function openExisting(file: string, name: string): Database {
  try {
    const db = new BetterSqlite3(file, { fileMustExist: true, timeout: 5_000 });
    db.pragma('busy_timeout = 5000');
    return db;
  } catch (error) {
    throw asBackupError(error, name);
  }
}

/** The svc schema version of `db`; refuses a file that is not an SQLite database, not an svc store, or a newer one. */
function svcSchemaVersion(db: Database, name: string): number {
  let version: number;
  let tables: number;
  try {
    version = db.pragma('user_version', { simple: true }) as number;
    tables = (db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name IN ('tenants', 'data_keys', 'tokens')").get() as { n: number }).n;
  } catch (error) {
    throw asBackupError(error, name);
  }
  if (version < 1 || tables !== 3) throw new SqliteBackupError(`${name} is an SQLite database but not an svc store`);
  if (version > SCHEMA_VERSION) {
    throw new SqliteBackupError(`${name} was made by a newer svc (schema version ${version}; this svc knows up to ${SCHEMA_VERSION}): restore it with that version`);
  }
  return version;
}

/** SQLite's answers for a file that is not a database, or a damaged one, as refusals naming the file. */
function asBackupError(error: unknown, name: string): unknown {
  const code = (error as { code?: string }).code ?? '';
  if (code === 'SQLITE_NOTADB') return new SqliteBackupError(`${name} is not an SQLite database`);
  if (code.startsWith('SQLITE_CORRUPT')) return new SqliteBackupError(`${name} is damaged (SQLite reports: ${(error as Error).message})`);
  return error;
}

/** Turns a copy whose header says WAL (the store's mode) into one self-contained file, so nothing opens it with a -wal beside it. */
function singleFile(file: string): void {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/**
 * Copies `from` to the new file `to` (0600), reporting bytes copied; returns the size. Asynchronous reads let a
 * signal's handler run between chunks, so a Ctrl-C stops a long copy.
 */
async function copyFile(from: string, to: string, onProgress?: ProgressListener, signal?: AbortSignal): Promise<number> {
  const input = await open(from, 'r');
  let output: FileHandle | undefined;
  try {
    output = await open(to, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
    const total = (await input.stat()).size;
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let done = 0;
    onProgress?.(0, total);
    for (;;) {
      stopIfAborted(signal);
      const { bytesRead } = await input.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      for (let at = 0; at < bytesRead; ) at += (await output.write(buffer, at, bytesRead - at)).bytesWritten;
      done += bytesRead;
      onProgress?.(done, Math.max(total, done));
    }
    return done;
  } finally {
    await input.close();
    await output?.close();
  }
}

function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new SqliteBackupError('interrupted');
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Gives the finished `temp` its name `to` in one step, then flushes the directory so the name survives a power loss.
 * Without `overwrite` a hard link does it, which fails rather than replace a file that appeared meanwhile; on a file
 * system without hard links, a rename after a last check.
 */
function publish(temp: string, to: string, overwrite: boolean): void {
  if (overwrite) {
    renameSync(temp, to);
  } else {
    try {
      linkSync(temp, to);
      unlinkSync(temp);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new SqliteBackupError(`${to} already exists`);
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
      if (existsSync(to)) throw new SqliteBackupError(`${to} already exists`);
      renameSync(temp, to);
    }
  }
  const fd = openSync(dirname(to), 'r');
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the file itself is already on disk.
  } finally {
    closeSync(fd);
  }
}

/** What a copy is written for: a backup beside its FILE, or a restore beside the store it becomes. */
type CopyKind = 'backup' | 'restore';
const COPY_INFIX: Readonly<Record<CopyKind, string>> = { backup: '', restore: 'restore-' };

/** The hidden copy process `pid` writes beside `file` before giving it that name. */
const copyOf = (file: string, kind: CopyKind, pid: number): string => join(dirname(file), `.${basename(file)}.${COPY_INFIX[kind]}${pid}.tmp`);

/** The names of such copies of `file` by any process (and their journals), the writer's process id in group 1. */
const copiesOf = (file: string, kind: CopyKind): RegExp =>
  new RegExp(`^\\.${escaped(basename(file))}\\.${COPY_INFIX[kind]}(\\d+)\\.tmp(?:-journal|-wal|-shm)?$`);

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/** Removes the files of `dir` named as `pattern` says whose writer (its group 1) `stale` says is gone. */
function removeLeftovers(dir: string, pattern: RegExp, stale: (pid: number) => boolean): void {
  for (const name of readdirSync(dir)) {
    const match = pattern.exec(name);
    if (match && stale(Number(match[1]))) rmSync(join(dir, name), { force: true });
  }
}

/**
 * The copies a killed `svc restore` left beside `file` that does not exist: a server must not start an empty store
 * beside a restore that never finished (its operator would take the empty vault for the restored one).
 */
export function interruptedRestores(file: string): string[] {
  if (existsSync(file) || !existsSync(dirname(file))) return [];
  const pattern = copiesOf(file, 'restore');
  return readdirSync(dirname(file)).filter((name) => pattern.test(name) && name.endsWith('.tmp'));
}

function removeDatabaseFiles(file: string): void {
  for (const path of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) rmSync(path, { force: true });
}

/** `path` with its directory's symlinks resolved (the file itself need not exist). */
function realPath(path: string): string {
  return join(realpathSync(dirname(path)), basename(path));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
