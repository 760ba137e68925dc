import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CryptoRandomSource, Keyring, SystemClock } from '@svc/core';
import { backupSqliteStore, restoreSqliteStore, SqliteBackupError, SqliteDataKeyRepository } from '@svc/sqlite';
import type { Config } from './config/config';
import { loadConfig } from './config/load-config';
import { MASTER_KEY_FILE, readMasterKeyFile } from './config/master-key';
import { ProgressLine } from './progress';

const STORE_FILE = 'svc.db';

/** The arguments of `svc backup` and `svc restore`: one FILE, and for a backup `--force`; undefined after printing why not. */
function fileArgument(command: string, args: string[], usage: string): { file: string; force: boolean } | undefined {
  try {
    const options: ParseArgsConfig['options'] = command === 'backup' ? { force: { type: 'boolean' } } : {};
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
    if (positionals.length === 1 && positionals[0]!.trim() !== '') return { file: resolve(positionals[0]!), force: (values as { force?: boolean }).force === true };
    process.stderr.write(`svc: ${command} takes one FILE\n\n${usage}`);
  } catch (error) {
    process.stderr.write(`svc: ${(error as Error).message}\n\n${usage}`);
  }
  return undefined;
}

/** Backups and restores are of the SQLite store; the other stores say what to use instead. */
function sqliteOnly(command: 'backup' | 'restore', config: Config): boolean {
  if (config.store === 'sqlite') return true;
  if (config.store === 'mongo') {
    const tool = command === 'backup' ? 'mongodump --uri "$MONGODB_URI" --archive=FILE' : 'mongorestore --uri "$MONGODB_URI" --archive=FILE';
    process.stderr.write(
      `svc: ${command} is for the SQLite store; this configuration uses MongoDB: ${command} it with MongoDB's tools (${tool}) or your platform's snapshots. SVC_MASTER_KEY is not in the database either: keep it apart, and use the same key with the restored database.\n`,
    );
  } else {
    process.stderr.write(`svc: ${command} is for the SQLite store; the ${config.store} store keeps nothing on disk.\n`);
  }
  return false;
}

/** Aborts on SIGINT or SIGTERM while `work` runs, so a Ctrl-C leaves no temporary file behind. */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}

function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** A Ctrl-C (or SIGTERM) honoured: says what was left, exits 130 as a shell does for SIGINT. */
function interrupted(left: string): number {
  process.stderr.write(`svc: interrupted; ${left}\n`);
  return 130;
}

const megabytes = (bytes: number): string => (bytes / 1024 ** 2).toFixed(1);

/**
 * `svc backup FILE [--force]`: an online, consistent copy of the SQLite store, also while `svc serve` runs on the same
 * data directory (it reads one snapshot and takes no lock; see backupSqliteStore). An existing FILE is refused unless
 * --force. The master key is not in the backup, and the output says so.
 */
export async function backup(args: string[], usage: string): Promise<number> {
  const parsed = fileArgument('backup', args, usage);
  if (!parsed) return 2;
  const config = loadConfig();
  if (!sqliteOnly('backup', config)) return 1;
  const store = join(config.dataDir, STORE_FILE);
  if (sameDirectory(dirname(parsed.file), config.dataDir)) {
    process.stderr.write(`svc: backup refused: ${parsed.file} is in the data directory; keep backups elsewhere (one lost with the directory is no backup, and a restore needs the directory empty)\n`);
    return 1;
  }
  if (!parsed.force && existsSync(parsed.file)) {
    process.stderr.write(`svc: backup refused: ${parsed.file} already exists (pass --force to replace it)\n`);
    return 1;
  }
  const line = new ProgressLine('backup', 'pages');
  try {
    const result = await interruptible((signal) =>
      backupSqliteStore({ file: store, destination: parsed.file, overwrite: parsed.force, signal, onProgress: (done, total) => line.update(done, total) }),
    );
    line.done();
    const key = config.masterKey ? 'SVC_MASTER_KEY' : join(config.dataDir, MASTER_KEY_FILE);
    process.stdout.write(
      `svc: backed up ${store} to ${parsed.file} (${megabytes(result.bytes)} MB, ${result.pages} pages, schema version ${result.schemaVersion})\n` +
        `svc: the master key is not in the backup: keep ${key} safe and apart from it; restoring needs the same key\n`,
    );
    return 0;
  } catch (error) {
    line.done();
    if (!(error instanceof SqliteBackupError)) throw error;
    if (error.message === 'interrupted') return interrupted(`nothing was written to ${parsed.file}`);
    process.stderr.write(`svc: backup refused: ${error.message}\n`);
    return 1;
  }
}

/**
 * `svc restore FILE`: puts a backup in place as the SQLite store of an empty SVC_DATA_DIR (nothing in it but
 * master.key; see restoreSqliteStore for the checks). The master key the restored store will be served with
 * (SVC_MASTER_KEY, else master.key in the directory) must open the backup's data keys: a server started without it
 * would make a new key and read none of the restored tokens.
 */
export async function restore(args: string[], usage: string): Promise<number> {
  const parsed = fileArgument('restore', args, usage);
  if (!parsed) return 2;
  const config = loadConfig();
  if (!sqliteOnly('restore', config)) return 1;
  const keyFile = join(config.dataDir, MASTER_KEY_FILE);
  // Read (never made) before the copy starts, so a master.key that is not a key is refused first.
  const masterKey = config.masterKey ?? readMasterKeyFile(config.dataDir);
  const keyName = config.masterKey ? 'SVC_MASTER_KEY' : keyFile;
  let opened = 0;
  const line = new ProgressLine('restore', 'bytes');
  try {
    const result = await interruptible((signal) =>
      restoreSqliteStore({
        backup: parsed.file,
        file: join(config.dataDir, STORE_FILE),
        allowed: [MASTER_KEY_FILE],
        signal,
        onProgress: (done, total) => {
          line.update(done, total);
          if (done === total) line.status('checking the copy (integrity check, master key)…');
        },
        verify: async (db) => {
          opened = await openDataKeys(new SqliteDataKeyRepository(db), masterKey, keyName, config.dataDir);
        },
      }),
    );
    line.done();
    process.stdout.write(
      `svc: restored ${parsed.file} into ${join(config.dataDir, STORE_FILE)} (${megabytes(result.bytes)} MB, schema version ${result.schemaVersion}; integrity check ok; ${keyName} opens its ${opened} tenant data key(s))\n` +
        `svc: start svc serve with the same master key (${keyName})\n`,
    );
    return 0;
  } catch (error) {
    line.done();
    if (!(error instanceof SqliteBackupError)) throw error;
    if (error.message === 'interrupted') return interrupted(`no store was written to ${config.dataDir}`);
    process.stderr.write(`svc: restore refused: ${error.message}\n`);
    return 1;
  }
}

/** Opens every data key of the copy with the master key; returns how many; refuses when there is no key or the wrong one. */
async function openDataKeys(dataKeys: SqliteDataKeyRepository, masterKey: Buffer | undefined, keyName: string, dataDir: string): Promise<number> {
  const keys = await dataKeys.all();
  if (keys.length === 0) return 0;
  if (!masterKey) {
    throw new SqliteBackupError(
      `no master key: set SVC_MASTER_KEY, or copy master.key from the data directory the backup was taken from into ${dataDir}, before restoring (the backup holds no master key, and a server started without it would make a new one and read none of the restored tokens)`,
    );
  }
  const keyring = new Keyring({ dataKeys, random: new CryptoRandomSource(), clock: new SystemClock(), masterKey });
  for (const key of keys) {
    try {
      await keyring.forTenant(key.tenantId);
    } catch {
      throw new SqliteBackupError(`${keyName} does not open the backup's data key of tenant ${key.tenantId}: restore with the master key the backed-up store was served with`);
    }
  }
  return keys.length;
}
