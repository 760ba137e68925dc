import type { Webhook, WriteEffects } from '@svc/core';
import type { InMemoryAuditLogRepository } from './in-memory-audit-log';
import type { InMemoryIdempotencyRepository } from './in-memory-idempotency.repository';
import type { InMemoryWebhookDeliveryRepository } from './in-memory-webhook-delivery.repository';

/**
 * Where the in-memory repositories put a write's effects (ADR 4): called in the same turn of the event loop as the
 * change, after it happened, so the change and its effects are one atomic step.
 */
export class InMemoryEffects {
  constructor(
    private readonly auditLog: InMemoryAuditLogRepository,
    private readonly deliveries: InMemoryWebhookDeliveryRepository,
    private readonly webhooksOf: (tenantId: string) => readonly Webhook[],
    private readonly idempotency?: InMemoryIdempotencyRepository,
  ) {}

  write(effects: WriteEffects | undefined): void {
    if (!effects) return;
    this.auditLog.keep(effects.events);
    this.deliveries.fanOut(effects.messages, this.webhooksOf);
    if (effects.kept) this.idempotency?.keep(effects.kept);
  }
}
