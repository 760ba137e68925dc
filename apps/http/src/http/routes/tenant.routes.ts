import type {
  Clock,
  CreateInvitation,
  DeleteInvitation,
  DeleteMember,
  GetInvitation,
  GetTenant,
  ListInvitations,
  ListMembers,
  ResendInvitation,
} from '@svc/core';
import { isUuid, NotFoundError } from '@svc/core';
import type { IRouter, RequestHandler } from 'express';
import { actorOf, requires } from '../authenticate';
import { presentInvitation } from '../presenters/invitation.presenter';
import { presentPage } from '../presenters/pagination';
import { presentMember, presentSelfTenant } from '../presenters/tenant.presenter';
import { sendJson } from '../respond';
import { createInvitationSchema, listInvitationsQuery, listMembersQuery } from '../schemas/tenant.schemas';
import { emptyBody } from '../schemas/common';
import { validate } from '../validate';

export interface TenantUseCases {
  readonly getTenant: GetTenant;
  readonly listMembers: ListMembers;
  readonly deleteMember: DeleteMember;
  readonly createInvitation: CreateInvitation;
  readonly resendInvitation: ResendInvitation;
  readonly listInvitations: ListInvitations;
  readonly getInvitation: GetInvitation;
  readonly deleteInvitation: DeleteInvitation;
}

const uuid = (raw: string | string[] | undefined, resource: string): string => {
  if (typeof raw !== 'string' || !isUuid(raw)) throw new NotFoundError(resource);
  return raw.toLowerCase();
};

/** /tenants/self: the members and invitations of the caller's tenant. */
export function tenantRoutes(router: IRouter, auth: RequestHandler, useCases: TenantUseCases, json: RequestHandler, clock: Clock): void {
  router.get('/tenants/self', auth, requires('tenant:read'), async (_req, res) => {
    sendJson(res, 200, presentSelfTenant(await useCases.getTenant.execute(actorOf(res))));
  });

  router.get('/tenants/self/members', auth, requires('tenant:member:read'), async (req, res) => {
    const query = validate(listMembersQuery, req.query);
    // Ids are stored lower-cased: an id in capitals names the same user (as on /applications?id=).
    const page = await useCases.listMembers.execute(actorOf(res), { userIds: query.user_id?.map((id) => id.toLowerCase()), page: query.page, size: query.size });
    sendJson(res, 200, presentPage(page, ({ member, user }) => presentMember(member, user)));
  });

  router.delete('/tenants/self/members/:id', auth, requires('tenant:member:delete'), async (req, res) => {
    await useCases.deleteMember.execute(actorOf(res), uuid(req.params.id, 'member'));
    res.status(204).end();
  });

  router.post('/tenants/self/invitations', auth, requires('tenant:invitation:create'), json, async (req, res) => {
    const body = validate(createInvitationSchema, req.body);
    sendJson(res, 201, presentInvitation(await useCases.createInvitation.execute(actorOf(res), body), clock.now()));
  });

  router.post('/tenants/self/invitations/:id/resend', auth, requires('tenant:invitation:create', 'tenant:invitation:update'), json, async (req, res) => {
    validate(emptyBody, req.body);
    const invitation = await useCases.resendInvitation.execute(actorOf(res), uuid(req.params.id, 'invitation'));
    sendJson(res, 200, presentInvitation(invitation, clock.now()));
  });

  router.get('/tenants/self/invitations', auth, requires('tenant:invitation:read'), async (req, res) => {
    const query = validate(listInvitationsQuery, req.query);
    const page = await useCases.listInvitations.execute(actorOf(res), query);
    const now = clock.now();
    sendJson(res, 200, presentPage(page, (invitation) => presentInvitation(invitation, now)));
  });

  router.get('/tenants/self/invitations/:id', auth, requires('tenant:invitation:read'), async (req, res) => {
    const invitation = await useCases.getInvitation.execute(actorOf(res), uuid(req.params.id, 'invitation'));
    sendJson(res, 200, presentInvitation(invitation, clock.now()));
  });

  router.delete('/tenants/self/invitations/:id', auth, requires('tenant:invitation:delete'), async (req, res) => {
    await useCases.deleteInvitation.execute(actorOf(res), uuid(req.params.id, 'invitation'));
    res.status(204).end();
  });
}
