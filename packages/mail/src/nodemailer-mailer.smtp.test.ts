import { linkTargets, unescapeHtml } from '../test/html';
import { FROM, anInvitation, readMail } from '../test/invitation';
import { rejectEveryRecipient, startSmtpTestServer, type SmtpTestServer } from '../test/smtp-test-server';
import { NodemailerMailer } from './nodemailer-mailer';

describe('NodemailerMailer over SMTP', () => {
  let server: SmtpTestServer | undefined;
  let mailer: NodemailerMailer | undefined;

  afterEach(async () => {
    mailer?.close();
    await server?.close();
    mailer = undefined;
    server = undefined;
  });

  async function mailerOn(started: SmtpTestServer): Promise<NodemailerMailer> {
    server = started;
    mailer = new NodemailerMailer({ from: FROM, smtpUrl: started.url });
    return mailer;
  }

  async function sendAndRead(invitation = anInvitation()) {
    const smtp = await startSmtpTestServer();
    await (await mailerOn(smtp)).sendInvitation(invitation);
    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    return { envelope: mail!, message: await readMail(mail!.raw) };
  }

  /** What a reader of the HTML part sees, with the markup gone. */
  function visibleText(html: string): string {
    return unescapeHtml(html.replace(/<[^>]*>/g, ''));
  }

  it('delivers to the invitee, from the configured sender, with the invitation subject', async () => {
    const { envelope, message } = await sendAndRead();

    expect(envelope.mailFrom).toBe(FROM);
    expect(envelope.rcptTo).toEqual(['grace@example.test']);
    expect(message.from).toBe(FROM);
    expect(message.to).toEqual(['grace@example.test']);
    expect(message.subject).toBe("You're invited to join Acme on svc");
    expect(message.autoSubmitted).toBe('auto-generated');
  });

  it('writes the tenant, the inviter, the link and the expiry in the text part', async () => {
    const invitation = anInvitation();
    const { message } = await sendAndRead(invitation);

    expect(message.text).toContain('Ada Lovelace invited you to join Acme on svc.');
    expect(message.text).toContain(invitation.acceptUrl);
    expect(message.text).toContain('Wed, 25 Nov 2026 14:00:00 GMT');
    expect(message.text).toContain('2026-11-25T14:00:00.000Z');
  });

  it('writes the same in the HTML part, with the link as a button and as text', async () => {
    const invitation = anInvitation();
    const { message } = await sendAndRead(invitation);

    expect(linkTargets(message.html)).toEqual([invitation.acceptUrl]);
    const seen = visibleText(message.html);
    expect(seen).toContain('Ada Lovelace invited you to join Acme on svc.');
    expect(seen).toContain(`Or open this link: ${invitation.acceptUrl}`);
    expect(seen).toContain('Wed, 25 Nov 2026 14:00:00 GMT');
    expect(seen).toContain('2026-11-25T14:00:00.000Z');
  });

  it('escapes a tenant name and an inviter name that look like markup', async () => {
    const tenantName = '<b>Acme & Co</b>';
    const { message } = await sendAndRead(anInvitation({ tenantName, inviterName: 'Eve "<script>"' }));

    expect(message.html).not.toContain('<b>');
    expect(message.html).not.toContain('<script>');
    expect(message.html).toContain('&lt;b&gt;Acme &amp; Co&lt;/b&gt;');
    expect(visibleText(message.html)).toContain('Eve "<script>" invited you to join <b>Acme & Co</b> on svc.');
    expect(message.text).toContain('to join <b>Acme & Co</b> on svc.');
    expect(message.subject).toBe("You're invited to join <b>Acme & Co</b> on svc");
  });

  it('says "You have been invited" when the inviter is not known', async () => {
    const { message } = await sendAndRead(anInvitation({ inviterName: undefined }));

    expect(message.text).toContain('You have been invited to join Acme on svc.');
    expect(visibleText(message.html)).toContain('You have been invited to join Acme on svc.');
    expect(message.text).not.toContain('invited you');
  });

  it('rejects when the server refuses the recipient, without the link in the error', async () => {
    const smtp = await startSmtpTestServer(rejectEveryRecipient());
    const invitation = anInvitation();

    const error: unknown = await (await mailerOn(smtp)).sendInvitation(invitation).then(
      () => undefined,
      (reason: unknown) => reason,
    );

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/550/);
    expect((error as Error).message).not.toContain('s3cr3t');
    expect(smtp.received).toHaveLength(0);
  });
});
