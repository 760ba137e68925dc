import type { WebhookEventType } from '../webhooks/webhook';
import type { AuditActorType, AuditEvent } from './audit-event';
import type { KeptAnswer } from '../idempotency/idempotency';

/**
 * A webhook event waiting to be delivered (beyond.md §6): written with the change it reports, in the same
 * transaction (ADR 4). It never holds token data: `data` is built by core from the object's own fields.
 *
 * It holds its parts, not its text: a store renders the delivered text ({@link outboxEventText}) only for a message
 * some webhook wants. Most tenants have no webhook, and a bulk tokenize brings a hundred messages: rendering each on
 * the request path cost a bulk tokenize about 5% of its CPU for nothing.
 */
export interface OutboxMessage {
  /** The event's id, the same in every delivery of it (receivers deduplicate by it). */
  readonly id: string;
  readonly tenantId: string;
  readonly type: WebhookEventType;
  readonly createdAt: Date;
  /** Who made the change (the event's `data.actor`), and the request's trace id. */
  readonly actor: { readonly id: string; readonly type: AuditActorType; readonly traceId?: string | undefined };
  /** The object's own fields: the event's `data`, to which `actor` is added. */
  readonly data: Readonly<Record<string, unknown>>;
}

/** The delivered `event` object of `message` as JSON text: `{ id, type, timestamp, tenant_id, trace_id, data }`. */
export function outboxEventText(message: OutboxMessage): string {
  const { id, type, tenantId, createdAt, actor, data } = message;
  return JSON.stringify({
    id,
    type,
    timestamp: createdAt.toISOString(),
    tenant_id: tenantId,
    trace_id: actor.traceId ?? null,
    data: { ...data, actor: { id: actor.id, type: actor.type } },
  });
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
  /**
   * The idempotent request's answer, kept in the write's own transaction (the running claim marked done with it, as
   * `IdempotencyRepository.complete` would): a process killed after the commit leaves the key answered, so its retry
   * replays the answer instead of making the change a second time.
   */
  readonly kept?: KeptAnswer | undefined;
}

export const NO_EFFECTS: WriteEffects = { events: [], messages: [] };

export function hasEffects(effects: WriteEffects | undefined): effects is WriteEffects {
  return effects !== undefined && (effects.events.length > 0 || effects.messages.length > 0 || effects.kept !== undefined);
}
