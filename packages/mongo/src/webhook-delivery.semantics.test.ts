import { find, Query, update } from 'mingo';
import type { DeliveryAttempt, DeliveryNext, OutboxMessage } from '@svc/core';
import { attemptUpdate, deliveryKeyFilter, DUE_ORDER, dueFilter } from './mongo-webhook-delivery.repository';
import { fanOut, fromWebhookDeliveryDocument, type WebhookDeliveryDocument } from './webhook-delivery-document';

/**
 * The delivery queue's filters and updates, evaluated by mingo (MongoDB's query and update language in JavaScript):
 * leasing as the repository's `findOneAndUpdate(dueFilter, { $set: lease }, { sort: DUE_ORDER })` does it, and
 * recording attempts. Not a MongoDB test: the contract suite against a server is.
 */
const at = (ms: number): Date => new Date(Date.parse('2026-01-01T00:00:00.000Z') + ms);

function queue(...createdAt: number[]): WebhookDeliveryDocument[] {
  const messages = createdAt.map(
    (ms, i): OutboxMessage => ({ id: `e${i}`, tenantId: 't1', type: 'token.created', createdAt: at(ms), actor: { id: 'app-1', type: 'application' }, data: {} }),
  );
  return fanOut(messages, [{ _id: 'w1', tenant_id: 't1', events: ['token.created'] }]);
}

type Doc = Record<string, unknown>;
const asDocs = (docs: WebhookDeliveryDocument[]): Doc[] => docs as unknown as Doc[];

/** `leaseDue` over `docs`: one find-and-update per delivery (the first due in DUE_ORDER), until none or `limit`. */
function leaseDue(docs: WebhookDeliveryDocument[], now: Date, leaseUntil: Date, limit: number): string[] {
  const leased: string[] = [];
  while (leased.length < limit) {
    const [next] = find(asDocs(docs), dueFilter(now) as Doc).sort(DUE_ORDER as Doc).limit(1).all();
    if (!next) break;
    update(next, { $set: { lease_until: leaseUntil } });
    leased.push(String(next.event_id));
  }
  return leased;
}

/** `recordAttempt` over `docs`: the update applied to the delivery with the key, if any. */
function record(docs: WebhookDeliveryDocument[], eventId: string, attempt: DeliveryAttempt, next: DeliveryNext): boolean {
  const key = new Query(deliveryKeyFilter({ tenantId: 't1', webhookId: 'w1', eventId }) as Doc);
  const doc = asDocs(docs).find((d) => key.test(d));
  if (!doc) return false;
  update(doc, attemptUpdate(attempt, next) as Doc);
  return true;
}

describe('the delivery queue (evaluated by mingo, not by MongoDB)', () => {
  it('leases due deliveries oldest first, not again while leased, and again once the lease ran out', () => {
    const docs = queue(300, 100, 5_000);
    expect(leaseDue(docs, at(1_000), at(31_000), 10)).toEqual(['e1', 'e0']);
    expect(leaseDue(docs, at(2_000), at(32_000), 10)).toEqual([]);
    expect(leaseDue(docs, at(31_000), at(61_000), 10)).toEqual(['e1', 'e0', 'e2']);
    expect(leaseDue(docs, at(61_000), at(91_000), 1)).toEqual(['e1']);
  });

  it('records a retry: the attempt appended, due again at its time, the lease released', () => {
    const docs = queue(1);
    leaseDue(docs, at(10), at(30_000), 10);
    expect(record(docs, 'e0', { at: at(20), statusCode: 500, durationMs: 7 }, { status: 'pending', nextAttemptAt: at(1_020) })).toBe(true);
    expect(docs[0]).not.toHaveProperty('lease_until');
    expect(leaseDue(docs, at(1_019), at(40_000), 10)).toEqual([]);
    expect(leaseDue(docs, at(1_020), at(40_000), 10)).toEqual(['e0']);
    expect(fromWebhookDeliveryDocument(docs[0]!)).toMatchObject({ status: 'pending', nextAttemptAt: at(1_020), attempts: [{ at: at(20), statusCode: 500, durationMs: 7 }] });
  });

  it('records a final outcome: no due time, never leased again', () => {
    const docs = queue(1, 2);
    leaseDue(docs, at(10), at(30_000), 10);
    record(docs, 'e0', { at: at(20), statusCode: 200, durationMs: 5 }, { status: 'delivered' });
    record(docs, 'e1', { at: at(20), error: 'timed out', durationMs: 10_000 }, { status: 'failed' });
    const [delivered, failed] = docs.map(fromWebhookDeliveryDocument);
    expect(delivered).toEqual(expect.objectContaining({ status: 'delivered', attempts: [{ at: at(20), statusCode: 200, durationMs: 5 }] }));
    expect(delivered).not.toHaveProperty('nextAttemptAt');
    expect(failed).toEqual(expect.objectContaining({ status: 'failed', attempts: [{ at: at(20), error: 'timed out', durationMs: 10_000 }] }));
    expect(leaseDue(docs, at(100_000), at(200_000), 10)).toEqual([]);
    expect(record(docs, 'nope', { at: at(1), durationMs: 1 }, { status: 'delivered' })).toBe(false);
  });
});
