/** The invitation e-mail, in domain terms: the adapter decides how it looks and how it travels. */
export interface InvitationMessage {
  /** The invitation the message is for: a later message for the same invitation supersedes this one. */
  readonly invitationId: string;
  /** The invitee's address. */
  readonly to: string;
  readonly tenantName: string;
  /** Who invited, when known (a member's name or e-mail, or an application's name). */
  readonly inviterName?: string | undefined;
  /** `${SVC_PUBLIC_URL}/invitations/accept?token=…`. Contains the one-time secret: never log it. */
  readonly acceptUrl: string;
  readonly expiresAt: Date;
}

/**
 * Sends the vault's only outgoing message. A failure throws, so the caller can undo and the user can retry.
 *
 * A mailer that hands messages to a server keeps nothing. One that keeps copies of what it sent (the development
 * outbox) holds live invitation links on disk, so it keeps at most one copy per invitation, the latest, and destroys
 * it as soon as the link stops working: {@link withdrawInvitation} and {@link discardExpired}.
 */
export interface Mailer {
  sendInvitation(message: InvitationMessage): Promise<void>;
  /** The invitation's link stopped working (accepted or deleted): destroy any copy of its message. */
  withdrawInvitation(invitationId: string): Promise<void>;
  /**
   * Destroys the copies of messages whose link expired at or before `now`; returns how many. A copy whose expiry
   * cannot be read counts as expired once it is older than the longest a link lives after its send.
   */
  discardExpired(now: Date): Promise<number>;
}
