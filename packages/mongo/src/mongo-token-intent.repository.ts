import type { Collection } from 'mongodb';
import type { StoredTokenIntent, TokenIntentRepository, WriteEffects } from '@svc/core';
import { always, type EffectWrites } from './effect-writes';
import { fromTokenIntentDocument, type TokenIntentDocument, toTokenIntentDocument } from './token-intent-document';

/**
 * Token intents in MongoDB. A take is one `findOneAndDelete`, atomic on its document: of concurrent takes, from any
 * process, exactly one deletes it and gets it back. Expired intents are filtered out of every read and deleted by the
 * sweeper (no TTL index: the sweeper runs every minute, and reads never see them anyway). A write with WriteEffects
 * runs in a transaction that stores them when it changed something (see EffectWrites).
 */
export class MongoTokenIntentRepository implements TokenIntentRepository {
  constructor(
    private readonly intents: Collection<TokenIntentDocument>,
    private readonly effects: EffectWrites,
  ) {}

  async create(intent: StoredTokenIntent, effects?: WriteEffects): Promise<void> {
    await this.effects.write(
      effects,
      async (session) => {
        await this.intents.insertOne(toTokenIntentDocument(intent), { session });
      },
      always,
    );
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredTokenIntent | undefined> {
    const doc = await this.intents.findOne({ _id: id, tenant_id: tenantId, expires_at: { $gt: now } });
    return doc ? fromTokenIntentDocument(doc) : undefined;
  }

  async take(tenantId: string, id: string, now: Date, effects?: WriteEffects): Promise<StoredTokenIntent | undefined> {
    return this.effects.write(
      effects,
      async (session) => {
        const doc = await this.intents.findOneAndDelete({ _id: id, tenant_id: tenantId, expires_at: { $gt: now } }, { session });
        return doc ? fromTokenIntentDocument(doc) : undefined;
      },
      (taken) => taken !== undefined,
    );
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.intents.deleteMany({ expires_at: { $lte: now } })).deletedCount;
  }
}
