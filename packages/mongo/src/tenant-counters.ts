import type { ClientSession, Collection } from 'mongodb';
import { isDuplicateKeyError } from './mongo-errors';

/** A tenant's count of one kind of object (webhooks, proxies), kept beside them to enforce a per-tenant limit. */
export interface TenantCountDocument {
  _id: string;
  n: number;
}

/**
 * Per-tenant limits under concurrency: a create takes a place on the counter only while it is below the limit, in
 * the transaction that inserts the object, and a delete gives it back in the one that removes it; concurrent creates
 * from any client conflict on the counter document (the driver retries the loser), so none passes the limit.
 */
export class TenantCounters {
  constructor(private readonly counts: Collection<TenantCountDocument>) {}

  /** The tenant's counter, created at 0 outside the transaction (a concurrent creation of it is as good). */
  async ensure(tenantId: string): Promise<void> {
    try {
      await this.counts.updateOne({ _id: tenantId }, { $setOnInsert: { n: 0 } }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  /** Takes a place below `limit`; false when the tenant is at it. */
  async take(tenantId: string, limit: number, session: ClientSession): Promise<boolean> {
    return (await this.counts.updateOne({ _id: tenantId, n: { $lt: limit } }, { $inc: { n: 1 } }, { session })).modifiedCount === 1;
  }

  async release(tenantId: string, session: ClientSession): Promise<void> {
    await this.counts.updateOne({ _id: tenantId }, { $inc: { n: -1 } }, { session });
  }
}
