import type { Webhook } from '@svc/core';
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
