import type { Application, ApplicationFilter, ApplicationRepository, Page, PageRequest } from '@svc/core';
import { paginate } from './paginate';

export class InMemoryApplicationRepository implements ApplicationRepository {
  private readonly byId = new Map<string, Application>();
  private readonly byKeyHash = new Map<string, string>();

  async create(application: Application): Promise<void> {
    if (this.byId.has(application.id)) throw new Error('duplicate application id');
    this.byId.set(application.id, application);
    this.byKeyHash.set(application.keyHash, application.id);
  }

  async findById(tenantId: string, id: string): Promise<Application | undefined> {
    const app = this.byId.get(id);
    return app?.tenantId === tenantId ? app : undefined;
  }

  async findByKeyHash(keyHash: string): Promise<Application | undefined> {
    const id = this.byKeyHash.get(keyHash);
    return id === undefined ? undefined : this.byId.get(id);
  }

  async list(tenantId: string, filter: ApplicationFilter, page: PageRequest): Promise<Page<Application>> {
    const matches = [...this.byId.values()].filter(
      (a) =>
        a.tenantId === tenantId &&
        (!filter.ids || filter.ids.includes(a.id)) &&
        (!filter.type || a.type === filter.type) &&
        (!filter.liveAt || !a.expiresAt || a.expiresAt.getTime() > filter.liveAt.getTime()),
    );
    return paginate(matches, page);
  }

  async update(application: Application): Promise<boolean> {
    const current = await this.findById(application.tenantId, application.id);
    if (!current) return false;
    this.byKeyHash.delete(current.keyHash);
    this.byId.set(application.id, application);
    this.byKeyHash.set(application.keyHash, application.id);
    return true;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const current = await this.findById(tenantId, id);
    if (!current) return false;
    this.byId.delete(id);
    this.byKeyHash.delete(current.keyHash);
    return true;
  }

  async deleteExpired(now: Date): Promise<number> {
    let count = 0;
    for (const app of [...this.byId.values()]) {
      if (app.expiresAt && app.expiresAt.getTime() <= now.getTime() && (await this.delete(app.tenantId, app.id))) count++;
    }
    return count;
  }
}
