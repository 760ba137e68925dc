import { Query } from 'mingo';
import type { ClientSession, Collection, Document, MongoClient } from 'mongodb';
import type { AuditEvent, OutboxMessage, WriteEffects } from '@svc/core';
import type { AuditEventDocument } from './audit-event-document';
import { abortWith, EffectWrites, inTransaction, mergeEffects, whenTrue } from './effect-writes';
import { isTransactionConflict } from './mongo-errors';
import type { IdempotencyDocument } from './mongo-idempotency.repository';
import type { WebhookDocument } from './mongo-webhook.repository';
import type { WebhookDeliveryDocument } from './webhook-delivery-document';

/**
 * EffectWrites against a stand-in for the driver: a client whose sessions run transactions in order and record how
 * they ended, and collections that record inserts and answer the webhooks query by evaluating it with mingo. What
 * MongoDB itself does with the transaction is for the contract suite against a server.
 */
const NOW = new Date('2026-01-01T00:00:00.000Z');

class FakeDriver {
  readonly log: string[] = [];
  readonly session = { name: 'session' } as unknown as ClientSession;
  readonly inserted: Array<{ collection: string; docs: unknown[]; session: unknown }> = [];
  webhooks: Array<Pick<WebhookDocument, '_id' | 'tenant_id' | 'events' | 'status'>> = [];

  readonly client = {
    withSession: async <T>(work: (session: ClientSession) => Promise<T>): Promise<T> => {
      const session = {
        withTransaction: async (fn: () => Promise<T>): Promise<T> => {
          this.log.push('start');
          try {
            const result = await fn();
            this.log.push('commit');
            return result;
          } catch (error) {
            this.log.push('abort');
            throw error;
          }
        },
      } as unknown as ClientSession;
      return work(session);
    },
  } as unknown as MongoClient;

  private collection<D extends Document>(name: string): Collection<D> {
    return {
      insertMany: async (docs: unknown[], options: { session?: unknown }) => {
        this.inserted.push({ collection: name, docs, session: options.session });
        return { insertedCount: docs.length };
      },
      find: (filter: object) => ({
        toArray: async () => this.webhooks.filter((hook) => new Query(filter as Record<string, unknown>).test(hook)),
      }),
    } as unknown as Collection<D>;
  }

  readonly effects = new EffectWrites(this.client, {
    auditEvents: this.collection<AuditEventDocument>('audit_events'),
    webhooks: this.collection<WebhookDocument>('webhooks'),
    webhookDeliveries: this.collection<WebhookDeliveryDocument>('webhook_deliveries'),
    idempotency: this.collection<IdempotencyDocument>('idempotency_keys'),
  });
}

const anEvent = (id: string): AuditEvent => ({
  id,
  tenantId: 't1',
  actorId: 'app-1',
  actorType: 'application',
  entityType: 'token',
  entityId: 'tok-1',
  operation: 'create',
  outcome: 'success',
  message: 'Token created',
  createdAt: NOW,
});
const aMessage = (id: string, patch: Partial<OutboxMessage> = {}): OutboxMessage => ({
  id,
  tenantId: 't1',
  type: 'token.created',
  createdAt: NOW,
  actor: { id: 'app-1', type: 'application' },
  data: { id: 'tok-1' },
  ...patch,
});

describe('EffectWrites', () => {
  let driver: FakeDriver;
  beforeEach(() => {
    driver = new FakeDriver();
    driver.webhooks = [
      { _id: 'w1', tenant_id: 't1', events: ['token.created'], status: 'enabled' },
      { _id: 'w2', tenant_id: 't1', events: ['token.created'], status: 'disabled' },
      { _id: 'w3', tenant_id: 't1', events: ['token.deleted'], status: 'enabled' },
      { _id: 'w4', tenant_id: 't2', events: ['token.created'], status: 'enabled' },
    ];
  });

  it('runs a write without effects on its own: no session, no transaction, nothing stored', async () => {
    for (const effects of [undefined, { events: [], messages: [] }]) {
      const sessions: unknown[] = [];
      const result = await driver.effects.write(effects, async (session) => (sessions.push(session), true), whenTrue);
      expect(result).toBe(true);
      expect(sessions).toEqual([undefined]);
    }
    expect(driver.log).toEqual([]);
    expect(driver.inserted).toEqual([]);
  });

  it('stores the effects of a write that changed something in its transaction, fanned out to enabled subscribers', async () => {
    const effects: WriteEffects = { events: [anEvent('a1')], messages: [aMessage('m1'), aMessage('m2', { tenantId: 't2' })] };
    let seen: unknown;
    await driver.effects.write(effects, async (session) => ((seen = session), true), whenTrue);
    expect(seen).toBeDefined();
    expect(driver.log).toEqual(['start', 'commit']);
    expect(driver.inserted.map((i) => i.collection)).toEqual(['audit_events', 'webhook_deliveries']);
    expect(driver.inserted.every((i) => i.session === seen)).toBe(true);
    expect((driver.inserted[0]!.docs as AuditEventDocument[]).map((d) => d.id)).toEqual(['a1']);
    const deliveries = driver.inserted[1]!.docs as WebhookDeliveryDocument[];
    expect(deliveries.map((d) => [d.event_id, d.webhook_id])).toEqual([
      ['m1', 'w1'],
      ['m2', 'w4'],
    ]);
  });

  it('stores nothing for a write that changed nothing', async () => {
    const result = await driver.effects.write({ events: [anEvent('a1')], messages: [aMessage('m1')] }, async () => false, whenTrue);
    expect(result).toBe(false);
    expect(driver.inserted).toEqual([]);
  });

  it('stores events without deliveries when no webhook wants the message', async () => {
    await driver.effects.write({ events: [anEvent('a1')], messages: [aMessage('m1', { type: 'proxy.created' })] }, async () => true, whenTrue);
    expect(driver.inserted.map((i) => i.collection)).toEqual(['audit_events']);
  });

  it('merges the effects of several writes in order', () => {
    const one: WriteEffects = { events: [anEvent('a1')], messages: [aMessage('m1')] };
    const two: WriteEffects = { events: [anEvent('a2')], messages: [] };
    expect(mergeEffects([one, two])).toEqual({ events: [one.events[0], two.events[0]], messages: [one.messages[0]] });
  });
});

describe('inTransaction', () => {
  it('answers the value a transaction was aborted with, having aborted it', async () => {
    const driver = new FakeDriver();
    expect(await inTransaction(driver.client, async () => abortWith('lost'))).toBe('lost');
    expect(driver.log).toEqual(['start', 'abort']);
  });

  it('lets other errors through', async () => {
    const driver = new FakeDriver();
    await expect(inTransaction(driver.client, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});

describe('isTransactionConflict', () => {
  it('recognises a write conflict however the driver reports it', () => {
    expect(isTransactionConflict({ code: 112 })).toBe(true);
    expect(isTransactionConflict({ code: 251, hasErrorLabel: (label: string) => label === 'TransientTransactionError' })).toBe(true);
    expect(isTransactionConflict({ errorLabels: ['TransientTransactionError'] })).toBe(true);
    expect(isTransactionConflict({ code: 65, writeErrors: [{ code: 112 }] })).toBe(true);
  });

  it('does not take other errors for one', () => {
    expect(isTransactionConflict({ code: 11000 })).toBe(false);
    expect(isTransactionConflict({ code: 11000, hasErrorLabel: () => false, errorLabels: [] })).toBe(false);
    expect(isTransactionConflict(new Error('boom'))).toBe(false);
    expect(isTransactionConflict(undefined)).toBe(false);
  });
});
