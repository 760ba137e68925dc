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

export interface InvitationRepository {
  /** False when the tenant already has an invitation for this e-mail (the unique key is tenant + e-mail). */
  create(invitation: Invitation): Promise<boolean>;
  findById(tenantId: string, id: string): Promise<Invitation | undefined>;
  findBySecretHash(secretHash: string): Promise<Invitation | undefined>;
  findByEmail(tenantId: string, email: string): Promise<Invitation | undefined>;
  /** Ordered by created_at descending, then id. */
  list(tenantId: string, filter: InvitationFilter, page: PageRequest): Promise<Page<Invitation>>;
  /** Replaces a stored invitation (resend); false when it is gone. */
  update(invitation: Invitation): Promise<boolean>;
  /** False when there was nothing to delete: of two concurrent acceptances, one wins. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
