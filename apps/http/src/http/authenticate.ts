import type { EdgeAudit } from './audit-edge';
import { type Actor, type Authenticate, type Permission, requirePermission, requireTokenPermission } from '@svc/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Reads the key from SVC-API-KEY (or BT-API-KEY, so Basis Theory SDKs work unchanged) and resolves the actor. */
export function authenticate(useCase: Authenticate, audit?: EdgeAudit): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    audit?.entering(req, res);
    const key = req.get('svc-api-key') ?? req.get('bt-api-key');
    // The trace id rides on the actor into every audit event and webhook event the request causes.
    const actor = await useCase.execute(key?.trim(), res.locals.traceId as string | undefined);
    res.locals.actor = actor;
    audit?.authenticated(req, res, actor);
    next();
  };
}

export function actorOf(res: Response): Actor {
  return res.locals.actor as Actor;
}

/**
 * Checks a permission before the body is read, so a caller without it learns nothing from validation errors.
 * The use case checks again: the edge check is for the order of answers, not the only guard.
 */
export function requires(...permissions: Permission[]): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    requirePermission(actorOf(res), ...permissions);
    next();
  };
}

/** 403 before the body is read when no permission or rule could ever grant the token operation. */
export function requiresToken(permission: Permission): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    requireTokenPermission(actorOf(res), permission);
    next();
  };
}
