import type { InvitationMessage } from '@svc/core';
import { simpleParser, type AddressObject } from 'mailparser';

export const FROM = 'no-reply@vault.example.test';

/** An invitation whose link carries a secret and an `&`, so escaping shows in the HTML. */
export function anInvitation(overrides: Partial<InvitationMessage> = {}): InvitationMessage {
  return {
    invitationId: '0b7e2c3a-6f1d-4c1e-9a55-2f7d1c0e8a11',
    to: 'grace@example.test',
    tenantName: 'Acme',
    inviterName: 'Ada Lovelace',
    acceptUrl: 'https://vault.example.test/invitations/accept?token=s3cr3t-T0ken_xyz&lang=en',
    expiresAt: new Date('2026-11-25T14:00:00.000Z'),
    ...overrides,
  };
}

/** The parts of a received message a reader sees; fails when a part is missing. */
export interface ReadMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly autoSubmitted: unknown;
  readonly text: string;
  readonly html: string;
}

export async function readMail(raw: Buffer): Promise<ReadMail> {
  const parsed = await simpleParser(raw);
  if (typeof parsed.text !== 'string') throw new Error('the message has no text part');
  if (typeof parsed.html !== 'string') throw new Error('the message has no HTML part');
  return {
    from: parsed.from?.text ?? '',
    to: addresses(parsed.to),
    subject: parsed.subject ?? '',
    autoSubmitted: parsed.headers.get('auto-submitted'),
    text: parsed.text,
    html: parsed.html,
  };
}

function addresses(header: AddressObject | AddressObject[] | undefined): string[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return objects.flatMap((object) => object.value.map((address) => address.address ?? ''));
}
