import type { Session } from '../../src/sessions/session';
import type { Store } from '../../src/shared/store';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const at = (iso: string): Date => new Date(iso);

function session(id: string, patch: Partial<Session> = {}): Session {
  return {
    id,
    tenantId: T1,
    applicationId: 'app-1',
    keyHash: `key-${id}`,
    nonceHash: `nonce-${id}`,
    createdAt: at('2026-01-01T00:00:00.000Z'),
    expiresAt: at('2026-01-01T00:03:00.000Z'),
    permissions: [],
    rules: [],
    ...patch,
  };
}

const grant = {
  permissions: ['token:read' as const],
  rules: [{ priority: 1, conditions: [{ attribute: 'id' as const, operator: 'equals' as const, value: 'tok' }], transform: 'reveal' as const, permissions: ['token:read' as const] }],
  expiresAt: at('2026-01-01T01:00:00.000Z'),
  authorizedAt: at('2026-01-01T00:01:00.000Z'),
};

/** Sessions: look-ups by key and nonce hash, one-time authorization, expiry and cascade. */
export function describeSessionContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('session contract', () => {
    const store = useStore(open);

    describe('sessions', () => {
      it('finds a session by key hash and by nonce hash, with no access', async () => {
        await store().sessions.create(session('s1'));
        expect(await store().sessions.findByKeyHash('key-s1')).toEqual(session('s1'));
        expect(await store().sessions.findByNonceHash('nonce-s1')).toEqual(session('s1'));
        expect(await store().sessions.findByKeyHash('key-s2')).toBeUndefined();
      });

      it('authorizes a session exactly once', async () => {
        await store().sessions.create(session('s1'));
        const attempts = await Promise.all([1, 2, 3].map(() => store().sessions.authorize(T1, 's1', grant)));
        expect(attempts.filter(Boolean)).toHaveLength(1);
        expect(await store().sessions.findByKeyHash('key-s1')).toEqual({ ...session('s1'), ...grant });
        expect(await store().sessions.authorize(T1, 's1', grant)).toBe(false);
      });

      it('does not authorize a session of another tenant', async () => {
        await store().sessions.create(session('s1'));
        expect(await store().sessions.authorize(T2, 's1', grant)).toBe(false);
        expect((await store().sessions.findByKeyHash('key-s1'))?.authorizedAt).toBeUndefined();
      });

      it('deletes expired sessions and the sessions of an application', async () => {
        await store().sessions.create(session('s1'));
        await store().sessions.create(session('s2', { expiresAt: at('2026-01-01T00:10:00.000Z'), applicationId: 'app-2' }));
        await store().sessions.create(session('s3', { expiresAt: at('2026-01-01T00:10:00.000Z') }));
        expect(await store().sessions.deleteExpired(at('2026-01-01T00:03:00.000Z'))).toBe(1);
        expect(await store().sessions.findByKeyHash('key-s1')).toBeUndefined();
        expect(await store().sessions.deleteByApplication(T2, 'app-2')).toBe(0);
        expect(await store().sessions.deleteByApplication(T1, 'app-2')).toBe(1);
        expect(await store().sessions.findByKeyHash('key-s3')).toBeDefined();
      });
    });
  });
}
