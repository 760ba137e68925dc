/** The invitation e-mail, in domain terms: the adapter decides how it looks and how it travels. */
export interface InvitationMessage {
  /** The invitee's address. */
  readonly to: string;
  readonly tenantName: string;
  /** Who invited, when known (a member's name or e-mail, or an application's name). */
  readonly inviterName?: string | undefined;
  /** `${SVC_PUBLIC_URL}/invitations/accept?token=…`. Contains the one-time secret: never log it. */
  readonly acceptUrl: string;
  readonly expiresAt: Date;
}

/** Sends the vault's only outgoing message. A failure throws, so the caller can undo and the user can retry. */
export interface Mailer {
  sendInvitation(message: InvitationMessage): Promise<void>;
}
