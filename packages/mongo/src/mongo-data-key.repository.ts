import type { Binary, Collection } from 'mongodb';
import type { DataKeyRepository, WrappedDataKey } from '@svc/core';
import { fromBinary, toBinary } from './documents';
import { isDuplicateKeyError } from './mongo-errors';

/** A tenant's data key, wrapped by the master key; `_id` is the tenant id, so a tenant has at most one. */
export interface DataKeyDocument {
  _id: string;
  wrapped: Binary;
  created_at: Date;
}

const toKey = (doc: DataKeyDocument): WrappedDataKey => ({ tenantId: doc._id, wrapped: fromBinary(doc.wrapped), createdAt: doc.created_at });

/** Wrapped tenant data keys; of concurrent first inserts, one wins and every caller reads back the winner. */
export class MongoDataKeyRepository implements DataKeyRepository {
  constructor(private readonly keys: Collection<DataKeyDocument>) {}

  async find(tenantId: string): Promise<WrappedDataKey | undefined> {
    const doc = await this.keys.findOne({ _id: tenantId });
    return doc ? toKey(doc) : undefined;
  }

  async createIfAbsent(key: WrappedDataKey): Promise<WrappedDataKey> {
    try {
      await this.keys.insertOne({ _id: key.tenantId, wrapped: toBinary(key.wrapped), created_at: key.createdAt });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const stored = await this.keys.findOne({ _id: key.tenantId });
    if (!stored) throw new Error('A data key was stored but cannot be read back.');
    return toKey(stored);
  }

  async all(): Promise<readonly WrappedDataKey[]> {
    return (await this.keys.find({}).toArray()).map(toKey);
  }

  async replace(key: WrappedDataKey): Promise<void> {
    await this.keys.updateOne({ _id: key.tenantId }, { $set: { wrapped: toBinary(key.wrapped) } });
  }
}
