import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes one RFC 822 message into `dir` as `<ISO time>-<random hex>.eml` and returns its path.
 * Readers never see a partial file: the bytes go to a hidden temporary file that is renamed into place.
 * The directory is created with mode 0700 and the file with mode 0600: an invitation carries a secret link.
 */
export async function writeOutboxFile(dir: string, message: Buffer, now: Date = new Date()): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `${now.toISOString().replace(/:/g, '-')}-${randomBytes(8).toString('hex')}.eml`;
  const path = join(dir, name);
  const temporary = join(dir, `.${name}.tmp`);
  try {
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(message);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return path;
}
