import type { WriteEffects } from '../audit/write-effects';
import type { Page, PageRequest } from '../shared/pagination';

export const INVITATION_STATUSES = ['PENDING', 'EXPIRED'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

/** An invitation to join a tenant. Only the hash of its link's secret is stored; resending replaces it. */
export interface Invitation {
  readonly id: string;
  readonly tenantId: string;
  /** Lower-cased. */
  readonly email: string;
  readonly secretHash: string;
  readonly createdBy?: string | undefined;
  readonly createdAt: Date;
  readonly modifiedBy?: string | undefined;
  readonly modifiedAt?: Date | undefined;
  readonly expiresAt: Date;
}

export function invitationStatus(invitation: Invitation, now: Date): InvitationStatus {
  return invitation.expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : 'PENDING';
}

export interface InvitationFilter {
  readonly status?: InvitationStatus;
  /** The instant that decides PENDING from EXPIRED when filtering by status. */
  readonly now: Date;
}

/**
 * Makes a write apply only while the stored invitation still carries the secret hash the caller knows, that is, only
 * while the link the caller read (or wrote) is still the live one. The check and the write are one atomic step.
 */
export interface SecretHashCondition {
  /** The `secretHash` the stored invitation must carry for the write to apply. */
  readonly expectedSecretHash: string;
}

export interface InvitationRepository {
  /** False when the tenant already has an invitation for this e-mail (the unique key is tenant + e-mail). */
  create(invitation: Invitation, effects?: WriteEffects): Promise<boolean>;
  findById(tenantId: string, id: string): Promise<Invitation | undefined>;
  findBySecretHash(secretHash: string): Promise<Invitation | undefined>;
  findByEmail(tenantId: string, email: string): Promise<Invitation | undefined>;
  /** Ordered by created_at descending, then id. */
  list(tenantId: string, filter: InvitationFilter, page: PageRequest): Promise<Page<Invitation>>;
  /**
   * Replaces the secret hash, expiry and modification of a stored invitation (resend); its e-mail and creation stay.
   * False when it is gone or, given a condition, carries another secret hash: of two conditional updates from the
   * same read, exactly one applies.
   */
  update(invitation: Invitation, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean>;
  /**
   * False when there was nothing to delete or, given a condition, the invitation carries another secret hash: of two
   * concurrent acceptances one wins, and an acceptance through a link a resend replaced deletes nothing.
   */
  delete(tenantId: string, id: string, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean>;
}
