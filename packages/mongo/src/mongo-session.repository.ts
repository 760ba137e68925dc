import type { Collection } from 'mongodb';
import type { Session, SessionGrant, SessionRepository, WriteEffects } from '@svc/core';
import { compact } from './documents';
import { always, type EffectWrites, whenTrue } from './effect-writes';
import { fromSessionDocument, type SessionDocument, toSessionDocument } from './session-document';

/**
 * Sessions in MongoDB: key and nonce hashes have unique indexes; a TTL index on `expires_at` deletes expired
 * sessions within about a minute, and the sweeper's `deleteExpired` does the same at once. Callers check expiry
 * themselves, so a session the TTL monitor has not reached yet is still refused. A write with WriteEffects runs in a
 * transaction that stores them when it changed something (see EffectWrites).
 */
export class MongoSessionRepository implements SessionRepository {
  constructor(
    private readonly sessions: Collection<SessionDocument>,
    private readonly effects: EffectWrites,
  ) {}

  async create(session: Session, effects?: WriteEffects): Promise<void> {
    await this.effects.write(
      effects,
      async (txn) => {
        await this.sessions.insertOne(toSessionDocument(session), { session: txn });
      },
      always,
    );
  }

  async findByKeyHash(keyHash: string): Promise<Session | undefined> {
    const doc = await this.sessions.findOne({ key_hash: keyHash });
    return doc ? fromSessionDocument(doc) : undefined;
  }

  async findByNonceHash(nonceHash: string): Promise<Session | undefined> {
    const doc = await this.sessions.findOne({ nonce_hash: nonceHash });
    return doc ? fromSessionDocument(doc) : undefined;
  }

  /** One conditional update: only a session not yet authorized matches, so of concurrent grants one wins. */
  async authorize(tenantId: string, id: string, grant: SessionGrant, effects?: WriteEffects): Promise<boolean> {
    const update = {
      $set: {
        permissions: [...grant.permissions],
        rules: grant.rules.map((rule) => compact({ ...rule })),
        expires_at: grant.expiresAt,
        authorized_at: grant.authorizedAt,
      },
    };
    return this.effects.write(
      effects,
      async (txn) => (await this.sessions.updateOne({ _id: id, tenant_id: tenantId, authorized_at: null }, update, { session: txn })).matchedCount === 1,
      whenTrue,
    );
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.sessions.deleteMany({ expires_at: { $lte: now } })).deletedCount;
  }

  async deleteByApplication(tenantId: string, applicationId: string): Promise<number> {
    return (await this.sessions.deleteMany({ tenant_id: tenantId, application_id: applicationId })).deletedCount;
  }
}
