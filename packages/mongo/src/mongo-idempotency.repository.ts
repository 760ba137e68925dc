import type { Binary, ClientSession, Collection } from 'mongodb';
import type { IdempotencyClaimInput, IdempotencyClaimResult, IdempotencyRepository, KeptAnswer, StoredIdempotentRequest } from '@svc/core';
import { fromBinary, toBinary } from './documents';
import { isDuplicateKeyError } from './mongo-errors';

/**
 * An idempotency key; `_id` joins tenant, caller and key (a key is printable, so never holds the NUL separator), which
 * makes the key unique per caller. The kept answer is sealed (AES-256-GCM) in `sealed_response`.
 */
export interface IdempotencyDocument {
  _id: string;
  tenant_id: string;
  caller_id: string;
  key: string;
  fingerprint: string;
  claim_id: string;
  state: 'running' | 'done';
  claimed_at: Date;
  expires_at: Date;
  sealed_response?: Binary;
}

const idOf = (tenantId: string, callerId: string, key: string): string => `${tenantId}\u0000${callerId}\u0000${key}`;

/**
 * Marks the running claim done with its answer (`complete`), in `session` when given: how a write keeps its answer in
 * its own transaction (`WriteEffects.kept`). True when the claim still held the key running.
 */
export async function keepAnswer(entries: Collection<IdempotencyDocument>, kept: KeptAnswer, session?: ClientSession): Promise<boolean> {
  const result = await entries.updateOne(
    { _id: idOf(kept.tenantId, kept.callerId, kept.key), claim_id: kept.claimId, state: 'running' },
    { $set: { state: 'done', sealed_response: toBinary(kept.sealedResponse), expires_at: kept.expiresAt } },
    { session },
  );
  return result.modifiedCount === 1;
}

const fromDocument = (d: IdempotencyDocument): StoredIdempotentRequest => ({
  tenantId: d.tenant_id,
  callerId: d.caller_id,
  key: d.key,
  fingerprint: d.fingerprint,
  claimId: d.claim_id,
  state: d.state,
  claimedAt: d.claimed_at,
  expiresAt: d.expires_at,
  ...(d.sealed_response ? { sealedResponse: fromBinary(d.sealed_response) } : {}),
});

/**
 * Idempotency keys in MongoDB. A claim is one upsert whose filter matches only an expired or abandoned entry: it
 * writes over that entry, or inserts when there is none; when a live entry holds the key the insert hits the unique
 * `_id` and fails with a duplicate key error, so of concurrent claims from any client exactly one wins.
 */
export class MongoIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly entries: Collection<IdempotencyDocument>) {}

  async claim(input: IdempotencyClaimInput, now: Date, staleBefore: Date): Promise<IdempotencyClaimResult> {
    const _id = idOf(input.tenantId, input.callerId, input.key);
    try {
      await this.entries.updateOne(
        { _id, $or: [{ expires_at: { $lte: now } }, { state: 'running', claimed_at: { $lte: staleBefore } }] },
        {
          $set: {
            tenant_id: input.tenantId,
            caller_id: input.callerId,
            key: input.key,
            fingerprint: input.fingerprint,
            claim_id: input.claimId,
            state: 'running',
            claimed_at: input.claimedAt,
            expires_at: input.expiresAt,
          },
          $unset: { sealed_response: '' },
        },
        { upsert: true },
      );
      return { claimed: true };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
    const existing = await this.entries.findOne({ _id, expires_at: { $gt: now } });
    // Gone meanwhile (released or swept): claim again.
    return existing ? { claimed: false, existing: fromDocument(existing) } : this.claim(input, now, staleBefore);
  }

  async complete(tenantId: string, callerId: string, key: string, claimId: string, sealedResponse: Uint8Array, expiresAt: Date): Promise<boolean> {
    return keepAnswer(this.entries, { tenantId, callerId, key, claimId, sealedResponse, expiresAt });
  }

  async release(tenantId: string, callerId: string, key: string, claimId: string): Promise<void> {
    await this.entries.deleteOne({ _id: idOf(tenantId, callerId, key), claim_id: claimId, state: 'running' });
  }

  async find(tenantId: string, callerId: string, key: string, now: Date): Promise<StoredIdempotentRequest | undefined> {
    const doc = await this.entries.findOne({ _id: idOf(tenantId, callerId, key), expires_at: { $gt: now } });
    return doc ? fromDocument(doc) : undefined;
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.entries.deleteMany({ expires_at: { $lte: now } })).deletedCount;
  }
}
