import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
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
 * The key is written whole to a file of its own, flushed, then linked as master.key (which fails if one exists): a
 * start killed at any moment leaves either no master.key or a whole one, never a torn one that stops every later start.
 */
export function createMasterKeyFile(dataDir: string): Buffer {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  const file = join(dataDir, MASTER_KEY_FILE);
  const temp = writeDurably(file, key);
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readMasterKeyFile(dataDir)!;
  } finally {
    unlinkSync(temp);
  }
  syncDirectory(dataDir);
  return key;
}

/** Writes a new master key over the old file, atomically (flushed temp file + rename), readable by the owner only. */
export function replaceMasterKeyFile(dataDir: string, key: Buffer): void {
  const file = join(dataDir, MASTER_KEY_FILE);
  renameSync(writeDurably(file, key), file);
  syncDirectory(dataDir);
}

/** The key in a new temp file beside `file` (0600), flushed to disk; returns its path. */
function writeDurably(file: string, key: Buffer): string {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/** Flushes a directory's entries (a new or renamed file in it survives a power loss). */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
