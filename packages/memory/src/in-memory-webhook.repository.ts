import type { WriteEffects } from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import type { InMemoryWebhookDeliveryRepository } from './in-memory-webhook-delivery.repository';
import type { CreateWebhookOutcome, Page, PageRequest, Webhook, WebhookRepository } from '@svc/core';
import { paginate } from './paginate';

/** Every method runs to completion without awaiting, so each is atomic as the contract requires. */
export class InMemoryWebhookRepository implements WebhookRepository {
  private readonly byId = new Map<string, Webhook>();

  constructor(
    private readonly effects?: InMemoryEffects,
    private readonly deliveries?: InMemoryWebhookDeliveryRepository,
  ) {}

  async create(webhook: Webhook, limit: number, effects?: WriteEffects): Promise<CreateWebhookOutcome> {
    if (this.byId.has(webhook.id)) throw new Error('duplicate webhook id');
    if (this.ofTenant(webhook.tenantId).length >= limit) return 'limit';
    this.byId.set(webhook.id, webhook);
    this.effects?.write(effects);
    return 'created';
  }

  async findById(tenantId: string, id: string): Promise<Webhook | undefined> {
    return this.owned(tenantId, id);
  }

  async list(tenantId: string, page: PageRequest): Promise<Page<Webhook>> {
    return paginate(this.ofTenant(tenantId), page);
  }

  async update(webhook: Webhook, effects?: WriteEffects, asRead?: Webhook): Promise<boolean> {
    const current = this.owned(webhook.tenantId, webhook.id);
    if (!current) return false;
    if (asRead && current.modifiedAt?.getTime() !== asRead.modifiedAt?.getTime()) return false;
    this.byId.set(webhook.id, {
      ...webhook,
      sealedSecret: current.sealedSecret,
      createdBy: current.createdBy,
      createdAt: current.createdAt,
    });
    this.effects?.write(effects);
    return true;
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    if (!this.owned(tenantId, id)) return false;
    this.byId.delete(id);
    this.deliveries?.dropWebhook(tenantId, id);
    this.effects?.write(effects);
    return true;
  }

  private owned(tenantId: string, id: string): Webhook | undefined {
    const webhook = this.byId.get(id);
    return webhook?.tenantId === tenantId ? webhook : undefined;
  }

  /** A tenant's webhooks, for fanning messages out. */
  ofTenant(tenantId: string): Webhook[] {
    return [...this.byId.values()].filter((w) => w.tenantId === tenantId);
  }
}
