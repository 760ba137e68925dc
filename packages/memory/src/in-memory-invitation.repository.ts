import type { WriteEffects } from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import type { Invitation, InvitationFilter, InvitationRepository, Page, PageRequest, SecretHashCondition } from '@svc/core';
import { invitationStatus } from '@svc/core';
import { paginate } from './paginate';

export class InMemoryInvitationRepository implements InvitationRepository {
  private readonly invitations = new Map<string, Invitation>();

  constructor(private readonly effects?: InMemoryEffects) {}

  async create(invitation: Invitation, effects?: WriteEffects): Promise<boolean> {
    if (this.withEmail(invitation.tenantId, invitation.email)) return false;
    this.invitations.set(invitation.id, invitation);
    this.effects?.write(effects);
    return true;
  }

  async findById(tenantId: string, id: string): Promise<Invitation | undefined> {
    const invitation = this.invitations.get(id);
    return invitation?.tenantId === tenantId ? invitation : undefined;
  }

  async findBySecretHash(secretHash: string): Promise<Invitation | undefined> {
    return [...this.invitations.values()].find((i) => i.secretHash === secretHash);
  }

  async findByEmail(tenantId: string, email: string): Promise<Invitation | undefined> {
    return this.withEmail(tenantId, email);
  }

  private withEmail(tenantId: string, email: string): Invitation | undefined {
    const wanted = email.toLowerCase();
    return [...this.invitations.values()].find((i) => i.tenantId === tenantId && i.email.toLowerCase() === wanted);
  }

  async list(tenantId: string, filter: InvitationFilter, page: PageRequest): Promise<Page<Invitation>> {
    const matches = [...this.invitations.values()].filter(
      (i) => i.tenantId === tenantId && (!filter.status || invitationStatus(i, filter.now) === filter.status),
    );
    return paginate(matches, page);
  }

  // Check and write run without an await between them, so no other call interleaves: the condition is atomic.
  async update(invitation: Invitation, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean> {
    const stored = this.stored(invitation.tenantId, invitation.id, condition);
    if (!stored) return false;
    this.invitations.set(invitation.id, {
      ...stored,
      secretHash: invitation.secretHash,
      expiresAt: invitation.expiresAt,
      modifiedBy: invitation.modifiedBy,
      modifiedAt: invitation.modifiedAt,
    });
    this.effects?.write(effects);
    return true;
  }

  async delete(tenantId: string, id: string, condition?: SecretHashCondition, effects?: WriteEffects): Promise<boolean> {
    if (!this.stored(tenantId, id, condition)) return false;
    this.invitations.delete(id);
    this.effects?.write(effects);
    return true;
  }

  private stored(tenantId: string, id: string, condition: SecretHashCondition | undefined): Invitation | undefined {
    const invitation = this.invitations.get(id);
    if (invitation?.tenantId !== tenantId) return undefined;
    if (condition && invitation.secretHash !== condition.expectedSecretHash) return undefined;
    return invitation;
  }
}
