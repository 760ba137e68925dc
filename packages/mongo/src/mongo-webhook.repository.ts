import type { TenantCountDocument } from './tenant-counters';
import type { Binary, ClientSession, Collection, Filter } from 'mongodb';
import {
  type CreateWebhookOutcome,
  hasEffects,
  type Page,
  type PageRequest,
  type Webhook,
  type WebhookEventType,
  type WebhookRepository,
  type WriteEffects,
} from '@svc/core';
import { fromBinary, optional, setOrUnset, toBinary } from './documents';
import { type EffectWrites, whenTrue } from './effect-writes';
import type { WebhookDeliveryDocument } from './webhook-delivery-document';
import { TenantCounters } from './tenant-counters';
import { findPage, NEWEST_FIRST } from './paginate';

/** A webhook; `_id` is its id. The signing secret is only ever stored sealed (AES-256-GCM under the tenant's key). */
export interface WebhookDocument {
  _id: string;
  tenant_id: string;
  name: string;
  url: string;
  events: string[];
  status: Webhook['status'];
  notify_email?: string;
  sealed_secret: Binary;
  created_by: string;
  created_at: Date;
  modified_by?: string;
  modified_at?: Date;
}

/** How many webhooks a tenant holds; `_id` is the tenant id. Kept by the same transactions that insert and delete. */
export type WebhookCountDocument = TenantCountDocument;

const fromDocument = (d: WebhookDocument): Webhook => ({
  id: d._id,
  tenantId: d.tenant_id,
  name: d.name,
  url: d.url,
  events: d.events as WebhookEventType[],
  status: d.status,
  notifyEmail: optional(d.notify_email),
  sealedSecret: fromBinary(d.sealed_secret),
  createdBy: d.created_by,
  createdAt: d.created_at,
  modifiedBy: optional(d.modified_by),
  modifiedAt: optional(d.modified_at),
});

/** The fields an update replaces: never the secret nor the creation fields. */
const mutable = (w: Webhook) => ({
  name: w.name,
  url: w.url,
  events: [...w.events],
  status: w.status,
  notify_email: w.notifyEmail,
  modified_by: w.modifiedBy,
  modified_at: w.modifiedAt,
});

/**
 * Webhooks in MongoDB. The per-tenant limit is a counter document: a create increments it only while it is below the
 * limit and inserts the webhook in the same transaction, a delete removes and decrements in one, so concurrent creates
 * from any client conflict on the counter (the driver retries the loser) and never leave more than the limit. A
 * delete removes the webhook's deliveries in its transaction. WriteEffects are stored last in a write's transaction,
 * so their messages fan out to the webhooks as the write left them (a created webhook gets its own event).
 */
export class MongoWebhookRepository implements WebhookRepository {
  private readonly counters: TenantCounters;

  constructor(
    private readonly webhooks: Collection<WebhookDocument>,
    counts: Collection<WebhookCountDocument>,
    private readonly deliveries: Collection<WebhookDeliveryDocument>,
    private readonly effects: EffectWrites,
  ) {
    this.counters = new TenantCounters(counts);
  }

  async create(webhook: Webhook, limit: number, effects?: WriteEffects): Promise<CreateWebhookOutcome> {
    await this.counters.ensure(webhook.tenantId);
    return this.effects.transaction(async (session): Promise<CreateWebhookOutcome> => {
      if (!(await this.counters.take(webhook.tenantId, limit, session))) return 'limit';
      await this.webhooks.insertOne(
        {
          _id: webhook.id,
          tenant_id: webhook.tenantId,
          name: webhook.name,
          url: webhook.url,
          events: [...webhook.events],
          status: webhook.status,
          ...(webhook.notifyEmail !== undefined ? { notify_email: webhook.notifyEmail } : {}),
          sealed_secret: toBinary(webhook.sealedSecret),
          created_by: webhook.createdBy,
          created_at: webhook.createdAt,
          ...(webhook.modifiedBy !== undefined ? { modified_by: webhook.modifiedBy } : {}),
          ...(webhook.modifiedAt !== undefined ? { modified_at: webhook.modifiedAt } : {}),
        },
        { session },
      );
      if (hasEffects(effects)) await this.effects.store(effects, session);
      return 'created';
    });
  }

  async findById(tenantId: string, id: string): Promise<Webhook | undefined> {
    const doc = await this.webhooks.findOne({ _id: id, tenant_id: tenantId });
    return doc ? fromDocument(doc) : undefined;
  }

  async list(tenantId: string, page: PageRequest): Promise<Page<Webhook>> {
    return findPage(this.webhooks, { tenant_id: tenantId }, NEWEST_FIRST, page, fromDocument);
  }

  async update(webhook: Webhook, effects?: WriteEffects, asRead?: Webhook): Promise<boolean> {
    // A webhook never modified has no modified_at.
    const filter: Filter<WebhookDocument> = { _id: webhook.id, tenant_id: webhook.tenantId };
    // Never modified: `null` matches a field that is absent or holds null (a document written by another tool).
    if (asRead) (filter as Record<string, unknown>).modified_at = asRead.modifiedAt ?? null;
    const update = setOrUnset<WebhookDocument>(mutable(webhook));
    return this.effects.write(effects, async (session) => (await this.webhooks.updateOne(filter, update, { session })).matchedCount === 1, whenTrue);
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.transaction(async (session: ClientSession) => {
      const removed = await this.webhooks.deleteOne({ _id: id, tenant_id: tenantId }, { session });
      if (removed.deletedCount !== 1) return false;
      await this.counters.release(tenantId, session);
      await this.deliveries.deleteMany({ tenant_id: tenantId, webhook_id: id }, { session });
      if (hasEffects(effects)) await this.effects.store(effects, session);
      return true;
    });
  }
}
