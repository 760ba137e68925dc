import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config';

export const MASTER_KEY_FILE = 'master.key';

/**
 * The master key kept in the data dir (SQLite without SVC_MASTER_KEY), or undefined when there is no master.key.
 * Never makes one: only {@link createMasterKeyFile} does, for a store without data keys. Losing this file loses every
 * token.
 */
export function readMasterKeyFile(dataDir: string): Buffer | undefined {
  const file = join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(file)) return undefined;
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new ConfigError('SVC_MASTER_KEY', `${file} does not hold a 32-byte base64 key`);
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return key;
}

/**
 * Generates master.key in the data dir, readable by the owner only (0600). Only for a store that has no data keys
 * yet: a new key opens none of an existing store's. When another process made the file meanwhile, its key is used.
 */
export function createMasterKeyFile(dataDir: string): Buffer {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  try {
    writeFileSync(join(dataDir, MASTER_KEY_FILE), `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readMasterKeyFile(dataDir)!;
  }
  return key;
}

/** Writes a new master key over the old file, atomically (temp file + rename), readable by the owner only. */
export function replaceMasterKeyFile(dataDir: string, key: Buffer): void {
  const file = join(dataDir, MASTER_KEY_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
}
