import type { Member } from '../../src/members/member';
import type { Store } from '../../src/shared/store';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const at = (iso: string): Date => new Date(iso);

function member(id: string, tenantId: string, userId: string, createdAt: string, role: Member['role'] = 'ADMIN'): Member {
  return { id, tenantId, userId, role, createdAt: at(createdAt) };
}

/** Tenants, users, members and the system flags. */
export function describeDirectoryContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('directory contract', () => {
    const store = useStore(open);

    describe('tenants', () => {
      it('stores and finds a tenant by id', async () => {
        const tenant = { id: T1, name: 'Acme', ownerId: 'u1', createdAt: at('2026-01-01T10:00:00.123Z') };
        await store().tenants.create(tenant);
        expect(await store().tenants.findById(T1)).toEqual(tenant);
        expect(await store().tenants.findById(T2)).toBeUndefined();
      });
    });

    describe('users', () => {
      it('finds a user by e-mail whatever its case', async () => {
        const user = { id: 'u1', email: 'ada@example.com', firstName: 'Ada', createdAt: at('2026-01-01T00:00:00.000Z') };
        await store().users.create(user);
        expect(await store().users.findByEmail('ADA@Example.com')).toEqual(user);
        expect(await store().users.findById('u1')).toEqual(user);
        expect(await store().users.findByEmail('bob@example.com')).toBeUndefined();
      });

      it('refuses a second user with the same e-mail', async () => {
        await store().users.create({ id: 'u1', email: 'ada@example.com', createdAt: at('2026-01-01T00:00:00.000Z') });
        await expect(
          store().users.create({ id: 'u2', email: 'ada@example.com', createdAt: at('2026-01-01T00:00:00.000Z') }),
          // Not toThrow(): a driver's error class may come from another realm under jest (better-sqlite3 keeps the
          // error constructor of the first test file that loaded it), and only Error instances of this realm count.
        ).rejects.toHaveProperty('message');
      });
    });

    describe('members', () => {
      beforeEach(async () => {
        await store().members.create(member('m1', T1, 'u1', '2026-01-01T00:00:00.000Z', 'OWNER'));
        await store().members.create(member('m2', T1, 'u2', '2026-01-02T00:00:00.000Z'));
        await store().members.create(member('m3', T1, 'u3', '2026-01-03T00:00:00.000Z'));
        await store().members.create(member('m4', T2, 'u1', '2026-01-04T00:00:00.000Z', 'OWNER'));
      });

      it('lists a tenant\'s members newest first with the total', async () => {
        const page = await store().members.list(T1, {}, { page: 1, size: 2 });
        expect(page.total).toBe(3);
        expect(page.items.map((m) => m.id)).toEqual(['m3', 'm2']);
        const second = await store().members.list(T1, {}, { page: 2, size: 2 });
        expect(second.items.map((m) => m.id)).toEqual(['m1']);
      });

      it('filters members by user id', async () => {
        const page = await store().members.list(T1, { userIds: ['u1', 'u3'] }, { page: 1, size: 20 });
        expect(page.items.map((m) => m.id)).toEqual(['m3', 'm1']);
        expect(page.total).toBe(2);
      });

      it('finds a member by id and by user only within its tenant', async () => {
        expect(await store().members.findById(T1, 'm2')).toEqual(member('m2', T1, 'u2', '2026-01-02T00:00:00.000Z'));
        expect(await store().members.findById(T2, 'm2')).toBeUndefined();
        expect((await store().members.findByUser(T2, 'u1'))?.id).toBe('m4');
        expect(await store().members.findByUser(T2, 'u2')).toBeUndefined();
      });

      it('deletes a member only within its tenant', async () => {
        expect(await store().members.delete(T2, 'm2')).toBe(false);
        expect(await store().members.delete(T1, 'm2')).toBe(true);
        expect(await store().members.findById(T1, 'm2')).toBeUndefined();
        expect(await store().members.delete(T1, 'm2')).toBe(false);
      });
    });

    describe('system flags', () => {
      it('lets exactly one caller claim a flag', async () => {
        const claims = await Promise.all([1, 2, 3].map(() => store().system.claimOnce('bootstrap')));
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(await store().system.claimOnce('bootstrap')).toBe(false);
        expect(await store().system.claimOnce('other')).toBe(true);
      });

      it('lets a released flag be claimed again', async () => {
        expect(await store().system.claimOnce('bootstrap')).toBe(true);
        await store().system.release('bootstrap');
        expect(await store().system.claimOnce('bootstrap')).toBe(true);
        expect(await store().system.claimOnce('bootstrap')).toBe(false);
      });
    });
  });
}
