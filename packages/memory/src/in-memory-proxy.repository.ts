import type {
  CreateProxyOutcome,
  Page,
  PageRequest,
  Proxy,
  ProxyListFilter,
  ProxyRepository,
  UpdateProxyOutcome,
  WriteEffects,
} from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import { paginate } from './paginate';

/**
 * Every method runs to completion without awaiting, so each is atomic as the contract requires. Key hashes are
 * unique across tenants: a second create with a stored one throws, as a unique index would.
 */
export class InMemoryProxyRepository implements ProxyRepository {
  private readonly byId = new Map<string, Proxy>();
  /** Key hash → proxy id. */
  private readonly byKeyHash = new Map<string, string>();

  constructor(private readonly effects?: InMemoryEffects) {}

  async create(proxy: Proxy, limit: number, effects?: WriteEffects): Promise<CreateProxyOutcome> {
    if (this.byId.has(proxy.id)) throw new Error('duplicate proxy id');
    if (this.byKeyHash.has(proxy.keyHash)) throw new Error('duplicate proxy key hash');
    if (this.ofTenant(proxy.tenantId).length >= limit) return 'limit';
    this.byId.set(proxy.id, proxy);
    this.byKeyHash.set(proxy.keyHash, proxy.id);
    this.effects?.write(effects);
    return 'created';
  }

  async findById(tenantId: string, id: string): Promise<Proxy | undefined> {
    return this.owned(tenantId, id);
  }

  async findByKeyHash(keyHash: string): Promise<Proxy | undefined> {
    const id = this.byKeyHash.get(keyHash);
    return id === undefined ? undefined : this.byId.get(id);
  }

  async list(tenantId: string, filter: ProxyListFilter, page: PageRequest): Promise<Page<Proxy>> {
    const name = filter.name?.toLowerCase();
    return paginate(
      this.ofTenant(tenantId).filter(
        (p) => (!filter.ids || filter.ids.includes(p.id)) && (name === undefined || p.name.toLowerCase().includes(name)),
      ),
      page,
    );
  }

  async update(proxy: Proxy, effects?: WriteEffects): Promise<UpdateProxyOutcome> {
    const current = this.owned(proxy.tenantId, proxy.id);
    if (!current) return 'absent';
    if (current.version !== proxy.version - 1) return 'conflict';
    this.byId.set(proxy.id, { ...proxy, keyHash: current.keyHash, createdBy: current.createdBy, createdAt: current.createdAt });
    this.effects?.write(effects);
    return 'updated';
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    const current = this.owned(tenantId, id);
    if (!current) return false;
    this.byId.delete(id);
    this.byKeyHash.delete(current.keyHash);
    this.effects?.write(effects);
    return true;
  }

  private owned(tenantId: string, id: string): Proxy | undefined {
    const proxy = this.byId.get(id);
    return proxy?.tenantId === tenantId ? proxy : undefined;
  }

  private ofTenant(tenantId: string): Proxy[] {
    return [...this.byId.values()].filter((p) => p.tenantId === tenantId);
  }
}
