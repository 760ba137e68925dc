import type { Actor } from '../auth/actor';
import { requirePermission } from '../auth/authorize';
import { type FieldErrors, ValidationError } from '../shared/errors';
import { type Page, pageRequest } from '../shared/pagination';
import { parseIsoDate } from '../shared/dates';
import { type AuditEvent, auditEntityTypeCatalogue, isAuditEntityType } from './audit-event';
import type { AuditLogFilter, AuditLogRepository } from './audit-log';

/** `GET /logs` query, as the edge read it. */
export interface ListAuditLogInput {
  readonly entityType?: string | undefined;
  readonly entityId?: string | undefined;
  readonly startDate?: string | undefined;
  readonly endDate?: string | undefined;
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

const MAX_ENTITY_ID = 400;

function dateOf(errors: Record<string, string[]>, field: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = parseIsoDate(value);
  if (!date) {
    errors[field] = ['Must be an ISO 8601 date or date-time, such as 2026-01-31 or 2026-01-31T12:00:00Z.'];
    return undefined;
  }
  return date;
}

/** GET /logs: a tenant's audit events, newest first, filtered by entity and a half-open date range. */
export class ListAuditLog {
  constructor(
    private readonly deps: {
      readonly auditLog: AuditLogRepository;
      /** Writes the events still batched in memory first, so a caller reads its own reads back. */
      readonly flush?: (() => Promise<void>) | undefined;
    },
  ) {}

  async execute(actor: Actor, input: ListAuditLogInput): Promise<Page<AuditEvent>> {
    requirePermission(actor, 'log:read');
    const errors: Record<string, string[]> = {};
    if (input.entityType !== undefined && !isAuditEntityType(input.entityType)) {
      errors.entity_type = [`Unknown entity type; GET /logs/entity-types lists them.`];
    }
    if (input.entityId !== undefined && (input.entityId.length === 0 || input.entityId.length > MAX_ENTITY_ID)) {
      errors.entity_id = [`Must be 1 to ${MAX_ENTITY_ID} characters.`];
    }
    const startDate = dateOf(errors, 'start_date', input.startDate);
    const endDate = dateOf(errors, 'end_date', input.endDate);
    let request: ReturnType<typeof pageRequest> | undefined;
    try {
      request = pageRequest(input.page, input.size);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      Object.assign(errors, error.errors);
    }
    if (Object.keys(errors).length > 0 || !request) throw new ValidationError(errors as FieldErrors);
    const filter: AuditLogFilter = {
      ...(input.entityType !== undefined ? { entityType: input.entityType as AuditLogFilter['entityType'] } : {}),
      ...(input.entityId !== undefined ? { entityId: input.entityId } : {}),
      ...(startDate ? { startDate } : {}),
      ...(endDate ? { endDate } : {}),
    };
    await this.deps.flush?.();
    return this.deps.auditLog.list(actor.tenantId, filter, request);
  }
}

/** GET /logs/entity-types. */
export class ListAuditEntityTypes {
  execute(actor: Actor): ReturnType<typeof auditEntityTypeCatalogue> {
    requirePermission(actor, 'log:read');
    return auditEntityTypeCatalogue();
  }
}

