import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyedQueue } from '@svc/core';

const ID = /^[A-Za-z0-9-]{1,64}$/;
const FILE = /^invitation-([A-Za-z0-9-]{1,64})\.eml$/;
/** What versions before the one-file-per-invitation outbox wrote: `<ISO time, colons as dashes>-<16 hex>.eml`. */
const LEGACY_FILE = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(\.\d{3})Z-[0-9a-f]{16}\.eml$/;
/** A message being written, or left half-written by a crash: this version's, the last one's, or a legacy one. */
const TEMPORARY = /^\..+\.eml(\.[0-9a-f]+)?\.tmp$/;
/** The temporary file of one invitation's message being written: `.invitation-<id>.eml.<hex>.tmp`. */
const TEMPORARY_OF = /^\.invitation-([A-Za-z0-9-]{1,64})\.eml\.[0-9a-f]+\.tmp$/;
/** Writing a message takes milliseconds; a temporary file older than this was left by a crash. */
export const STALE_TEMPORARY_MS = 60_000;
// The RFC 4021 Expires header every invitation carries, read from the header block only.
const EXPIRES = /^Expires:[ \t]*(.+?)\r?$/im;

export interface InvitationOutboxOptions {
  /**
   * The longest an invitation link works after its message is sent, in milliseconds: any `.eml` file older than
   * this holds a dead link, whatever its name or headers say.
   */
  readonly maxLinkLifetimeMs: number;
}

/**
 * The development outbox: invitation e-mails as `.eml` files, one per invitation (`invitation-<id>.eml`), because
 * each holds a live link that makes its reader an ADMIN. A new message for an invitation replaces its file; a
 * withdrawn or expired one is deleted. Files are written to a hidden temporary name of their own and renamed into
 * place, so a reader never sees a partial message; the directory is mode 0700 and each file 0600.
 *
 * The writes, removals and expiry checks of one invitation's file run one at a time, so the sweeper never deletes a
 * file a resend has just put in place of an expired one.
 */
export class InvitationOutbox {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly dir: string,
    private readonly options: InvitationOutboxOptions,
  ) {}

  /** Writes (or replaces) the message of `invitationId`; returns its path. */
  async keep(invitationId: string, message: Buffer): Promise<string> {
    const path = this.pathOf(invitationId);
    return this.queue.run(invitationId, async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      // A name of its own, created exclusively: concurrent writers never share, truncate or rename each other's file.
      const temporary = join(this.dir, `.invitation-${invitationId}.eml.${randomBytes(8).toString('hex')}.tmp`);
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
    });
  }

  async remove(invitationId: string): Promise<void> {
    const path = this.pathOf(invitationId);
    return this.queue.run(invitationId, () => rm(path, { force: true }));
  }

  /**
   * Deletes every file whose link is dead at `now`, and returns how many: a message past its Expires header; any
   * `.eml` file, whatever its name, older than the longest a link lives (its mtime, or the time in a legacy name);
   * and temporary files a crash left. Other files are left alone. File times are the wall clock's, as `now` is.
   */
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
      // An invitation's file, and its temporary file, are judged in that invitation's queue: never while a write of
      // it is under way, whose temporary file is about to be renamed into place.
      const id = FILE.exec(name)?.[1] ?? TEMPORARY_OF.exec(name)?.[1];
      const dead = id ? this.queue.run(id, () => this.discardIfDead(name, now)) : this.discardIfDead(name, now);
      if (await dead) discarded++;
    }
    return discarded;
  }

  private async discardIfDead(name: string, now: Date): Promise<boolean> {
    const path = join(this.dir, name);
    const stats = await lstat(path).catch(() => undefined);
    if (!stats?.isFile() || !(await this.isDead(name, path, stats, now.getTime()))) return false;
    await rm(path, { force: true });
    return true;
  }

  private async isDead(name: string, path: string, stats: Stats, now: number): Promise<boolean> {
    if (TEMPORARY.test(name)) return stats.mtimeMs + STALE_TEMPORARY_MS <= now;
    if (!name.endsWith('.eml')) return false;
    const sentAt = Math.min(stats.mtimeMs, legacySendTime(name));
    if (sentAt + this.options.maxLinkLifetimeMs <= now) return true;
    if (!FILE.test(name)) return false;
    const expires = await expiresHeader(path);
    return expires !== undefined && expires <= now;
  }

  private pathOf(invitationId: string): string {
    // Ids are UUIDs; anything else must not become a path.
    if (!ID.test(invitationId)) throw new Error('An invitation id must be letters, digits and dashes');
    return join(this.dir, `invitation-${invitationId}.eml`);
  }
}

/** The send time a legacy file's name carries, or +Infinity for other names. */
function legacySendTime(name: string): number {
  const parts = LEGACY_FILE.exec(name);
  if (!parts) return Number.POSITIVE_INFINITY;
  const [, date, hours, minutes, seconds, millis] = parts;
  const time = Date.parse(`${date}T${hours}:${minutes}:${seconds}${millis}Z`);
  return Number.isFinite(time) ? time : Number.POSITIVE_INFINITY;
}

/** The instant of a message's Expires header, in ms; undefined when the file has none or cannot be read. */
async function expiresHeader(path: string): Promise<number | undefined> {
  const raw = await readFile(path, 'latin1').catch(() => '');
  const headers = raw.slice(0, Math.max(0, raw.search(/\r?\n\r?\n/)));
  const expires = Date.parse(EXPIRES.exec(headers)?.[1] ?? '');
  return Number.isFinite(expires) ? expires : undefined;
}
