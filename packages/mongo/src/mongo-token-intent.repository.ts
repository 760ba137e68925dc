import type { Collection } from 'mongodb';
import type { StoredTokenIntent, TokenIntentRepository } from '@svc/core';
import { fromTokenIntentDocument, type TokenIntentDocument, toTokenIntentDocument } from './token-intent-document';

/**
 * Token intents in MongoDB. A take is one `findOneAndDelete`, atomic on its document: of concurrent takes, from any
 * process, exactly one deletes it and gets it back. Expired intents are filtered out of every read and deleted by the
 * sweeper (no TTL index: the sweeper runs every minute, and reads never see them anyway).
 */
export class MongoTokenIntentRepository implements TokenIntentRepository {
  constructor(private readonly intents: Collection<TokenIntentDocument>) {}

  async create(intent: StoredTokenIntent): Promise<void> {
    await this.intents.insertOne(toTokenIntentDocument(intent));
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredTokenIntent | undefined> {
    const doc = await this.intents.findOne({ _id: id, tenant_id: tenantId, expires_at: { $gt: now } });
    return doc ? fromTokenIntentDocument(doc) : undefined;
  }

  async take(tenantId: string, id: string, now: Date): Promise<StoredTokenIntent | undefined> {
    const doc = await this.intents.findOneAndDelete({ _id: id, tenant_id: tenantId, expires_at: { $gt: now } });
    return doc ? fromTokenIntentDocument(doc) : undefined;
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.intents.deleteMany({ expires_at: { $lte: now } })).deletedCount;
  }
}
