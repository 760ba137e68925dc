import { BSON } from 'mongodb';
import { type OutboxMessage, outboxEventText } from '@svc/core';
import {
  fanOut,
  fromDeliveryAttemptDocument,
  fromWebhookDeliveryDocument,
  type SubscribedWebhook,
  toDeliveryAttemptDocument,
  type WebhookDeliveryDocument,
} from './webhook-delivery-document';

const viaBson = <T extends object>(doc: T): T => BSON.deserialize(BSON.serialize(doc, { checkKeys: true })) as T;
const at = (ms: number): Date => new Date(Date.parse('2026-01-01T00:00:00.000Z') + ms);

const message = (id: string, patch: Partial<OutboxMessage> = {}): OutboxMessage => ({
  id,
  tenantId: 't1',
  type: 'token.created',
  createdAt: at(5),
  actor: { id: 'app-1', type: 'application', traceId: 'trace-1' },
  data: { id: `tok-${id}` },
  ...patch,
});

describe('fan-out of messages to deliveries', () => {
  const hooks: SubscribedWebhook[] = [
    { _id: 'w1', tenant_id: 't1', events: ['token.created', 'token.deleted'] },
    { _id: 'w2', tenant_id: 't1', events: ['token.created'] },
    { _id: 'w3', tenant_id: 't1', events: ['application.deleted'] },
    { _id: 'w4', tenant_id: 't2', events: ['token.created'] },
  ];

  it('makes one pending delivery per subscribed webhook of the message\'s tenant, due when the message was created', () => {
    const m = message('e1');
    expect(fanOut([m], hooks)).toEqual([
      { tenant_id: 't1', webhook_id: 'w1', event_id: 'e1', event_type: 'token.created', event: outboxEventText(m), status: 'pending', attempts: [], next_attempt_at: at(5), created_at: at(5) },
      { tenant_id: 't1', webhook_id: 'w2', event_id: 'e1', event_type: 'token.created', event: outboxEventText(m), status: 'pending', attempts: [], next_attempt_at: at(5), created_at: at(5) },
    ]);
  });

  it('matches each message on its own type and tenant', () => {
    const made = fanOut([message('e1', { type: 'token.deleted' }), message('e2', { tenantId: 't2' }), message('e3', { type: 'token.updated' })], hooks);
    expect(made.map((d) => [d.event_id, d.webhook_id])).toEqual([
      ['e1', 'w1'],
      ['e2', 'w4'],
    ]);
  });

  it('leaves nothing for a message no webhook wants', () => {
    expect(fanOut([message('e1', { type: 'proxy.deleted' })], hooks)).toEqual([]);
    expect(fanOut([message('e1')], [])).toEqual([]);
  });
});

describe('delivery documents', () => {
  it('round-trips a pending delivery through BSON, dates as dates, without the lease', () => {
    const [doc] = fanOut([message('e1')], [{ _id: 'w1', tenant_id: 't1', events: ['token.created'] }]);
    const stored: WebhookDeliveryDocument = viaBson({ ...doc!, lease_until: at(30_000) });
    const back = fromWebhookDeliveryDocument(stored);
    expect(back).toEqual({
      tenantId: 't1',
      webhookId: 'w1',
      eventId: 'e1',
      eventType: 'token.created',
      event: doc!.event,
      status: 'pending',
      attempts: [],
      nextAttemptAt: at(5),
      createdAt: at(5),
    });
    expect(back.nextAttemptAt).toBeInstanceOf(Date);
    expect(back).not.toHaveProperty('leaseUntil');
  });

  it('leaves the due time out of a finished delivery, absent or null', () => {
    const [doc] = fanOut([message('e1')], [{ _id: 'w1', tenant_id: 't1', events: ['token.created'] }]);
    const { next_attempt_at: _, ...finished } = { ...doc!, status: 'delivered' as const };
    expect(Object.keys(fromWebhookDeliveryDocument(finished))).not.toContain('nextAttemptAt');
    expect(Object.keys(fromWebhookDeliveryDocument({ ...finished, next_attempt_at: null }))).not.toContain('nextAttemptAt');
  });

  it('stores an attempt\'s absent status code or error as no field, and reads it back the same', () => {
    const withStatus = { at: at(20), statusCode: 500, durationMs: 7 };
    const withError = { at: at(21), error: 'timed out', durationMs: 10_000 };
    expect(toDeliveryAttemptDocument(withStatus)).toEqual({ at: at(20), status_code: 500, duration_ms: 7 });
    expect(toDeliveryAttemptDocument(withError)).toEqual({ at: at(21), error: 'timed out', duration_ms: 10_000 });
    for (const attempt of [withStatus, withError]) {
      const back = fromDeliveryAttemptDocument(viaBson(toDeliveryAttemptDocument(attempt)));
      expect(back).toEqual(attempt);
      expect(Object.keys(back).sort()).toEqual(Object.keys(attempt).sort());
    }
    expect(Object.keys(fromDeliveryAttemptDocument({ at: at(1), status_code: null, error: null, duration_ms: 1 })).sort()).toEqual(['at', 'durationMs']);
  });
});
