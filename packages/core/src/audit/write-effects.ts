import type { WebhookEventType } from '../webhooks/webhook';
import type { AuditEvent } from './audit-event';

/**
 * A webhook event waiting to be delivered (beyond.md §6): written with the change it reports, in the same
 * transaction (ADR 4). It never holds token data: `event` is built by core from the object's own fields.
 */
export interface OutboxMessage {
  /** The event's id, the same in every delivery of it (receivers deduplicate by it). */
  readonly id: string;
  readonly tenantId: string;
  readonly type: WebhookEventType;
  /** The delivered `event` object as JSON text: `{ id, type, timestamp, tenant_id, trace_id, data }`. */
  readonly event: string;
  readonly createdAt: Date;
}

/**
 * What a write brings with it (ADR 4): the audit events that record it and the webhook events that report it. A store
 * writes them in the write's own transaction, and only when the write changed something: a create that met a taken
 * id, a compare-and-set that lost, a delete of nothing store none of them.
 *
 * A store fans each message out at once to the tenant's enabled webhooks subscribed to its type: one pending
 * delivery per webhook (see WebhookDeliveryRepository). A message no webhook wants leaves nothing behind.
 */
export interface WriteEffects {
  readonly events: readonly AuditEvent[];
  readonly messages: readonly OutboxMessage[];
}

export const NO_EFFECTS: WriteEffects = { events: [], messages: [] };

export function hasEffects(effects: WriteEffects | undefined): effects is WriteEffects {
  return effects !== undefined && (effects.events.length > 0 || effects.messages.length > 0);
}
