import type { CreateWebhookOutcome, Page, PageRequest, Webhook, WebhookRepository } from '@svc/core';
import { paginate } from './paginate';

/** Every method runs to completion without awaiting, so each is atomic as the contract requires. */
export class InMemoryWebhookRepository implements WebhookRepository {
  private readonly byId = new Map<string, Webhook>();

  async create(webhook: Webhook, limit: number): Promise<CreateWebhookOutcome> {
    if (this.byId.has(webhook.id)) throw new Error('duplicate webhook id');
    if (this.ofTenant(webhook.tenantId).length >= limit) return 'limit';
    this.byId.set(webhook.id, webhook);
    return 'created';
  }

  async findById(tenantId: string, id: string): Promise<Webhook | undefined> {
    return this.owned(tenantId, id);
  }

  async list(tenantId: string, page: PageRequest): Promise<Page<Webhook>> {
    return paginate(this.ofTenant(tenantId), page);
  }

  async update(webhook: Webhook): Promise<boolean> {
    const current = this.owned(webhook.tenantId, webhook.id);
    if (!current) return false;
    this.byId.set(webhook.id, {
      ...webhook,
      sealedSecret: current.sealedSecret,
      createdBy: current.createdBy,
      createdAt: current.createdAt,
    });
    return true;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    if (!this.owned(tenantId, id)) return false;
    return this.byId.delete(id);
  }

  private owned(tenantId: string, id: string): Webhook | undefined {
    const webhook = this.byId.get(id);
    return webhook?.tenantId === tenantId ? webhook : undefined;
  }

  private ofTenant(tenantId: string): Webhook[] {
    return [...this.byId.values()].filter((w) => w.tenantId === tenantId);
  }
}
