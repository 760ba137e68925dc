import type { Page, PageRequest } from '../shared/pagination';
import type { WebhookEventType } from './webhook';

/** One try at delivering an event: the destination's status code, or why there was none. */
export interface DeliveryAttempt {
  readonly at: Date;
  readonly statusCode?: number | undefined;
  /** A fixed description of a failure without a status (refused by the outbound policy, timed out, unreachable). */
  readonly error?: string | undefined;
  readonly durationMs: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** An event on its way to one webhook. Identified by tenant, webhook and event. */
export interface WebhookDelivery {
  readonly tenantId: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly eventType: WebhookEventType;
  /** The `event` object as JSON text (see OutboxMessage). */
  readonly event: string;
  readonly status: DeliveryStatus;
  readonly attempts: readonly DeliveryAttempt[];
  /** When the next attempt is due; absent once delivered or failed. */
  readonly nextAttemptAt?: Date | undefined;
  readonly createdAt: Date;
}

export interface DeliveryKey {
  readonly tenantId: string;
  readonly webhookId: string;
  readonly eventId: string;
}

/** What an attempt leads to: done, given up, or another try at `nextAttemptAt`. */
export type DeliveryNext =
  | { readonly status: 'delivered' }
  | { readonly status: 'failed' }
  | { readonly status: 'pending'; readonly nextAttemptAt: Date };

/**
 * Deliveries (the webhook outbox, ADR 4). They are created by stores from WriteEffects messages, in the write's
 * transaction; the dispatcher leases due ones, attempts them and records each attempt.
 */
export interface WebhookDeliveryRepository {
  /**
   * Up to `limit` pending deliveries due at `now` (nextAttemptAt ≤ now) whose lease has run out, oldest due first,
   * each leased until `leaseUntil` in the same atomic step: of concurrent calls, also across processes, each delivery
   * goes to one.
   */
  leaseDue(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Appends `attempt` and releases the lease; moves the delivery to `next` only while it is pending: one failed
   * meanwhile (its webhook disabled by another attempt) keeps the attempt and stays failed. False when it is gone.
   */
  recordAttempt(key: DeliveryKey, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean>;
  /** Marks every pending delivery of a webhook failed (it was disabled); returns how many. */
  failPending(tenantId: string, webhookId: string): Promise<number>;
  /** A webhook's deliveries, newest first (created_at, then event id, both descending), with the total. */
  list(tenantId: string, webhookId: string, page: PageRequest): Promise<Page<WebhookDelivery>>;
  /** How many deliveries are pending, all tenants together (the backlog). */
  countPending(): Promise<number>;
  /** Removes delivered and failed deliveries created before `before`; returns how many. */
  pruneFinished(before: Date): Promise<number>;
}
