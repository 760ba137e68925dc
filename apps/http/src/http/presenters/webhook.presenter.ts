import type { Webhook, WebhookDelivery } from '@svc/core';
import { iso } from './pagination';

/** A webhook as the API shows it: never its secret, except `secret` on the create answer, the one time it is shown. */
export function presentWebhook(webhook: Webhook, secret?: string) {
  return {
    id: webhook.id,
    tenant_id: webhook.tenantId,
    status: webhook.status,
    name: webhook.name,
    url: webhook.url,
    notify_email: webhook.notifyEmail,
    events: webhook.events,
    secret,
    created_by: webhook.createdBy,
    created_at: iso(webhook.createdAt),
    modified_by: webhook.modifiedBy,
    modified_at: iso(webhook.modifiedAt),
  };
}

/**
 * A delivery as `GET /webhooks/{id}/deliveries` shows it: the event (as delivered, without `delivered_at`), its
 * status and every attempt with the destination's status code or why there was none.
 */
export function presentDelivery(delivery: WebhookDelivery) {
  return {
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    webhook_id: delivery.webhookId,
    status: delivery.status,
    attempts: delivery.attempts.map((a) => ({
      attempted_at: a.at.toISOString(),
      status_code: a.statusCode ?? null,
      error: a.error ?? null,
      duration_ms: a.durationMs,
    })),
    next_attempt_at: iso(delivery.nextAttemptAt) ?? null,
    created_at: delivery.createdAt.toISOString(),
    event: JSON.parse(delivery.event) as unknown,
  };
}
