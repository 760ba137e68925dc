import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linkTargets } from '../test/html';
import { FROM, anInvitation, readMail } from '../test/invitation';
import { NodemailerMailer } from './nodemailer-mailer';

const EML_NAME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-[0-9a-f]{16}\.eml$/;

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

  it('adds a file per message and leaves no temporary file behind', async () => {
    await mailer.sendInvitation(anInvitation());
    await mailer.sendInvitation(anInvitation({ to: 'linus@example.test' }));

    const names = await readdir(outboxDir);
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(EML_NAME);
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
