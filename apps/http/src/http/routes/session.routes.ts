import { type AuthorizeSession, type CreatedSession, type CreateSession } from '@svc/core';
import type { IRouter, RequestHandler } from 'express';
import { actorOf, requires } from '../authenticate';
import { sendJson } from '../respond';
import { keepEmptyWithWrite, keepWithWrite } from '../idempotency';
import { emptyBody } from '../schemas/common';
import { authorizeSessionSchema } from '../schemas/session.schemas';
import { validate } from '../validate';

export interface SessionUseCases {
  readonly create: CreateSession;
  readonly authorize: AuthorizeSession;
}

export function sessionRoutes(router: IRouter, auth: RequestHandler, useCases: SessionUseCases, json: RequestHandler): void {
  router.post('/sessions', auth, requires('session:create'), json, async (req, res) => {
    validate(emptyBody, req.body);
    const present = (session: CreatedSession) => ({ session_key: session.sessionKey, nonce: session.nonce, expires_at: session.expiresAt.toISOString() });
    sendJson(res, 201, present(await useCases.create.execute(actorOf(res), keepWithWrite(res, 201, present))));
  });

  router.post('/sessions/authorize', auth, requires('session:authorize'), json, async (req, res) => {
    const body = validate(authorizeSessionSchema, req.body);
    await useCases.authorize.execute(actorOf(res), {
      nonce: body.nonce,
      permissions: body.permissions,
      rules: body.rules,
      expiresAt: body.expires_at,
    }, keepEmptyWithWrite(res, 200));
    res.status(200).end();
  });
}
