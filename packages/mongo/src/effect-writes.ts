import type { ClientSession, Collection, MongoClient } from 'mongodb';
import { hasEffects, type OutboxMessage, type WriteEffects } from '@svc/core';
import { type AuditEventDocument, toAuditEventDocument } from './audit-event-document';
import type { WebhookDocument } from './mongo-webhook.repository';
import { type IdempotencyDocument, keepAnswer } from './mongo-idempotency.repository';
import { fanOut, type SubscribedWebhook, type WebhookDeliveryDocument } from './webhook-delivery-document';

/** Thrown inside a transaction to end it without committing; {@link inTransaction} answers its value. */
class Aborted extends Error {
  constructor(readonly value: unknown) {
    super('transaction aborted');
  }
}

/**
 * Ends the transaction being run by {@link inTransaction} without committing anything, and makes it answer `value`.
 * Also the way out after a write the server refused inside a transaction (a duplicate key): the server has aborted
 * the transaction, and a callback that swallowed the error would have the driver retry the commit.
 */
export function abortWith<T>(value: T): never {
  throw new Aborted(value);
}

/**
 * Runs `work` in a session transaction and answers what it returns, or what it passed to {@link abortWith}. The
 * driver retries `work` on a transient error (a write conflict with a concurrent transaction), so `work` reads what
 * it decides on inside the transaction. Needs a replica set or a sharded cluster.
 */
export async function inTransaction<T>(client: MongoClient, work: (session: ClientSession) => Promise<T>): Promise<T> {
  try {
    return await client.withSession((session) => session.withTransaction(() => work(session)));
  } catch (error) {
    if (error instanceof Aborted) return error.value as T;
    throw error;
  }
}

/** The effects of several writes made in one transaction, as one. */
export function mergeEffects(all: readonly WriteEffects[]): WriteEffects {
  const kept = all.filter((e) => e.kept !== undefined);
  if (kept.length > 1) throw new Error('one transaction keeps at most one idempotent answer');
  return { events: all.flatMap((e) => e.events), messages: all.flatMap((e) => e.messages), kept: kept[0]?.kept };
}

/** For {@link EffectWrites.write}: a write that answers whether it changed something. */
export const whenTrue = (changed: boolean): boolean => changed;
/** For {@link EffectWrites.write}: a write that changes something whenever it returns (it throws otherwise). */
export const always = (): boolean => true;

/** The collections a write's effects go to, and the webhooks its messages fan out to. */
export interface EffectCollections {
  readonly auditEvents: Collection<AuditEventDocument>;
  readonly webhooks: Collection<WebhookDocument>;
  readonly webhookDeliveries: Collection<WebhookDeliveryDocument>;
  readonly idempotency: Collection<IdempotencyDocument>;
}

/**
 * Stores WriteEffects (ADR 4) in the transaction of the write that brings them: the audit events, and one pending
 * delivery of each message to each enabled webhook of its tenant subscribed to its type. A write without effects
 * runs as it always did, with no transaction, so it costs what it did before the audit log.
 */
export class EffectWrites {
  constructor(
    private readonly client: MongoClient,
    private readonly collections: EffectCollections,
  ) {}

  /**
   * Runs `change`: without effects, on its own (`session` undefined); with them, in a transaction that also stores
   * them when `changed` says the change happened. `change` passes `{ session }` to every operation.
   */
  async write<T>(
    effects: WriteEffects | undefined,
    change: (session: ClientSession | undefined) => Promise<T>,
    changed: (result: T) => boolean,
  ): Promise<T> {
    if (!hasEffects(effects)) return change(undefined);
    return this.transaction(async (session) => {
      const result = await change(session);
      if (changed(result)) await this.store(effects, session);
      return result;
    });
  }

  /** A transaction of the store's client (see {@link inTransaction}). */
  transaction<T>(work: (session: ClientSession) => Promise<T>): Promise<T> {
    return inTransaction(this.client, work);
  }

  /** Inserts `effects` in `session`'s transaction; the fan-out reads the webhooks as that transaction sees them. */
  async store(effects: WriteEffects, session: ClientSession): Promise<void> {
    if (effects.kept) await keepAnswer(this.collections.idempotency, effects.kept, session);
    if (effects.events.length > 0) {
      await this.collections.auditEvents.insertMany(effects.events.map(toAuditEventDocument), { session });
    }
    if (effects.messages.length === 0) return;
    const deliveries = fanOut(effects.messages, await this.subscribers(effects.messages, session));
    if (deliveries.length > 0) await this.collections.webhookDeliveries.insertMany(deliveries, { session });
  }

  /** The enabled webhooks of the messages' tenants subscribed to any of their types (fanOut matches each pair). */
  private async subscribers(messages: readonly OutboxMessage[], session: ClientSession): Promise<SubscribedWebhook[]> {
    const tenants = [...new Set(messages.map((m) => m.tenantId))];
    const types = [...new Set(messages.map((m) => m.type))];
    return this.collections.webhooks
      .find(
        { tenant_id: { $in: tenants }, status: 'enabled', events: { $in: types } },
        { session, projection: { _id: 1, tenant_id: 1, events: 1 } },
      )
      .toArray();
  }
}
