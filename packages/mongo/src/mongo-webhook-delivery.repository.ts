import type { Collection, Filter, Sort, UpdateFilter } from 'mongodb';
import type {
  DeliveryAttempt,
  DeliveryKey,
  DeliveryNext,
  Page,
  PageRequest,
  WebhookDelivery,
  WebhookDeliveryRepository,
} from '@svc/core';
import { findPage } from './paginate';
import { fromWebhookDeliveryDocument, toDeliveryAttemptDocument, type WebhookDeliveryDocument } from './webhook-delivery-document';

/** Oldest due first; the rest only makes the order total (an event goes to several webhooks at the same time). */
export const DUE_ORDER: Sort = { next_attempt_at: 1, created_at: 1, event_id: 1, webhook_id: 1 };
/** A webhook's deliveries, newest first. */
export const DELIVERIES_NEWEST_FIRST: Sort = { created_at: -1, event_id: -1 };

/** Pending deliveries due at `now` that no dispatcher holds: never leased, or their lease ran out (at or before `now`). */
export function dueFilter(now: Date): Filter<WebhookDeliveryDocument> {
  // `$not: { $gt }` also matches a missing or null lease.
  return { status: 'pending', next_attempt_at: { $lte: now }, lease_until: { $not: { $gt: now } } };
}

/** One delivery by its key. */
export const deliveryKeyFilter = (key: DeliveryKey): Filter<WebhookDeliveryDocument> => ({
  tenant_id: key.tenantId,
  webhook_id: key.webhookId,
  event_id: key.eventId,
});

/** Appends the attempt, moves to `next` (a due time only while pending) and releases the lease. */
export function attemptUpdate(attempt: DeliveryAttempt, next: DeliveryNext): UpdateFilter<WebhookDeliveryDocument> {
  return next.status === 'pending'
    ? {
        $push: { attempts: toDeliveryAttemptDocument(attempt) },
        $set: { status: next.status, next_attempt_at: next.nextAttemptAt },
        $unset: { lease_until: '' },
      }
    : {
        $push: { attempts: toDeliveryAttemptDocument(attempt) },
        $set: { status: next.status },
        $unset: { lease_until: '', next_attempt_at: '' },
      };
}

/**
 * Deliveries in MongoDB (`webhook_deliveries`), created by EffectWrites in the transaction of the write they report.
 * Leasing is one `findOneAndUpdate` per delivery: it matches only a delivery that is due and not held, and sets its
 * lease in the same atomic step, so of concurrent dispatchers in any number of processes each delivery goes to one.
 */
export class MongoWebhookDeliveryRepository implements WebhookDeliveryRepository {
  constructor(private readonly deliveries: Collection<WebhookDeliveryDocument>) {}

  async leaseDue(now: Date, leaseUntil: Date, limit: number): Promise<WebhookDelivery[]> {
    const leased: WebhookDelivery[] = [];
    while (leased.length < limit) {
      const doc = await this.deliveries.findOneAndUpdate(dueFilter(now), { $set: { lease_until: leaseUntil } }, { sort: DUE_ORDER, returnDocument: 'after' });
      if (!doc) break;
      leased.push(fromWebhookDeliveryDocument(doc));
    }
    return leased;
  }

  async recordAttempt(key: DeliveryKey, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean> {
    if ((await this.deliveries.updateOne({ ...deliveryKeyFilter(key), status: 'pending' }, attemptUpdate(attempt, next))).matchedCount === 1) {
      return true;
    }
    // Failed meanwhile (its webhook was disabled): the attempt is kept, the status stays.
    const kept = await this.deliveries.updateOne(deliveryKeyFilter(key), { $push: { attempts: toDeliveryAttemptDocument(attempt) }, $unset: { lease_until: '' } });
    return kept.matchedCount === 1;
  }

  async failPending(tenantId: string, webhookId: string): Promise<number> {
    const result = await this.deliveries.updateMany(
      { tenant_id: tenantId, webhook_id: webhookId, status: 'pending' },
      { $set: { status: 'failed' }, $unset: { next_attempt_at: '', lease_until: '' } },
    );
    return result.modifiedCount;
  }

  async list(tenantId: string, webhookId: string, page: PageRequest): Promise<Page<WebhookDelivery>> {
    return findPage(this.deliveries, { tenant_id: tenantId, webhook_id: webhookId }, DELIVERIES_NEWEST_FIRST, page, fromWebhookDeliveryDocument);
  }

  async countPending(): Promise<number> {
    return this.deliveries.countDocuments({ status: 'pending' });
  }

  async pruneFinished(before: Date): Promise<number> {
    return (await this.deliveries.deleteMany({ status: { $in: ['delivered', 'failed'] }, created_at: { $lt: before } })).deletedCount;
  }
}
