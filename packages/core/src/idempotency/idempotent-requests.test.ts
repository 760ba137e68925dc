import { Keyring } from '../crypto/keyring';
import { CryptoRandomSource } from '../shared/random';
import { FixedClock } from '../../testing/fixed-clock';
import { anActor } from '../../testing/builders';
import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import {
  type IdempotencyClaimInput,
  type IdempotencyClaimResult,
  type IdempotencyRepository,
  isIdempotentRequestClaimable,
  type StoredIdempotentRequest,
} from './idempotency';
import { IdempotentRequests } from './idempotent-requests';
import { ConflictError } from '../shared/errors';

/** Yields to everything else queued, as a store that really awaits I/O does (MongoDB): concurrent calls interleave. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Keys in a map, every call yielding before and after it acts; `release` refuses while `full` (a full disk). */
function slowStore(): IdempotencyRepository & { full: boolean } {
  const entries = new Map<string, StoredIdempotentRequest>();
  const id = (tenantId: string, callerId: string, key: string) => `${tenantId}\u0000${callerId}\u0000${key}`;
  return {
    full: false,
    async claim(input: IdempotencyClaimInput, now: Date, staleBefore: Date): Promise<IdempotencyClaimResult> {
      await turn();
      const existing = entries.get(id(input.tenantId, input.callerId, input.key));
      const result: IdempotencyClaimResult =
        existing && !isIdempotentRequestClaimable(existing, now, staleBefore) ? { claimed: false, existing } : { claimed: true };
      if (result.claimed) entries.set(id(input.tenantId, input.callerId, input.key), { ...input, state: 'running' });
      await turn();
      return result;
    },
    async complete() {
      return true;
    },
    async release(tenantId, callerId, key, claimId) {
      await turn();
      if (this.full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      if (entries.get(id(tenantId, callerId, key))?.claimId === claimId) entries.delete(id(tenantId, callerId, key));
    },
    async find(tenantId, callerId, key) {
      return entries.get(id(tenantId, callerId, key));
    },
    async deleteExpired() {
      return 0;
    },
  };
}

describe('IdempotentRequests: a key whose release the store refused', () => {
  const clock = new FixedClock('2026-11-25T00:00:00.000Z');
  const random = new CryptoRandomSource();
  const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random, clock, masterKey: Buffer.alloc(32, 3) });
  const actor = anActor('tenant-1', ['token:create']);
  const request = { method: 'POST', path: '/tokens', body: Buffer.from('{}') };

  it('is taken over by exactly one of the retries that come at once, and not by another caller', async () => {
    const store = slowStore();
    const requests = new IdempotentRequests({ idempotency: store, keyring, clock, random, ttlMs: 86_400_000 });
    const first = await requests.begin(actor, 'SVC-IDEMPOTENCY-KEY', 'k', request);
    expect(first.kind).toBe('run');
    store.full = true;
    await expect(requests.release((first as { claim: Parameters<IdempotentRequests['release']>[0] }).claim)).rejects.toThrow('full');
    store.full = false;
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => requests.begin(actor, 'SVC-IDEMPOTENCY-KEY', 'k', request)));
    const ran = outcomes.filter((o) => o.status === 'fulfilled' && o.value.kind === 'run');
    const busy = outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof ConflictError && o.reason.code === 'IDEMPOTENCY_KEY_IN_USE');
    expect([ran.length, busy.length]).toEqual([1, 7]);
    // Another caller with the same key was never held by it.
    const other = anActor('tenant-1', ['token:create']);
    expect((await requests.begin({ ...other, applicationId: 'another-app' }, 'SVC-IDEMPOTENCY-KEY', 'k', request)).kind).toBe('run');
  });
});
