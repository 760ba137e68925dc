import type {
  DeliveryAttempt,
  DeliveryKey,
  DeliveryNext,
  OutboxMessage,
  Page,
  PageRequest,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryRepository,
} from '@svc/core';
import { offsetOf, outboxEventText, pageOf } from '@svc/core';

interface Kept {
  delivery: WebhookDelivery;
  leaseUntil?: number;
}

const keyOf = (k: DeliveryKey): string => `${k.tenantId}\u0000${k.webhookId}\u0000${k.eventId}`;

const byDue = (a: Kept, b: Kept): number =>
  a.delivery.nextAttemptAt!.getTime() - b.delivery.nextAttemptAt!.getTime() ||
  a.delivery.createdAt.getTime() - b.delivery.createdAt.getTime() ||
  (a.delivery.eventId < b.delivery.eventId ? -1 : 1);

const newestFirst = (a: WebhookDelivery, b: WebhookDelivery): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.eventId < b.eventId ? 1 : a.eventId > b.eventId ? -1 : 0);

/** Deliveries in memory. Every method runs to completion without awaiting, so each is atomic. */
export class InMemoryWebhookDeliveryRepository implements WebhookDeliveryRepository {
  private readonly deliveries = new Map<string, Kept>();

  /** One pending delivery of each message to each of `webhooks` (enabled, of its tenant, subscribed), in the caller's step. */
  fanOut(messages: readonly OutboxMessage[], webhooksOf: (tenantId: string) => readonly Webhook[]): void {
    for (const message of messages) {
      // Rendered once, and only for a message some webhook wants.
      let event: string | undefined;
      for (const webhook of webhooksOf(message.tenantId)) {
        if (webhook.status !== 'enabled' || !webhook.events.includes(message.type)) continue;
        event ??= outboxEventText(message);
        const delivery: WebhookDelivery = {
          tenantId: message.tenantId,
          webhookId: webhook.id,
          eventId: message.id,
          eventType: message.type,
          event,
          status: 'pending',
          attempts: [],
          nextAttemptAt: message.createdAt,
          createdAt: message.createdAt,
        };
        this.deliveries.set(keyOf(delivery), { delivery });
      }
    }
  }

  /** Removes a deleted webhook's deliveries, in the caller's step. */
  dropWebhook(tenantId: string, webhookId: string): void {
    for (const [key, kept] of this.deliveries) {
      if (kept.delivery.tenantId === tenantId && kept.delivery.webhookId === webhookId) this.deliveries.delete(key);
    }
  }

  async leaseDue(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDelivery[]> {
    const due = [...this.deliveries.values()]
      .filter(
        (k) =>
          k.delivery.status === 'pending' &&
          k.delivery.nextAttemptAt!.getTime() <= now.getTime() &&
          (k.leaseUntil === undefined || k.leaseUntil <= now.getTime()),
      )
      .sort(byDue)
      .slice(0, limit);
    for (const kept of due) kept.leaseUntil = leaseUntil.getTime();
    return due.map((k) => k.delivery);
  }

  async recordAttempt(key: DeliveryKey, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean> {
    const kept = this.deliveries.get(keyOf(key));
    if (!kept) return false;
    if (kept.delivery.status !== 'pending') {
      // Failed meanwhile (its webhook was disabled): the attempt is kept, the status stays.
      this.deliveries.set(keyOf(key), { delivery: { ...kept.delivery, attempts: [...kept.delivery.attempts, attempt] } });
      return true;
    }
    const { nextAttemptAt: _, ...rest } = kept.delivery;
    this.deliveries.set(keyOf(key), {
      delivery: {
        ...rest,
        status: next.status,
        attempts: [...rest.attempts, attempt],
        ...(next.status === 'pending' ? { nextAttemptAt: next.nextAttemptAt } : {}),
      },
    });
    return true;
  }

  async failPending(tenantId: string, webhookId: string): Promise<number> {
    let count = 0;
    for (const kept of this.deliveries.values()) {
      const d = kept.delivery;
      if (d.tenantId !== tenantId || d.webhookId !== webhookId || d.status !== 'pending') continue;
      const { nextAttemptAt: _, ...rest } = d;
      kept.delivery = { ...rest, status: 'failed' };
      delete kept.leaseUntil;
      count++;
    }
    return count;
  }

  async list(tenantId: string, webhookId: string, page: PageRequest): Promise<Page<WebhookDelivery>> {
    const matches = [...this.deliveries.values()]
      .map((k) => k.delivery)
      .filter((d) => d.tenantId === tenantId && d.webhookId === webhookId)
      .sort(newestFirst);
    const start = offsetOf(page);
    return pageOf(matches.slice(start, start + page.size), matches.length, page);
  }

  async countPending(): Promise<number> {
    return [...this.deliveries.values()].filter((k) => k.delivery.status === 'pending').length;
  }

  async pruneFinished(before: Date): Promise<number> {
    let count = 0;
    for (const [key, kept] of this.deliveries) {
      if (kept.delivery.status !== 'pending' && kept.delivery.createdAt.getTime() < before.getTime()) {
        this.deliveries.delete(key);
        count++;
      }
    }
    return count;
  }
}
