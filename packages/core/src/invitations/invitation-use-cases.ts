import { type Audit, auditOf } from '../audit/audit';
import { factsAbout, invitationHookData, memberHookData, systemActor } from '../audit/audit-effects';
import type { Clock } from '../shared/clock';
import { ConflictError, GoneError, NotFoundError, UnavailableError, ValidationError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import { type Page, pageRequest } from '../shared/pagination';
import type { RandomSource } from '../shared/random';
import type { ApplicationRepository } from '../applications/application.repository';
import type { Actor } from '../auth/actor';
import { generateSecret, hashKey } from '../auth/api-key';
import { requirePermission } from '../auth/authorize';
import type { Member, MemberRepository } from '../members/member';
import { type MemberWithUser } from '../members/member-use-cases';
import type { TenantRepository } from '../tenants/tenant';
import { normalizeEmail } from '../users/email';
import type { User, UserRepository } from '../users/user';
import { INVITATION_STATUSES, type Invitation, type InvitationRepository, type InvitationStatus, invitationStatus } from './invitation';
import type { KeyedQueue } from '../shared/keyed-queue';
import type { Mailer } from './mailer';

/** How long an invitation link works: 72 hours from creation or resend. No link outlives its last send by more. */
export const INVITATION_LIFETIME_MS = 72 * 3_600_000;

/** How often a resend writes before giving up on an invitation that another process keeps changing under it. */
export const MAX_RESEND_ATTEMPTS = 3;

const invitationFact = factsAbout('tenant_invitation');

export interface InvitationDeps {
  readonly invitations: InvitationRepository;
  readonly members: MemberRepository;
  readonly users: UserRepository;
  readonly tenants: TenantRepository;
  readonly applications: ApplicationRepository;
  readonly mailer: Mailer;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: RandomSource;
  /** Records what callers do (ADR 4); absent in unit tests of other rules. */
  readonly audit?: Audit | undefined;
  /** `${SVC_PUBLIC_URL}`: links are `${publicUrl}/invitations/accept?token=…`. */
  readonly publicUrl: string;
  /**
   * Runs the changes of one invitation (its row and the kept copy of its e-mail) one at a time, keyed by its id. One
   * instance shared by every invitation use case of the process; see {@link KeyedQueue} for why.
   */
  readonly queue: KeyedQueue;
}

const notFound = (): NotFoundError => new NotFoundError('invitation');

/** Sends the e-mail for an invitation whose link carries `secret`. */
async function send(deps: InvitationDeps, actor: Actor, invitation: Invitation, secret: string): Promise<void> {
  const tenant = await deps.tenants.findById(invitation.tenantId);
  const inviter = await deps.applications.findById(actor.tenantId, actor.applicationId);
  try {
    await deps.mailer.sendInvitation({
      invitationId: invitation.id,
      to: invitation.email,
      tenantName: tenant?.name ?? 'svc',
      inviterName: inviter?.name,
      acceptUrl: `${deps.publicUrl}/invitations/accept?token=${encodeURIComponent(secret)}`,
      expiresAt: invitation.expiresAt,
    });
  } catch {
    throw new UnavailableError('MAIL_FAILED', 'The invitation e-mail could not be sent. Nothing was changed; try again.');
  }
}

/**
 * Destroys a kept copy of a dead link's message. The link already fails (the invitation is gone), so a copy that
 * could not be removed is no key to anything; the removal must not fail the request that killed the link.
 */
async function withdraw(deps: InvitationDeps, invitationId: string): Promise<void> {
  await deps.mailer.withdrawInvitation(invitationId).catch(() => undefined);
}

/** POST /tenants/self/invitations. */
export class CreateInvitation {
  constructor(private readonly deps: InvitationDeps) {}

  async execute(actor: Actor, input: { readonly email: string }): Promise<Invitation> {
    requirePermission(actor, 'tenant:invitation:create');
    const email = normalizeEmail('email', input.email);
    const user = await this.deps.users.findByEmail(email);
    if (user && (await this.deps.members.findByUser(actor.tenantId, user.id))) {
      throw new ConflictError('ALREADY_MEMBER', 'This e-mail address already belongs to a member of the tenant.');
    }
    const now = this.deps.clock.now();
    const secret = generateSecret(this.deps.random);
    const invitation: Invitation = {
      id: this.deps.ids.next(),
      tenantId: actor.tenantId,
      email,
      secretHash: hashKey(secret),
      createdBy: actor.applicationId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
    };
    return this.deps.queue.run(invitation.id, async () => {
      const effects = auditOf(this.deps).write(actor, now, invitationFact(invitation.id, 'create', 'Tenant invitation created'), [
        { type: 'tenant.invitation.created', data: invitationHookData(invitation) },
      ]);
      if (!(await this.deps.invitations.create(invitation, effects))) {
        throw new ConflictError('ALREADY_INVITED', 'This e-mail address has already been invited.');
      }
      try {
        await send(this.deps, actor, invitation, secret);
      } catch (error) {
        const undone = auditOf(this.deps).write(actor, this.deps.clock.now(), invitationFact(invitation.id, 'delete', 'Tenant invitation withdrawn: its e-mail could not be sent'));
        await this.deps.invitations.delete(invitation.tenantId, invitation.id, { expectedSecretHash: invitation.secretHash }, undone);
        throw error;
      }
      return invitation;
    });
  }
}

/** POST /tenants/self/invitations/{id}/resend: a new link, 72 more hours; earlier links stop working. */
export class ResendInvitation {
  constructor(private readonly deps: InvitationDeps) {}

  async execute(actor: Actor, id: string): Promise<Invitation> {
    requirePermission(actor, 'tenant:invitation:create', 'tenant:invitation:update');
    return this.deps.queue.run(id, () => this.resend(actor, id));
  }

  /**
   * Each write is conditional on the secret hash it replaces: the resend only replaces the link it read, and a failed
   * mail only restores that link while the one it wrote is still in place. So a resend elsewhere (another process)
   * is never overwritten, and a link that another resend's 200 killed never comes back.
   */
  private async resend(actor: Actor, id: string): Promise<Invitation> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.deps.invitations.findById(actor.tenantId, id);
      if (!current) throw notFound();
      if (attempt > MAX_RESEND_ATTEMPTS) {
        throw new ConflictError('INVITATION_CHANGED', 'The invitation kept changing while it was being resent; try again.');
      }
      const now = this.deps.clock.now();
      const secret = generateSecret(this.deps.random);
      const resent: Invitation = {
        ...current,
        secretHash: hashKey(secret),
        expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
        modifiedBy: actor.applicationId,
        modifiedAt: now,
      };
      const effects = auditOf(this.deps).write(actor, now, invitationFact(id, 'resend', 'Tenant invitation resent'));
      if (!(await this.deps.invitations.update(resent, { expectedSecretHash: current.secretHash }, effects))) continue;
      try {
        await send(this.deps, actor, resent, secret);
      } catch (error) {
        const undone = auditOf(this.deps).write(actor, this.deps.clock.now(), invitationFact(id, 'resend', 'Tenant invitation resend undone: its e-mail could not be sent'));
        await this.deps.invitations.update(current, { expectedSecretHash: resent.secretHash }, undone);
        throw error;
      }
      return resent;
    }
  }
}

export interface ListInvitationsInput {
  readonly status?: string | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

/** GET /tenants/self/invitations. */
export class ListInvitations {
  constructor(private readonly deps: InvitationDeps) {}

  async execute(actor: Actor, input: ListInvitationsInput): Promise<Page<Invitation>> {
    requirePermission(actor, 'tenant:invitation:read');
    const request = pageRequest(input.page, input.size);
    if (input.status !== undefined && !(INVITATION_STATUSES as readonly string[]).includes(input.status)) {
      throw ValidationError.field('status', 'Status must be PENDING or EXPIRED.');
    }
    const status = input.status as InvitationStatus | undefined;
    return this.deps.invitations.list(actor.tenantId, { now: this.deps.clock.now(), ...(status ? { status } : {}) }, request);
  }
}

/** GET /tenants/self/invitations/{id}. */
export class GetInvitation {
  constructor(private readonly deps: InvitationDeps) {}

  async execute(actor: Actor, id: string): Promise<Invitation> {
    requirePermission(actor, 'tenant:invitation:read');
    const invitation = await this.deps.invitations.findById(actor.tenantId, id);
    if (!invitation) throw notFound();
    return invitation;
  }
}

/** DELETE /tenants/self/invitations/{id}: outstanding links stop working. */
export class DeleteInvitation {
  constructor(private readonly deps: InvitationDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'tenant:invitation:delete');
    await this.deps.queue.run(id, async () => {
      const effects = auditOf(this.deps).write(actor, this.deps.clock.now(), invitationFact(id, 'delete', 'Tenant invitation deleted'));
      if (!(await this.deps.invitations.delete(actor.tenantId, id, undefined, effects))) throw notFound();
      await withdraw(this.deps, id);
    });
  }
}

export interface AcceptInvitationInput {
  readonly token: string;
  readonly firstName?: string | undefined;
  readonly lastName?: string | undefined;
}

const gone = (): GoneError => new GoneError('INVITATION_GONE', 'This invitation link is no longer valid.');

/** An invitation found by the secret of its link, with its tenant's name: what the acceptance page shows. */
export interface InvitationPreview {
  readonly invitation: Invitation;
  readonly tenantName: string;
}

/** GET and POST /invitations/accept: no API key; the link's secret is the credential. */
export class AcceptInvitation {
  constructor(private readonly deps: InvitationDeps) {}

  /** The live invitation behind a link, or 410 for a used, resent-over, deleted or expired one. */
  async preview(token: string): Promise<InvitationPreview> {
    const invitation = await this.deps.invitations.findBySecretHash(hashKey(token));
    if (!invitation || invitationStatus(invitation, this.deps.clock.now()) === 'EXPIRED') throw gone();
    const tenant = await this.deps.tenants.findById(invitation.tenantId);
    return { invitation, tenantName: tenant?.name ?? 'svc' };
  }

  /** Makes the invitee an ADMIN member (creating the user if new) and removes the invitation. */
  async execute(input: AcceptInvitationInput): Promise<MemberWithUser & { readonly tenantName: string }> {
    const { invitation, tenantName } = await this.preview(input.token);
    const now = this.deps.clock.now();
    const user = await this.findOrCreateUser(invitation.email, input, now);
    if (await this.deps.members.findByUser(invitation.tenantId, user.id)) {
      throw new ConflictError('ALREADY_MEMBER', 'You are already a member of this tenant.');
    }
    // Only while the invitation still carries this link's secret: of two concurrent acceptances only one deletes it,
    // and a link that a resend replaced since the preview read it is as dead as the resend's answer said.
    await this.deps.queue.run(invitation.id, async () => {
      const condition = { expectedSecretHash: invitation.secretHash };
      const effects = auditOf(this.deps).write(systemActor(invitation.tenantId), now, invitationFact(invitation.id, 'accept', `Tenant invitation accepted by user ${user.id}`), [
        { type: 'tenant.invitation.accepted', data: { ...invitationHookData(invitation), user_id: user.id } },
      ]);
      if (!(await this.deps.invitations.delete(invitation.tenantId, invitation.id, condition, effects))) throw gone();
      await withdraw(this.deps, invitation.id);
    });
    const member: Member = {
      id: this.deps.ids.next(),
      tenantId: invitation.tenantId,
      userId: user.id,
      role: 'ADMIN',
      createdBy: invitation.createdBy,
      createdAt: now,
    };
    const joined = auditOf(this.deps).write(systemActor(invitation.tenantId), now, { entityType: 'tenant_member', entityId: member.id, operation: 'create', message: `Tenant member created for user ${user.id} by an accepted invitation` }, [
      { type: 'tenant.member.created', data: memberHookData(member) },
    ]);
    await this.deps.members.create(member, joined);
    return { member, user, tenantName };
  }

  private async findOrCreateUser(email: string, input: AcceptInvitationInput, now: Date): Promise<User> {
    const existing = await this.deps.users.findByEmail(email);
    if (existing) return existing;
    const firstName = input.firstName?.trim() || undefined;
    const lastName = input.lastName?.trim() || undefined;
    if ((firstName?.length ?? 0) > 100) throw ValidationError.field('first_name', 'At most 100 characters.');
    if ((lastName?.length ?? 0) > 100) throw ValidationError.field('last_name', 'At most 100 characters.');
    const user: User = { id: this.deps.ids.next(), email, firstName, lastName, createdAt: now };
    await this.deps.users.create(user);
    return user;
  }
}
