import { type Invitation, invitationStatus } from '@svc/core';
import { iso } from './pagination';

/** An invitation as the API shows it; its status is derived from `now`. The link's secret never appears. */
export function presentInvitation(invitation: Invitation, now: Date) {
  return {
    id: invitation.id,
    tenant_id: invitation.tenantId,
    email: invitation.email,
    // Accepting makes an ADMIN member (interface.md 2.9); the Basis Theory SDK reads the role an invitation grants.
    role: 'ADMIN',
    status: invitationStatus(invitation, now),
    expires_at: iso(invitation.expiresAt),
    created_by: invitation.createdBy,
    created_at: iso(invitation.createdAt),
    modified_by: invitation.modifiedBy,
    modified_at: iso(invitation.modifiedAt),
  };
}
