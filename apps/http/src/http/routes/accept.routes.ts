import { type AcceptInvitation, DomainError, GoneError, ValidationError } from '@svc/core';
import express, { type IRouter, type NextFunction, type Request, type Response } from 'express';
import { jsonBody, requireUtf8, unsupportedTransferCoding } from '../json-body';
import { acceptedPage, acceptPage, messagePage, PAGE_CSP } from '../pages/accept-page';
import { presentMember } from '../presenters/tenant.presenter';
import { problemFor } from '../problem';
import { sendJson } from '../respond';
import { acceptInvitationSchema } from '../schemas/tenant.schemas';
import { validate } from '../validate';

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).setHeader('Content-Security-Policy', PAGE_CSP);
  res.type('text/html; charset=utf-8').send(html);
}

/** Errors of the HTML flow become pages with the same status; the JSON flow keeps problem+json. */
function pageError(res: Response, error: unknown, next: NextFunction): void {
  if (!(error instanceof DomainError)) {
    next(error);
    return;
  }
  const status = problemFor(error, '')?.status ?? 400;
  if (error instanceof GoneError) sendPage(res, 410, messagePage('This link no longer works', 'The invitation was used, replaced by a newer one, deleted or has expired. Ask for a new invitation.'));
  else sendPage(res, status, messagePage('The invitation could not be accepted', error.message));
}

const tokenOf = (req: Request): string => (typeof req.query.token === 'string' ? req.query.token : '');

/** /invitations/accept: the only endpoints without an API key; the link's secret is the credential. */
export function acceptRoutes(router: IRouter, accept: AcceptInvitation, bodyLimitBytes: number): void {
  const json = jsonBody(bodyLimitBytes);
  const form = express.urlencoded({ extended: false, limit: bodyLimitBytes, parameterLimit: 10, verify: requireUtf8 });

  router.get('/invitations/accept', async (req, res, next) => {
    try {
      const token = tokenOf(req);
      if (!token) throw ValidationError.field('token', 'The token is required.');
      const { invitation, tenantName } = await accept.preview(token);
      sendPage(res, 200, acceptPage({ tenantName, email: invitation.email, token, expiresAt: invitation.expiresAt }));
    } catch (error) {
      pageError(res, error, next);
    }
  });

  router.post('/invitations/accept', async (req, res, next) => {
    if (req.is('application/x-www-form-urlencoded')) {
      const refused = unsupportedTransferCoding(req);
      if (refused) return next(refused);
      form(req, res, async (parseError?: unknown) => {
        if (parseError) return next(parseError);
        try {
          const body = validate(acceptInvitationSchema, req.body);
          const { tenantName } = await accept.execute({ token: body.token, firstName: body.first_name, lastName: body.last_name });
          sendPage(res, 201, acceptedPage(tenantName));
        } catch (error) {
          pageError(res, error, next);
        }
      });
      return;
    }
    json(req, res, async (parseError?: unknown) => {
      if (parseError) return next(parseError);
      try {
        const body = validate(acceptInvitationSchema, req.body);
        const { member, user } = await accept.execute({ token: body.token, firstName: body.first_name, lastName: body.last_name });
        sendJson(res, 201, presentMember(member, user));
      } catch (error) {
        next(error);
      }
    });
  });
}
