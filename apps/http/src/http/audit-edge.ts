import { type Actor, type Audit, type AuditEntityType, type AuditFact, type Clock, SYSTEM_AUDIT_STREAM } from '@svc/core';
import { METHODS } from 'node:http';
import type { Request, Response } from 'express';

/** What a route does, as the audit log names it. `edge`: its successes are recorded here (its use case records none). */
interface RouteAudit {
  readonly entityType: AuditEntityType;
  readonly operation: string;
  readonly edge?: boolean;
  /** The path parameter naming the entity. */
  readonly idParam?: string;
}

const r = (entityType: AuditEntityType, operation: string, edge = false, idParam?: string): RouteAudit => ({ entityType, operation, edge, idParam });

/** Every authenticated route, by method and pattern. */
const ROUTES: ReadonlyMap<string, RouteAudit> = new Map([
  ['POST /tokens', r('token', 'create')],
  ['POST /tokens/search', r('token', 'search')],
  ['POST /v2/tokens/search', r('token', 'search')],
  ['GET /tokens', r('token', 'read')],
  ['GET /v2/tokens', r('token', 'read')],
  ['GET /tokens/:id', r('token', 'read', false, 'id')],
  ['PATCH /tokens/:id', r('token', 'update', false, 'id')],
  ['DELETE /tokens/:id', r('token', 'delete', false, 'id')],
  ['POST /tokenize', r('token', 'tokenize')],
  ['POST /detokenize', r('token', 'detokenize')],
  ['POST /token-intents', r('token_intent', 'create')],
  ['GET /token-intents/:id', r('token_intent', 'reveal', false, 'id')],
  ['DELETE /token-intents/:id', r('token_intent', 'delete', false, 'id')],
  ['POST /applications', r('application', 'create')],
  ['GET /applications', r('application', 'read', true)],
  ['GET /applications/key', r('application', 'read', true)],
  ['GET /applications/:id', r('application', 'read', false, 'id')],
  ['PUT /applications/:id', r('application', 'update', false, 'id')],
  ['POST /applications/:id/regenerate', r('application', 'regenerate', false, 'id')],
  ['DELETE /applications/:id', r('application', 'delete', false, 'id')],
  ['POST /applications/:id/keys', r('application', 'key.create', false, 'id')],
  ['GET /applications/:id/keys', r('application', 'read', true, 'id')],
  ['GET /applications/:id/keys/:key_id', r('application', 'read', true, 'id')],
  ['DELETE /applications/:id/keys/:key_id', r('application', 'key.delete', false, 'id')],
  ['POST /sessions', r('session', 'create')],
  ['POST /sessions/authorize', r('session', 'authorize')],
  ['GET /tenants/self', r('tenant', 'read', true)],
  ['GET /tenants/self/members', r('tenant_member', 'read', true)],
  ['DELETE /tenants/self/members/:id', r('tenant_member', 'delete', false, 'id')],
  ['POST /tenants/self/invitations', r('tenant_invitation', 'create')],
  ['POST /tenants/self/invitations/:id/resend', r('tenant_invitation', 'resend', false, 'id')],
  ['GET /tenants/self/invitations', r('tenant_invitation', 'read', true)],
  ['GET /tenants/self/invitations/:id', r('tenant_invitation', 'read', true, 'id')],
  ['DELETE /tenants/self/invitations/:id', r('tenant_invitation', 'delete', false, 'id')],
  ['GET /permissions', r('tenant', 'read', true)],
  ['GET /logs', r('tenant', 'read', true)],
  ['GET /logs/entity-types', r('tenant', 'read', true)],
  ['POST /webhooks', r('webhook', 'create')],
  ['GET /webhooks', r('webhook', 'read', true)],
  ['GET /webhooks/event-types', r('webhook', 'read', true)],
  ['GET /webhooks/:id', r('webhook', 'read', true, 'id')],
  ['PUT /webhooks/:id', r('webhook', 'update', false, 'id')],
  ['DELETE /webhooks/:id', r('webhook', 'delete', false, 'id')],
  ['GET /webhooks/:id/deliveries', r('webhook', 'read', true, 'id')],
  ['POST /proxies', r('proxy', 'create')],
  ['GET /proxies', r('proxy', 'read', true)],
  ['GET /proxies/:id', r('proxy', 'read', false, 'id')],
  ['PUT /proxies/:id', r('proxy', 'update', false, 'id')],
  ['PATCH /proxies/:id', r('proxy', 'update', false, 'id')],
  ['DELETE /proxies/:id', r('proxy', 'delete', false, 'id')],
  // The proxy takes any method; its successes are recorded by the use case (with the destination's status).
  ...METHODS.flatMap((method) => [
    [`${method} /proxy`, r('proxy', 'invoke')] as const,
    [`${method} /proxy/*path`, r('proxy', 'invoke')] as const,
  ]),
]);

/** The longest entity id an event takes from a path (ids are UUIDs or token ids of at most 400 characters). */
const MAX_ID = 400;

/** How a route's pattern reads in a message: fixed text from the route table, never the request's own path. */
const routeText = (req: Request): string => `${req.method} ${String(req.route?.path ?? '')}`;

/** What a route does as the log names it, by method and matched pattern (metrics count token operations by it). */
export function routeAudit(method: string, pattern: string): Pick<RouteAudit, 'entityType' | 'operation'> | undefined {
  return ROUTES.get(`${method} ${pattern}`);
}

function routeOf(req: Request): RouteAudit | undefined {
  const pattern = req.route?.path;
  return typeof pattern === 'string' ? ROUTES.get(`${req.method} ${pattern}`) : undefined;
}

/**
 * The path parameters of the matched route, as `entering` kept them: the error handler, where failures are recorded,
 * runs outside the route and sees no parameters of its own.
 */
function paramsOf(req: Request, res: Response): Record<string, unknown> {
  return (res.locals.auditParams as Record<string, unknown> | undefined) ?? req.params;
}

function entityIdOf(req: Request, res: Response, route: RouteAudit): string | undefined {
  const value = route.idParam ? paramsOf(req, res)[route.idParam] : undefined;
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID ? value : undefined;
}

/**
 * The audit events the edge records (ADR 4): refusals (401, 403) and failures of every authenticated route, and the
 * successes of routes whose use cases record none (lists and reads of non-secret objects). Use cases record the rest.
 */
export class EdgeAudit {
  constructor(
    private readonly audit: Audit,
    private readonly clock: Clock,
  ) {}

  /**
   * Called as a route starts authenticating: keeps its path parameters for the events of its failures. The router
   * gives the error handler a params object of its own rather than emptying this one, so keeping it needs no copy.
   */
  entering(req: Request, res: Response): void {
    res.locals.auditParams = req.params;
  }

  /** Called once a request is authenticated: routes recorded here get their success event when they answer. */
  authenticated(req: Request, res: Response, actor: Actor): void {
    const route = routeOf(req);
    if (!route?.edge) return;
    res.once('finish', () => {
      if (res.statusCode >= 400) return;
      const fact: AuditFact = { entityType: route.entityType, entityId: entityIdOf(req, res, route), operation: route.operation, message: `${routeText(req)} answered` };
      this.audit.record(actor, this.clock.now(), fact);
    });
  }

  /** A request that ended in an error answer of `status`. */
  failed(req: Request, res: Response, status: number): void {
    const route = routeOf(req);
    if (!route) return;
    const actor = res.locals.actor as Actor | undefined;
    const entityId = entityIdOf(req, res, route);
    const now = this.clock.now();
    if (!actor) {
      if (status !== 401) return;
      const fact: AuditFact = { entityType: route.entityType, entityId, operation: route.operation, outcome: 'denied', message: `${routeText(req)} refused: no valid API key` };
      this.audit.record({ tenantId: SYSTEM_AUDIT_STREAM, id: 'unauthenticated', type: 'system', traceId: res.locals.traceId as string | undefined }, now, fact);
      return;
    }
    const denied = status === 401 || status === 403;
    // A caller that hung up was sent no answer: the event says so rather than name a status nobody saw (a proxy call
    // ended when its caller left, before the destination answered).
    const gone = res.destroyed && !res.headersSent;
    const message = denied
      ? `${routeText(req)} refused: the key lacks the permission or rule`
      : gone
        ? `${routeText(req)} ended: the caller went away before the answer`
        : `${routeText(req)} failed with status ${status}`;
    this.audit.record(actor, now, { entityType: route.entityType, entityId, operation: route.operation, outcome: denied ? 'denied' : 'failed', message });
  }
}
