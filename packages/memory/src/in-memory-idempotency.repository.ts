import {
  type IdempotencyClaimInput,
  type IdempotencyClaimResult,
  type IdempotencyRepository,
  isIdempotentRequestClaimable,
  isIdempotentRequestExpired,
  type KeptAnswer,
  type StoredIdempotentRequest,
} from '@svc/core';

/** Idempotency keys in a Map keyed by tenant, caller and key. Each operation runs without yielding, so a claim is atomic. */
export class InMemoryIdempotencyRepository implements IdempotencyRepository {
  private readonly entries = new Map<string, StoredIdempotentRequest>();

  async claim(input: IdempotencyClaimInput, now: Date, staleBefore: Date): Promise<IdempotencyClaimResult> {
    const id = keyOf(input.tenantId, input.callerId, input.key);
    const existing = this.entries.get(id);
    if (existing && !isIdempotentRequestClaimable(existing, now, staleBefore)) return { claimed: false, existing };
    this.entries.set(id, { ...input, state: 'running' });
    return { claimed: true };
  }

  async complete(tenantId: string, callerId: string, key: string, claimId: string, sealedResponse: Uint8Array, expiresAt: Date): Promise<boolean> {
    return this.keep({ tenantId, callerId, key, claimId, sealedResponse, expiresAt });
  }

  /** `complete`, without yielding: how a write keeps its answer in its own step (`WriteEffects.kept`). */
  keep({ tenantId, callerId, key, claimId, sealedResponse, expiresAt }: KeptAnswer): boolean {
    const id = keyOf(tenantId, callerId, key);
    const existing = this.entries.get(id);
    if (existing?.state !== 'running' || existing.claimId !== claimId) return false;
    this.entries.set(id, { ...existing, state: 'done', sealedResponse: Uint8Array.from(sealedResponse), expiresAt });
    return true;
  }

  async release(tenantId: string, callerId: string, key: string, claimId: string): Promise<void> {
    const id = keyOf(tenantId, callerId, key);
    const existing = this.entries.get(id);
    if (existing?.state === 'running' && existing.claimId === claimId) this.entries.delete(id);
  }

  async find(tenantId: string, callerId: string, key: string, now: Date): Promise<StoredIdempotentRequest | undefined> {
    const existing = this.entries.get(keyOf(tenantId, callerId, key));
    return existing && !isIdempotentRequestExpired(existing, now) ? existing : undefined;
  }

  async deleteExpired(now: Date): Promise<number> {
    let count = 0;
    for (const [id, entry] of this.entries) {
      if (isIdempotentRequestExpired(entry, now)) {
        this.entries.delete(id);
        count++;
      }
    }
    return count;
  }
}

const keyOf = (tenantId: string, callerId: string, key: string): string => `${tenantId}\u0000${callerId}\u0000${key}`;
