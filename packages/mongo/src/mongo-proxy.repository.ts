import type { ClientSession, Collection, Filter } from 'mongodb';
import {
  type CreateProxyOutcome,
  hasEffects,
  type Page,
  type PageRequest,
  type Proxy,
  type ProxyListFilter,
  type ProxyRepository,
  type UpdateProxyOutcome,
  type WriteEffects,
} from '@svc/core';
import type { EffectWrites } from './effect-writes';
import { TenantCounters } from './tenant-counters';
import { findPage, NEWEST_FIRST } from './paginate';
import { fromProxyDocument, nameContains, type ProxyCountDocument, type ProxyDocument, proxyUpdate, toProxyDocument } from './proxy-document';

/**
 * Proxies in MongoDB. The per-tenant limit is a counter document, as for webhooks: a create increments it only while
 * it is below the limit and inserts the proxy in the same transaction, a delete removes and decrements in one, so
 * concurrent creates from any client conflict on the counter (the driver retries the loser) and never leave more than
 * the limit. A stored key hash (the unique index `proxies_by_key_hash`) or id fails the insert: the transaction is
 * aborted, the counter with it, and the error thrown. An update is a compare-and-set on the version in its filter.
 */
export class MongoProxyRepository implements ProxyRepository {
  private readonly counters: TenantCounters;

  constructor(
    private readonly proxies: Collection<ProxyDocument>,
    counts: Collection<ProxyCountDocument>,
    private readonly effects: EffectWrites,
  ) {
    this.counters = new TenantCounters(counts);
  }

  async create(proxy: Proxy, limit: number, effects?: WriteEffects): Promise<CreateProxyOutcome> {
    await this.counters.ensure(proxy.tenantId);
    return this.effects.transaction(async (session): Promise<CreateProxyOutcome> => {
      if (!(await this.counters.take(proxy.tenantId, limit, session))) return 'limit';
      await this.proxies.insertOne(toProxyDocument(proxy), { session });
      if (hasEffects(effects)) await this.effects.store(effects, session);
      return 'created';
    });
  }

  async findById(tenantId: string, id: string): Promise<Proxy | undefined> {
    const doc = await this.proxies.findOne({ _id: id, tenant_id: tenantId });
    return doc ? fromProxyDocument(doc) : undefined;
  }

  async findByKeyHash(keyHash: string): Promise<Proxy | undefined> {
    const doc = await this.proxies.findOne({ key_hash: keyHash });
    return doc ? fromProxyDocument(doc) : undefined;
  }

  async list(tenantId: string, filter: ProxyListFilter, page: PageRequest): Promise<Page<Proxy>> {
    return findPage(this.proxies, proxyListFilter(tenantId, filter), NEWEST_FIRST, page, fromProxyDocument);
  }

  async update(proxy: Proxy, effects?: WriteEffects): Promise<UpdateProxyOutcome> {
    const filter = { _id: proxy.id, tenant_id: proxy.tenantId };
    const swap = async (session: ClientSession | undefined): Promise<UpdateProxyOutcome> => {
      const swapped = await this.proxies.updateOne({ ...filter, version: proxy.version - 1 }, proxyUpdate(proxy), { session });
      if (swapped.matchedCount === 1) return 'updated';
      return (await this.proxies.countDocuments(filter, { session, limit: 1 })) === 0 ? 'absent' : 'conflict';
    };
    return this.effects.write(effects, swap, (outcome) => outcome === 'updated');
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    return this.effects.transaction(async (session: ClientSession) => {
      const removed = await this.proxies.deleteOne({ _id: id, tenant_id: tenantId }, { session });
      if (removed.deletedCount !== 1) return false;
      await this.counters.release(tenantId, session);
      if (hasEffects(effects)) await this.effects.store(effects, session);
      return true;
    });
  }
}

/** The query of a tenant's proxies that {@link MongoProxyRepository.list} pages through. */
export function proxyListFilter(tenantId: string, filter: ProxyListFilter): Filter<ProxyDocument> {
  return {
    tenant_id: tenantId,
    ...(filter.ids ? { _id: { $in: [...filter.ids] } } : {}),
    ...(filter.name !== undefined ? nameContains(filter.name) : {}),
  };
}
