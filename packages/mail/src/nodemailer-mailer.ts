import type { InvitationMessage, Mailer } from '@svc/core';
import { createTransport, type SendMailOptions } from 'nodemailer';
import { invitationMessage } from './invitation-message';
import { InvitationOutbox } from './outbox-file';

export interface NodemailerMailerOptions {
  /** The From header, e.g. `svc <no-reply@vault.example>` (`SVC_MAIL_FROM`). */
  readonly from: string;
  /**
   * A nodemailer connection URL (`SVC_SMTP_URL`), e.g. `smtps://user:pass@smtp.example:465` or
   * `smtp://relay:25/?pool=true`. May carry credentials: never log it.
   */
  readonly smtpUrl?: string | undefined;
  /**
   * Without an SMTP server, messages are written here as `.eml` files (`${SVC_DATA_DIR}/outbox`), for development:
   * one per invitation, deleted once its link stops working.
   */
  readonly outboxDir?: string | undefined;
  /**
   * With `outboxDir`, required: the longest an invitation link works after its message is sent, in milliseconds
   * (core's `INVITATION_LIFETIME_MS`). The sweeper deletes any outbox `.eml` file older than this, whatever its name
   * or headers: it can only hold a dead link.
   */
  readonly maxLinkLifetimeMs?: number | undefined;
}

/** Where rendered mail goes, what it keeps of it, and how to let go of it. */
interface Delivery {
  send(invitationId: string, mail: SendMailOptions): Promise<void>;
  withdraw(invitationId: string): Promise<void>;
  discardExpired(now: Date): Promise<number>;
  close(): void;
}

/**
 * The `Mailer` on nodemailer: through SMTP when given `smtpUrl`, otherwise into an outbox directory.
 * Every failure rejects, so the caller can undo. Nothing is logged: the accept URL is a secret.
 */
export class NodemailerMailer implements Mailer {
  private readonly delivery: Delivery;

  constructor(private readonly options: NodemailerMailerOptions) {
    if (!options.from) throw new Error('NodemailerMailer needs a from address');
    const { smtpUrl, outboxDir, maxLinkLifetimeMs } = options;
    if (smtpUrl && outboxDir) throw new Error('NodemailerMailer takes smtpUrl or outboxDir, not both');
    if (smtpUrl) this.delivery = smtpDelivery(smtpUrl);
    else if (outboxDir) this.delivery = outboxDelivery(outboxDir, maxLinkLifetimeMs);
    else throw new Error('NodemailerMailer needs smtpUrl or outboxDir');
  }

  async sendInvitation(message: InvitationMessage): Promise<void> {
    const { subject, text, html } = invitationMessage(message);
    await this.delivery.send(message.invitationId, {
      from: this.options.from,
      to: message.to,
      subject,
      text,
      html,
      // RFC 4021: when the message loses its validity, which is when its link stops working.
      headers: { 'Auto-Submitted': 'auto-generated', Expires: message.expiresAt.toUTCString() },
    });
  }

  /** Over SMTP nothing is kept; the outbox deletes the invitation's file. */
  withdrawInvitation(invitationId: string): Promise<void> {
    return this.delivery.withdraw(invitationId);
  }

  discardExpired(now: Date): Promise<number> {
    return this.delivery.discardExpired(now);
  }

  /** Closes the SMTP connections of a pooled transport; a no-op for the outbox. */
  close(): void {
    this.delivery.close();
  }
}

function smtpDelivery(smtpUrl: string): Delivery {
  const transport = createTransport(smtpUrl);
  return {
    async send(_invitationId, mail) {
      const info = await transport.sendMail(mail);
      // nodemailer rejects when every recipient is refused; refuse a partial delivery as well.
      if (info.rejected.length > 0) throw new Error('The SMTP server rejected the recipient');
    },
    withdraw: async () => undefined,
    discardExpired: async () => 0,
    close: () => transport.close(),
  };
}

function outboxDelivery(outboxDir: string, maxLinkLifetimeMs: number | undefined): Delivery {
  if (maxLinkLifetimeMs === undefined || !(maxLinkLifetimeMs > 0)) {
    throw new Error('NodemailerMailer needs maxLinkLifetimeMs, a positive number of milliseconds, with outboxDir');
  }
  const outbox = new InvitationOutbox(outboxDir, { maxLinkLifetimeMs });
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async send(invitationId, mail) {
      const { message } = await transport.sendMail(mail);
      if (!Buffer.isBuffer(message)) throw new Error('The stream transport did not return a buffer');
      await outbox.keep(invitationId, message);
    },
    withdraw: (invitationId) => outbox.remove(invitationId),
    discardExpired: (now) => outbox.discardExpired(now),
    close: () => transport.close(),
  };
}
