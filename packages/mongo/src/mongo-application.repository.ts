import type { Collection, Filter } from 'mongodb';
import type { Application, ApplicationFilter, ApplicationRepository, Page, PageRequest } from '@svc/core';
import { type ApplicationDocument, fromApplicationDocument, toApplicationDocument } from './application-document';
import { findPage, NEWEST_FIRST } from './paginate';

/** Applications in MongoDB; `key_hash` has a unique index, so authentication is one index lookup. */
export class MongoApplicationRepository implements ApplicationRepository {
  constructor(private readonly applications: Collection<ApplicationDocument>) {}

  async create(application: Application): Promise<void> {
    await this.applications.insertOne(toApplicationDocument(application));
  }

  async findById(tenantId: string, id: string): Promise<Application | undefined> {
    const doc = await this.applications.findOne({ _id: id, tenant_id: tenantId });
    return doc ? fromApplicationDocument(doc) : undefined;
  }

  async findByKeyHash(keyHash: string): Promise<Application | undefined> {
    const doc = await this.applications.findOne({ key_hash: keyHash });
    return doc ? fromApplicationDocument(doc) : undefined;
  }

  async list(tenantId: string, filter: ApplicationFilter, page: PageRequest): Promise<Page<Application>> {
    const query: Filter<ApplicationDocument> = { tenant_id: tenantId };
    if (filter.ids) query._id = { $in: [...filter.ids] };
    if (filter.type) query.type = filter.type;
    if (filter.liveAt) query.$or = [{ expires_at: null }, { expires_at: { $gt: filter.liveAt } }];
    return findPage(this.applications, query, NEWEST_FIRST, page, fromApplicationDocument);
  }

  /** Replaces the whole document; the tenant in the filter keeps one tenant from overwriting another's. */
  async update(application: Application): Promise<boolean> {
    const doc = toApplicationDocument(application);
    return (await this.applications.replaceOne({ _id: doc._id, tenant_id: doc.tenant_id }, doc)).matchedCount === 1;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (await this.applications.deleteOne({ _id: id, tenant_id: tenantId })).deletedCount === 1;
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.applications.deleteMany({ expires_at: { $exists: true, $lte: now } })).deletedCount;
  }
}
