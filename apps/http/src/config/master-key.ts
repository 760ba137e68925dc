import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config';

export const MASTER_KEY_FILE = 'master.key';

/**
 * The master key of an embedded (SQLite) vault when SVC_MASTER_KEY is not set: read from the data dir, or
 * generated there on first run, readable by the owner only (0600). Losing this file loses every token.
 */
export function loadOrCreateMasterKey(dataDir: string): Buffer {
  const file = join(dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new ConfigError('SVC_MASTER_KEY', `${file} does not hold a 32-byte base64 key`);
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return key;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/** Writes a new master key over the old file, atomically (temp file + rename), readable by the owner only. */
export function replaceMasterKeyFile(dataDir: string, key: Buffer): void {
  const file = join(dataDir, MASTER_KEY_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
}
