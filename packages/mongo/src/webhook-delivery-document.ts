import type { ObjectId } from 'mongodb';
import type { DeliveryAttempt, DeliveryStatus, OutboxMessage, WebhookDelivery, WebhookEventType } from '@svc/core';
import { outboxEventText } from '@svc/core';
import { compact, optional } from './documents';

export interface DeliveryAttemptDocument {
  at: Date;
  status_code?: number | null;
  error?: string | null;
  duration_ms: number;
}

/**
 * A delivery as MongoDB keeps it: one event on its way to one webhook, unique by `{ tenant_id, webhook_id, event_id }`
 * (an index says so; `_id` is a driver-generated ObjectId). `next_attempt_at` is present only while pending;
 * `lease_until` only while a dispatcher holds it.
 */
export interface WebhookDeliveryDocument {
  _id?: ObjectId;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventType;
  /** The `event` object as JSON text, exactly as delivered (it holds no token data). */
  event: string;
  status: DeliveryStatus;
  attempts: DeliveryAttemptDocument[];
  next_attempt_at?: Date | null;
  lease_until?: Date | null;
  created_at: Date;
}

/** What the fan-out needs of a webhook. */
export interface SubscribedWebhook {
  readonly _id: string;
  readonly tenant_id: string;
  readonly events: readonly string[];
}

/**
 * One pending delivery of each message to each of `webhooks` of its tenant subscribed to its type, due when the
 * message was created. `webhooks` are the enabled ones (the caller's query says so).
 */
export function fanOut(messages: readonly OutboxMessage[], webhooks: readonly SubscribedWebhook[]): WebhookDeliveryDocument[] {
  return messages.flatMap((message) => {
    const subscribed = webhooks.filter((hook) => hook.tenant_id === message.tenantId && hook.events.includes(message.type));
    if (subscribed.length === 0) return [];
    // Rendered once, and only for a message some webhook wants.
    const event = outboxEventText(message);
    return subscribed.map(
      (hook): WebhookDeliveryDocument => ({
        tenant_id: message.tenantId,
        webhook_id: hook._id,
        event_id: message.id,
        event_type: message.type,
        event,
        status: 'pending',
        attempts: [],
        next_attempt_at: message.createdAt,
        created_at: message.createdAt,
      }),
    );
  });
}

export const toDeliveryAttemptDocument = (attempt: DeliveryAttempt): DeliveryAttemptDocument =>
  compact<DeliveryAttemptDocument>({ at: attempt.at, status_code: attempt.statusCode, error: attempt.error, duration_ms: attempt.durationMs });

export function fromDeliveryAttemptDocument(doc: DeliveryAttemptDocument): DeliveryAttempt {
  const statusCode = optional(doc.status_code);
  const error = optional(doc.error);
  return {
    at: doc.at,
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(error !== undefined ? { error } : {}),
    durationMs: doc.duration_ms,
  };
}

export function fromWebhookDeliveryDocument(doc: WebhookDeliveryDocument): WebhookDelivery {
  const nextAttemptAt = optional(doc.next_attempt_at);
  return {
    tenantId: doc.tenant_id,
    webhookId: doc.webhook_id,
    eventId: doc.event_id,
    eventType: doc.event_type,
    event: doc.event,
    status: doc.status,
    attempts: doc.attempts.map(fromDeliveryAttemptDocument),
    ...(nextAttemptAt !== undefined ? { nextAttemptAt } : {}),
    createdAt: doc.created_at,
  };
}
