import type { InvitationMessage } from '@svc/core';
import { escapeHtml } from './escape-html';

/** An invitation ready for the wire: one subject, a plain-text part and an HTML part. */
export interface InvitationMail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Renders the invitation e-mail. Pure: the same message always gives the same mail. */
export function invitationMessage(message: InvitationMessage): InvitationMail {
  return { subject: invitationSubject(message), text: invitationText(message), html: invitationHtml(message) };
}

export function invitationSubject(message: InvitationMessage): string {
  // A tenant name is user input: a line break must not reach a header.
  return `You're invited to join ${oneLine(message.tenantName)} on svc`;
}

export function invitationText(message: InvitationMessage): string {
  return [
    `${invitedBy(message.inviterName)} to join ${oneLine(message.tenantName)} on svc.`,
    '',
    'Accept the invitation:',
    message.acceptUrl,
    '',
    `This link expires on ${message.expiresAt.toUTCString()} (${message.expiresAt.toISOString()}).`,
    'If you did not expect this invitation, you can ignore this e-mail.',
    '',
  ].join('\n');
}

export function invitationHtml(message: InvitationMessage): string {
  const url = escapeHtml(message.acceptUrl);
  const human = escapeHtml(message.expiresAt.toUTCString());
  const iso = escapeHtml(message.expiresAt.toISOString());
  const muted = 'margin:16px 0 0;font-size:13px;color:#57606a';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(invitationSubject(message))}</title></head>
<body style="margin:0;padding:24px;background:#f6f8fa;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328">
<div style="max-width:520px;margin:0 auto;padding:24px;background:#ffffff;border:1px solid #d0d7de;border-radius:8px">
<p style="margin:0 0 20px;font-size:16px;line-height:1.5">${escapeHtml(invitedBy(message.inviterName))} to join <strong>${escapeHtml(message.tenantName)}</strong> on svc.</p>
<p style="margin:0"><a href="${url}" style="display:inline-block;padding:10px 18px;background:#0969da;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:600">Accept the invitation</a></p>
<p style="${muted}">Or open this link: <span style="word-break:break-all">${url}</span></p>
<p style="${muted}">This link expires on <time datetime="${iso}">${human}</time> (${iso}).</p>
<p style="${muted}">If you did not expect this invitation, you can ignore this e-mail.</p>
</div>
</body>
</html>
`;
}

function invitedBy(inviterName: string | undefined): string {
  // Names are user input: a line break must not add lines of its own to the message.
  const inviter = inviterName === undefined ? undefined : oneLine(inviterName);
  return inviter ? `${inviter} invited you` : 'You have been invited';
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
