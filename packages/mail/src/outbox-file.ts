import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

const ID = /^[A-Za-z0-9-]{1,64}$/;
const FILE = /^invitation-([A-Za-z0-9-]{1,64})\.eml$/;
// The RFC 4021 Expires header every invitation carries, read from the header block only.
const EXPIRES = /^Expires:[ \t]*(.+?)\r?$/im;

/**
 * The development outbox: invitation e-mails as `.eml` files, one per invitation (`invitation-<id>.eml`), because
 * each holds a live link that makes its reader an ADMIN. A new message for an invitation replaces its file; a
 * withdrawn or expired one is deleted. Files are written to a hidden temporary name and renamed into place, so a
 * reader never sees a partial message; the directory is mode 0700 and each file 0600.
 */
export class InvitationOutbox {
  constructor(private readonly dir: string) {}

  /** Writes (or replaces) the message of `invitationId`; returns its path. */
  async keep(invitationId: string, message: Buffer): Promise<string> {
    const path = this.pathOf(invitationId);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temporary = join(this.dir, `.invitation-${invitationId}.eml.tmp`);
    try {
      const file = await open(temporary, 'w', 0o600);
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

  async remove(invitationId: string): Promise<void> {
    await rm(this.pathOf(invitationId), { force: true });
  }

  /** Deletes every message whose Expires header is at or before `now`; returns how many. */
  async discardExpired(now: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let discarded = 0;
    for (const name of names) {
      if (!FILE.test(name)) continue;
      const path = join(this.dir, name);
      const raw = await readFile(path, 'latin1').catch(() => '');
      const headers = raw.slice(0, Math.max(0, raw.search(/\r?\n\r?\n/)));
      const expires = Date.parse(EXPIRES.exec(headers)?.[1] ?? '');
      if (Number.isFinite(expires) && expires <= now.getTime()) {
        await rm(path, { force: true });
        discarded++;
      }
    }
    return discarded;
  }

  private pathOf(invitationId: string): string {
    // Ids are UUIDs; anything else must not become a path.
    if (!ID.test(invitationId)) throw new Error('An invitation id must be letters, digits and dashes');
    return join(this.dir, `invitation-${invitationId}.eml`);
  }
}
