import type { InvitationMessage, Mailer } from '../src/invitations/mailer';

/** A Mailer that keeps what it was asked to send, and can be told to fail, for tests. */
export class RecordingMailer implements Mailer {
  readonly sent: InvitationMessage[] = [];
  /** Invitation ids whose messages were withdrawn, in order. */
  readonly withdrawn: string[] = [];
  failNext = false;

  async sendInvitation(message: InvitationMessage): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the mail server refused the message');
    }
    this.sent.push(message);
  }

  async withdrawInvitation(invitationId: string): Promise<void> {
    this.withdrawn.push(invitationId);
  }

  async discardExpired(): Promise<number> {
    return 0;
  }

  /** The secret in the last link sent. */
  lastToken(): string {
    const url = this.sent.at(-1)?.acceptUrl;
    if (!url) throw new Error('no invitation was sent');
    return new URL(url).searchParams.get('token') ?? '';
  }
}
