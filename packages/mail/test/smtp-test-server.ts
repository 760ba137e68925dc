import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerError, type SMTPServerOptions } from 'smtp-server';

/** One message as the server took it: the SMTP envelope and the raw RFC 822 bytes. */
export interface ReceivedMail {
  readonly mailFrom: string | undefined;
  readonly rcptTo: readonly string[];
  readonly raw: Buffer;
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives, without TLS or authentication. */
export interface SmtpTestServer {
  /** A nodemailer connection URL for this server. */
  readonly url: string;
  readonly received: readonly ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpTestServer(
  handlers: Pick<SMTPServerOptions, 'onRcptTo'> = {},
): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    ...handlers,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        received.push({
          mailFrom: mailFrom ? mailFrom.address : undefined,
          rcptTo: rcptTo.map((recipient) => recipient.address),
          raw: Buffer.concat(chunks),
        });
        callback();
      });
    },
  });
  // Client-side resets are not the test's business; an unhandled 'error' event would crash jest.
  server.on('error', () => undefined);
  const port = await new Promise<number>((resolve, reject) => {
    const listener = server.listen(0, '127.0.0.1', () => resolve((listener.address() as AddressInfo).port));
    listener.once('error', reject);
  });
  return {
    url: `smtp://127.0.0.1:${port}/?ignoreTLS=true`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An `onRcptTo` handler that refuses every recipient with a permanent failure. */
export function rejectEveryRecipient(): Pick<SMTPServerOptions, 'onRcptTo'> {
  return {
    onRcptTo(_address, _session, callback) {
      const error: SMTPServerError = Object.assign(new Error('No such user here'), { responseCode: 550 });
      callback(error);
    },
  };
}
