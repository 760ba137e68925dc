import type { AuditEvent } from '@svc/core';
import type { IRouter, RequestHandler } from 'express';
import { z } from 'zod';
import type { AuditLogUseCases } from '../../container';
import { actorOf, requires } from '../authenticate';
import { presentPage } from '../presenters/pagination';
import { sendJson } from '../respond';
import { pagingQuery } from '../schemas/common';
import { validate } from '../validate';

/**
 * Strict: a filter the log does not know (`outcome`, or `entity_id[]=…` from a client that writes arrays with
 * brackets) is a 400 naming it, never silently dropped, which would answer every event as if it matched.
 */
export const listLogsQuery = z.strictObject({
  ...pagingQuery,
  entity_type: z.string().optional(),
  entity_id: z.string().optional(),
  start_date: z.string().optional(),
  end_date: z.string().optional(),
});

/** An event as `GET /logs` shows it, in Basis Theory's shape plus svc's `outcome`, `actor_type` and `trace_id`. */
function presentEvent(event: AuditEvent) {
  return {
    id: event.id,
    tenant_id: event.tenantId,
    actor_id: event.actorId,
    actor_type: event.actorType,
    entity_type: event.entityType,
    entity_id: event.entityId ?? null,
    operation: event.operation,
    outcome: event.outcome,
    message: event.message,
    trace_id: event.traceId ?? null,
    created_at: event.createdAt.toISOString(),
  };
}

/** The audit log (beyond.md §5): `log:read`, management keys. */
export function logRoutes(router: IRouter, auth: RequestHandler, useCases: AuditLogUseCases): void {
  router.get('/logs', auth, requires('log:read'), async (req, res) => {
    const query = validate(listLogsQuery, req.query);
    const page = await useCases.list.execute(actorOf(res), {
      entityType: query.entity_type,
      entityId: query.entity_id,
      startDate: query.start_date,
      endDate: query.end_date,
      page: query.page,
      size: query.size,
    });
    sendJson(res, 200, presentPage(page, presentEvent));
  });

  router.get('/logs/entity-types', auth, requires('log:read'), (_req, res) => {
    sendJson(res, 200, useCases.entityTypes.execute(actorOf(res)).map((t) => ({ display_name: t.displayName, value: t.value })));
  });
}
