import type { IdempotencyClaimInput, StoredIdempotentRequest } from '../../src/idempotency/idempotency';
import type { Store } from '../../src/shared/store';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const at = (iso: string): Date => new Date(iso);
const NOW = at('2026-01-01T00:00:00.000Z');
const LATER = at('2026-01-01T00:00:30.000Z');
const EXPIRES = at('2026-01-02T00:00:00.000Z');
/** A takeover bound that no claim made at NOW reaches. */
const FRESH = at('2025-12-31T23:59:00.000Z');
const SEALED = Uint8Array.from([9, 8, 7, 0, 255, 1]);

function input(claimId: string, patch: Partial<IdempotencyClaimInput> = {}): IdempotencyClaimInput {
  return { tenantId: T1, callerId: 'app-1', key: 'k-1', fingerprint: 'fp-1', claimId, claimedAt: NOW, expiresAt: EXPIRES, ...patch };
}

/** Stores give Buffers or Uint8Arrays back: compare the bytes. */
const plain = (e: StoredIdempotentRequest | undefined) => e && { ...e, sealedResponse: e.sealedResponse && [...e.sealedResponse] };

/** Idempotency keys: the atomic claim, completion and release by the claim that holds the key, scoping and expiry. */
export function describeIdempotencyContract(open: () => Promise<Store>): void {
  describe('idempotency contract', () => {
    const store = useStore(open);
    const keys = () => store().idempotency;

    it('claims a free key once: a second claim answers the running entry', async () => {
      expect(await keys().claim(input('c1'), NOW, FRESH)).toEqual({ claimed: true });
      const second = await keys().claim(input('c2', { fingerprint: 'fp-2' }), NOW, FRESH);
      expect(second.claimed).toBe(false);
      expect(second.claimed === false && plain(second.existing)).toEqual(plain({ ...input('c1'), state: 'running' }));
      expect(plain(await keys().find(T1, 'app-1', 'k-1', NOW))).toEqual(plain({ ...input('c1'), state: 'running' }));
    });

    it('completes with the sealed answer, kept as given, and a new expiry; only the claim that holds it', async () => {
      await keys().claim(input('c1'), NOW, FRESH);
      expect(await keys().complete(T1, 'app-1', 'k-1', 'other', SEALED, EXPIRES)).toBe(false);
      expect((await keys().find(T1, 'app-1', 'k-1', NOW))?.state).toBe('running');
      const until = at('2026-01-02T00:00:30.000Z');
      expect(await keys().complete(T1, 'app-1', 'k-1', 'c1', SEALED, until)).toBe(true);
      expect(plain(await keys().find(T1, 'app-1', 'k-1', LATER))).toEqual(plain({ ...input('c1'), state: 'done', sealedResponse: SEALED, expiresAt: until }));
      // Done: never taken over, however old.
      const again = await keys().claim(input('c2', { claimedAt: LATER }), LATER, at('2030-01-01T00:00:00.000Z'));
      expect(again.claimed === false && again.existing.state).toBe('done');
      expect(await keys().complete(T1, 'app-1', 'k-1', 'c1', SEALED, until)).toBe(false);
    });

    it('releases the key for a retry, only by the claim that holds it and only while running', async () => {
      await keys().claim(input('c1'), NOW, FRESH);
      await keys().release(T1, 'app-1', 'k-1', 'other');
      expect(await keys().find(T1, 'app-1', 'k-1', NOW)).toBeDefined();
      await keys().release(T1, 'app-1', 'k-1', 'c1');
      expect(await keys().find(T1, 'app-1', 'k-1', NOW)).toBeUndefined();
      expect(await keys().claim(input('c2'), NOW, FRESH)).toEqual({ claimed: true });
      await keys().complete(T1, 'app-1', 'k-1', 'c2', SEALED, EXPIRES);
      await keys().release(T1, 'app-1', 'k-1', 'c2');
      expect((await keys().find(T1, 'app-1', 'k-1', NOW))?.state).toBe('done');
    });

    it('scopes a key to its tenant and caller', async () => {
      expect(await keys().claim(input('c1'), NOW, FRESH)).toEqual({ claimed: true });
      expect(await keys().claim(input('c2', { tenantId: T2 }), NOW, FRESH)).toEqual({ claimed: true });
      expect(await keys().claim(input('c3', { callerId: 'app-2' }), NOW, FRESH)).toEqual({ claimed: true });
      expect(await keys().claim(input('c4', { key: 'K-1' }), NOW, FRESH)).toEqual({ claimed: true });
      expect((await keys().find(T2, 'app-1', 'k-1', NOW))?.claimId).toBe('c2');
      expect((await keys().find(T1, 'app-2', 'k-1', NOW))?.claimId).toBe('c3');
      await keys().release(T2, 'app-1', 'k-1', 'c1');
      expect((await keys().find(T1, 'app-1', 'k-1', NOW))?.claimId).toBe('c1');
    });

    it('lets a running claim at or before the takeover bound be taken over; the old claim can then neither complete nor release', async () => {
      await keys().claim(input('c1'), NOW, FRESH);
      expect((await keys().claim(input('c2', { claimedAt: LATER }), LATER, at('2025-12-31T23:59:59.999Z'))).claimed).toBe(false);
      expect(await keys().claim(input('c2', { claimedAt: LATER, fingerprint: 'fp-2' }), LATER, NOW)).toEqual({ claimed: true });
      expect(await keys().complete(T1, 'app-1', 'k-1', 'c1', SEALED, EXPIRES)).toBe(false);
      await keys().release(T1, 'app-1', 'k-1', 'c1');
      expect(plain(await keys().find(T1, 'app-1', 'k-1', LATER))).toEqual(plain({ ...input('c2', { claimedAt: LATER, fingerprint: 'fp-2' }), state: 'running' }));
    });

    it('treats an entry as gone from its expiry on: claimed anew, missed by reads, deleted by the sweep', async () => {
      await keys().claim(input('c1'), NOW, FRESH);
      await keys().complete(T1, 'app-1', 'k-1', 'c1', SEALED, EXPIRES);
      await keys().claim(input('c9', { key: 'k-2', expiresAt: at('2026-01-03T00:00:00.000Z') }), NOW, FRESH);
      expect(await keys().find(T1, 'app-1', 'k-1', at('2026-01-01T23:59:59.999Z'))).toBeDefined();
      expect(await keys().find(T1, 'app-1', 'k-1', EXPIRES)).toBeUndefined();
      expect(await keys().deleteExpired(EXPIRES)).toBe(1);
      expect(await keys().deleteExpired(EXPIRES)).toBe(0);
      expect(await keys().find(T1, 'app-1', 'k-2', EXPIRES)).toBeDefined();
      const expiry = at('2026-01-03T00:00:00.000Z');
      expect(await keys().claim(input('c2', { key: 'k-2', claimedAt: expiry, expiresAt: at('2026-01-04T00:00:00.000Z') }), expiry, FRESH)).toEqual({ claimed: true });
    });

    it('gives a key to exactly one of many concurrent claims', async () => {
      const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => keys().claim(input(`c${i}`), NOW, FRESH)));
      expect(claims.filter((c) => c.claimed)).toHaveLength(1);
      const holder = (await keys().find(T1, 'app-1', 'k-1', NOW))!.claimId;
      for (const c of claims) if (!c.claimed) expect(c.existing.claimId).toBe(holder);
    });

    it('gives an abandoned key to exactly one of many concurrent takeovers', async () => {
      await keys().claim(input('c0'), NOW, FRESH);
      const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => keys().claim(input(`t${i}`, { claimedAt: LATER }), LATER, NOW)));
      expect(claims.filter((c) => c.claimed)).toHaveLength(1);
    });
  });
}
