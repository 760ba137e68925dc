import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linkTargets } from '../test/html';
import { FROM, anInvitation, readMail } from '../test/invitation';
import { NodemailerMailer } from './nodemailer-mailer';

const EML_NAME = /^invitation-[0-9a-f-]{36}\.eml$/;
const SECOND = '5d1c7e0b-2a3f-4b8e-8c1d-9e0f1a2b3c4d';

describe('NodemailerMailer into an outbox', () => {
  let home: string;
  let outboxDir: string;
  let mailer: NodemailerMailer;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'svc-mail-'));
    outboxDir = join(home, 'data', 'outbox');
    mailer = new NodemailerMailer({ from: FROM, outboxDir });
  });

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

    expect(await mailer.discardExpired(new Date(expiresAt.getTime() - 1))).toBe(0);
    expect(await mailer.discardExpired(expiresAt)).toBe(1);
    expect((await readdir(outboxDir)).sort()).toEqual([`invitation-${SECOND}.eml`, 'notes.txt']);
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
    expect(() => new NodemailerMailer({ from: '', outboxDir: '/tmp/x' })).toThrow('needs a from address');
  });
});
