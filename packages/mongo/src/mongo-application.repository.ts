import type { ClientSession, Collection, Filter } from 'mongodb';
import type {
  AddKeyOutcome,
  Application,
  ApplicationFilter,
  ApplicationKey,
  ApplicationRepository,
  Page,
  PageRequest,
  WriteEffects,
} from '@svc/core';
import {
  type ApplicationDocument,
  applicationFields,
  fromApplicationDocument,
  fromApplicationKeyDocuments,
  toApplicationDocument,
  toApplicationKeyDocument,
} from './application-document';
import { setOrUnset } from './documents';
import { always, type EffectWrites, whenTrue } from './effect-writes';
import { findPage, NEWEST_FIRST } from './paginate';

/** Authentication reads the application without its keys. */
const WITHOUT_KEYS = { projection: { keys: 0 } } as const;

/**
 * Applications in MongoDB, each with its keys inside it; `keys.key_hash` has a unique index, so authentication is one
 * index lookup. Every write is one single-document operation, so each is atomic across processes without a
 * transaction: the key limit is part of the update's filter. A write with WriteEffects runs in a transaction that
 * stores them when it changed something (see EffectWrites).
 */
export class MongoApplicationRepository implements ApplicationRepository {
  constructor(
    private readonly applications: Collection<ApplicationDocument>,
    private readonly effects: EffectWrites,
  ) {}

  async create(application: Application, key: ApplicationKey | undefined, effects?: WriteEffects): Promise<void> {
    await this.effects.write(
      effects,
      async (session) => {
        await this.applications.insertOne(toApplicationDocument(application, key ? [key] : []), { session });
      },
      always,
    );
  }

  async findById(tenantId: string, id: string): Promise<Application | undefined> {
    const doc = await this.applications.findOne({ _id: id, tenant_id: tenantId }, WITHOUT_KEYS);
    return doc ? fromApplicationDocument(doc) : undefined;
  }

  async findByKeyHash(keyHash: string): Promise<Application | undefined> {
    const doc = await this.applications.findOne({ 'keys.key_hash': keyHash }, WITHOUT_KEYS);
    return doc ? fromApplicationDocument(doc) : undefined;
  }

  async list(tenantId: string, filter: ApplicationFilter, page: PageRequest): Promise<Page<Application>> {
    const query: Filter<ApplicationDocument> = { tenant_id: tenantId };
    if (filter.ids) query._id = { $in: [...filter.ids] };
    if (filter.types) query.type = { $in: [...filter.types] };
    if (filter.liveAt) query.$or = [{ expires_at: null }, { expires_at: { $gt: filter.liveAt } }];
    return findPage(this.applications, query, NEWEST_FIRST, page, fromApplicationDocument);
  }

  /** Sets the application's fields, never its keys; the tenant in the filter keeps one tenant from writing another's. */
  async update(application: Application, effects?: WriteEffects): Promise<boolean> {
    const filter = { _id: application.id, tenant_id: application.tenantId };
    const update = setOrUnset<ApplicationDocument>(applicationFields(application));
    return this.effects.write(effects, async (session) => (await this.applications.updateOne(filter, update, { session })).matchedCount === 1, whenTrue);
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    const filter = { _id: id, tenant_id: tenantId };
    return this.effects.write(effects, async (session) => (await this.applications.deleteOne(filter, { session })).deletedCount === 1, whenTrue);
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.applications.deleteMany({ expires_at: { $exists: true, $lte: now } })).deletedCount;
  }

  /** The push happens only while the array has no element at index `limit - 1`, i.e. fewer than `limit` keys. */
  async addKey(key: ApplicationKey, limit: number, effects?: WriteEffects): Promise<AddKeyOutcome> {
    return this.effects.write(effects, (session) => this.addKeyIn(key, limit, session), (outcome) => outcome === 'added');
  }

  private async addKeyIn(key: ApplicationKey, limit: number, session: ClientSession | undefined): Promise<AddKeyOutcome> {
    const owner = { _id: key.applicationId, tenant_id: key.tenantId };
    const belowLimit = { ...owner, [`keys.${limit - 1}`]: { $exists: false } } as Filter<ApplicationDocument>;
    const pushed = await this.applications.updateOne(belowLimit, { $push: { keys: toApplicationKeyDocument(key) } }, { session });
    if (pushed.matchedCount === 1) return 'added';
    return (await this.applications.countDocuments(owner, { limit: 1, session })) === 1 ? 'limit' : 'absent';
  }

  async listKeys(tenantId: string, applicationId: string): Promise<ApplicationKey[]> {
    const doc = await this.applications.findOne({ _id: applicationId, tenant_id: tenantId }, { projection: { keys: 1, tenant_id: 1 } });
    return doc ? fromApplicationKeyDocuments(doc) : [];
  }

  async findKey(tenantId: string, applicationId: string, keyId: string): Promise<ApplicationKey | undefined> {
    return (await this.listKeys(tenantId, applicationId)).find((key) => key.id === keyId);
  }

  async deleteKey(tenantId: string, applicationId: string, keyId: string, effects?: WriteEffects): Promise<boolean> {
    const filter = { _id: applicationId, tenant_id: tenantId, 'keys.id': keyId };
    const pull = { $pull: { keys: { id: keyId } } };
    return this.effects.write(effects, async (session) => (await this.applications.updateOne(filter, pull, { session })).modifiedCount === 1, whenTrue);
  }

  async replaceKeys(application: Application, key: ApplicationKey, effects?: WriteEffects): Promise<boolean> {
    const filter = { _id: application.id, tenant_id: application.tenantId };
    const update = setOrUnset<ApplicationDocument>({ ...applicationFields(application), keys: [toApplicationKeyDocument(key)] });
    return this.effects.write(effects, async (session) => (await this.applications.updateOne(filter, update, { session })).matchedCount === 1, whenTrue);
  }
}
