import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linkTargets } from '../test/html';
import { FROM, anInvitation, readMail } from '../test/invitation';
import { NodemailerMailer } from './nodemailer-mailer';

const EML_NAME = /^invitation-[0-9a-f-]{36}\.eml$/;
const SECOND = '5d1c7e0b-2a3f-4b8e-8c1d-9e0f1a2b3c4d';
const HOUR = 3_600_000;
const LIFETIME = 72 * HOUR;
/** The sweeper's instant in the tests that date files: the Expires of `anInvitation()`. */
const NOW = new Date('2026-11-25T14:00:00.000Z');
const ago = (ms: number): Date => new Date(NOW.getTime() - ms);
const linkOf = (invitationId: string, n: number) =>
  anInvitation({ invitationId, acceptUrl: `https://vault.example.test/invitations/accept?token=link-${n}` });

describe('NodemailerMailer into an outbox', () => {
  let home: string;
  let outboxDir: string;
  let mailer: NodemailerMailer;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-mail-'));
    outboxDir = join(home, 'data', 'outbox');
    mailer = new NodemailerMailer({ from: FROM, outboxDir, maxLinkLifetimeMs: LIFETIME });
  });

  /** Gives a file the modification time a write at `at` would have given it. */
  const writtenAt = (name: string, at: Date) => utimes(join(outboxDir, name), at, at);
  const fileOf = (invitationId: string) => `invitation-${invitationId}.eml`;
  const textOf = async (name: string) => (await readMail(await readFile(join(outboxDir, name)))).text;

  afterEach(async () => {
    mailer.close();
    await rm(home, { recursive: true, force: true });
  });

  it('writes one .eml file, readable by its owner only, holding both parts', async () => {
    const invitation = anInvitation();
    await mailer.sendInvitation(invitation);

    const names = await readdir(outboxDir);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(EML_NAME);
    const path = join(outboxDir, names[0]!);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(outboxDir)).mode & 0o777).toBe(0o700);

    const message = await readMail(await readFile(path));
    expect(message.from).toBe(FROM);
    expect(message.to).toEqual(['grace@example.test']);
    expect(message.subject).toBe("You're invited to join Acme on svc");
    expect(message.text).toContain(invitation.acceptUrl);
    expect(linkTargets(message.html)).toEqual([invitation.acceptUrl]);
  });

  it('writes RFC 822 line endings', async () => {
    await mailer.sendInvitation(anInvitation());

    const [name] = await readdir(outboxDir);
    const raw = await readFile(join(outboxDir, name!), 'latin1');
    expect(raw).toContain('\r\n');
    expect(raw.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('keeps one file per invitation: a resend replaces it, and no temporary file is left behind', async () => {
    await mailer.sendInvitation(anInvitation());
    await mailer.sendInvitation(anInvitation({ invitationId: SECOND, to: 'linus@example.test' }));
    expect((await readdir(outboxDir)).sort()).toEqual([`invitation-${anInvitation().invitationId}.eml`, `invitation-${SECOND}.eml`].sort());

    const resent = anInvitation({ acceptUrl: 'https://vault.example.test/invitations/accept?token=n3w' });
    await mailer.sendInvitation(resent);
    const names = await readdir(outboxDir);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(EML_NAME);
    const text = (await readMail(await readFile(join(outboxDir, `invitation-${resent.invitationId}.eml`)))).text;
    expect(text).toContain('token=n3w');
    expect(text).not.toContain('s3cr3t-T0ken_xyz');
  });

  it('deletes the file of a withdrawn invitation, and withdrawing twice is harmless', async () => {
    await mailer.sendInvitation(anInvitation());
    await mailer.sendInvitation(anInvitation({ invitationId: SECOND }));
    await mailer.withdrawInvitation(anInvitation().invitationId);
    await mailer.withdrawInvitation(anInvitation().invitationId);
    expect(await readdir(outboxDir)).toEqual([`invitation-${SECOND}.eml`]);
  });

  it('discards the files of expired invitations only, going by their Expires header', async () => {
    const expiresAt = new Date('2026-11-25T14:00:00.000Z');
    await mailer.sendInvitation(anInvitation({ expiresAt }));
    await mailer.sendInvitation(anInvitation({ invitationId: SECOND, expiresAt: new Date('2026-11-25T14:00:01.000Z') }));
    await writeFile(join(outboxDir, 'notes.txt'), 'not mail');
    for (const name of await readdir(outboxDir)) await writtenAt(name, new Date(expiresAt.getTime() - LIFETIME + 1000));

    expect(await mailer.discardExpired(new Date(expiresAt.getTime() - 1))).toBe(0);
    expect(await mailer.discardExpired(expiresAt)).toBe(1);
    expect((await readdir(outboxDir)).sort()).toEqual([`invitation-${SECOND}.eml`, 'notes.txt']);
  });

  it('writes concurrent messages of one invitation without failing any: the file holds the last one, whole', async () => {
    const messages = Array.from({ length: 10 }, (_, n) => linkOf(SECOND, n));
    await Promise.all(messages.map((message) => mailer.sendInvitation(message)));

    expect(await readdir(outboxDir)).toEqual([fileOf(SECOND)]);
    const text = await textOf(fileOf(SECOND));
    expect(text).toContain('token=link-9');
    expect(text.match(/token=link-\d/g)).toEqual(['token=link-9']);
  });

  it('removes a file withdrawn while messages were still being written for it', async () => {
    const sends = [0, 1, 2].map((n) => mailer.sendInvitation(linkOf(SECOND, n)));
    await Promise.all([...sends, mailer.withdrawInvitation(SECOND)]);
    await mailer.withdrawInvitation(SECOND);

    expect(await readdir(outboxDir)).toEqual([]);
  });

  it('discards any .eml file older than the longest link lifetime, with or without an Expires header', async () => {
    await mailer.sendInvitation(anInvitation({ expiresAt: new Date('2030-01-01T00:00:00.000Z') }));
    await writeFile(join(outboxDir, fileOf(SECOND)), 'Subject: no Expires header\r\n\r\nhttps://vault.example.test/invitations/accept?token=x');
    await writeFile(join(outboxDir, 'copied-by-hand.eml'), 'Subject: x\r\n\r\nhttps://vault.example.test/invitations/accept?token=y');
    await writeFile(join(outboxDir, 'notes.txt'), 'not mail');
    for (const name of await readdir(outboxDir)) await writtenAt(name, ago(LIFETIME - 1));

    expect(await mailer.discardExpired(NOW)).toBe(0);
    for (const name of await readdir(outboxDir)) await writtenAt(name, ago(LIFETIME));
    expect(await mailer.discardExpired(NOW)).toBe(3);
    expect(await readdir(outboxDir)).toEqual(['notes.txt']);
  });

  it('discards files of the previous naming by the send time in their name, or their mtime if older', async () => {
    await mkdir(outboxDir, { recursive: true });
    const legacy = (at: Date) => `${at.toISOString().replace(/:/g, '-')}-0123456789abcdef.eml`;
    const byName = legacy(ago(LIFETIME));
    const live = legacy(ago(LIFETIME - 60_000));
    const byMtime = legacy(ago(HOUR)).replace('0123456789abcdef', 'fedcba9876543210');
    for (const name of [byName, live, byMtime]) await writeFile(join(outboxDir, name), 'Subject: x\r\n\r\nlink');
    // Restored from a backup: the mtime is new, the name still tells when it was sent.
    await writtenAt(byName, NOW);
    await writtenAt(live, ago(LIFETIME - 60_000));
    await writtenAt(byMtime, ago(LIFETIME + HOUR));

    expect(await mailer.discardExpired(NOW)).toBe(2);
    expect(await readdir(outboxDir)).toEqual([live]);
  });

  it('discards temporary files a crash left once a minute old, and leaves younger ones to their writer', async () => {
    await mkdir(outboxDir, { recursive: true });
    const stale = [`.invitation-${SECOND}.eml.tmp`, `.invitation-${SECOND}.eml.0123456789abcdef.tmp`, '.2026-11-20T10-00-00.000Z-0123456789abcdef.eml.tmp'];
    const young = `.invitation-${SECOND}.eml.fedcba9876543210.tmp`;
    for (const name of [...stale, young]) await writeFile(join(outboxDir, name), 'Subject: half a messa');
    for (const name of stale) await writtenAt(name, ago(60_000));
    await writtenAt(young, ago(59_999));

    expect(await mailer.discardExpired(NOW)).toBe(3);
    expect(await readdir(outboxDir)).toEqual([young]);
  });

  // The window is a few microseconds wide (between the sweeper's check and its removal), so it takes rounds to hit it:
  // without the per-invitation queue, about one round in fifty loses the new file.
  it('never discards the file a new message put in place of an expired one while the sweeper ran, 200 times over', async () => {
    for (let round = 0; round < 200; round++) {
      await mailer.sendInvitation(anInvitation({ expiresAt: ago(1) }));
      const resent = anInvitation({ acceptUrl: `https://vault.example.test/invitations/accept?token=round-${round}`, expiresAt: new Date('2030-01-01T00:00:00.000Z') });
      await Promise.all([mailer.discardExpired(NOW), mailer.sendInvitation(resent)]);
      expect(await textOf(fileOf(resent.invitationId))).toContain(`token=round-${round}`);
    }
  });

  it('discards nothing when the outbox does not exist yet', async () => {
    expect(await mailer.discardExpired(new Date())).toBe(0);
  });

  it('refuses an invitation id that could escape the outbox', async () => {
    await expect(mailer.sendInvitation(anInvitation({ invitationId: '../../etc/x' }))).rejects.toThrow();
    await expect(mailer.withdrawInvitation('../x')).rejects.toThrow();
  });

  it('rejects when the outbox cannot be created', async () => {
    await writeFile(join(home, 'data'), 'not a directory');

    await expect(mailer.sendInvitation(anInvitation())).rejects.toThrow();
  });
});

describe('NodemailerMailer construction', () => {
  it('needs an SMTP URL or an outbox directory', () => {
    expect(() => new NodemailerMailer({ from: FROM })).toThrow('needs smtpUrl or outboxDir');
  });

  it('refuses both at once, without repeating the SMTP credentials', () => {
    const build = () =>
      new NodemailerMailer({ from: FROM, smtpUrl: 'smtp://mailer:hunter2@127.0.0.1:2525', outboxDir: '/tmp/x' });

    expect(build).toThrow('not both');
    expect(build).not.toThrow(/hunter2/);
  });

  it('needs a from address', () => {
    expect(() => new NodemailerMailer({ from: '', outboxDir: '/tmp/x', maxLinkLifetimeMs: LIFETIME })).toThrow('needs a from address');
  });

  it.each([undefined, 0, -1, Number.NaN])('needs the longest link lifetime with an outbox directory, not %p', (maxLinkLifetimeMs) => {
    expect(() => new NodemailerMailer({ from: FROM, outboxDir: '/tmp/x', maxLinkLifetimeMs })).toThrow('needs maxLinkLifetimeMs');
  });
});
