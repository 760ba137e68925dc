import type { Store } from '../../src/shared/store';
import { aKeyOf, anApplication } from '../builders';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';

/** Applications: round trips, key lookup, tenant scoping, filters, ordering, expiry. */
export function describeApplicationContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('application contract', () => {
    const store = useStore(open);

    describe('applications', () => {
      it('round-trips every field', async () => {
        const app = anApplication()
          .inTenant(T1)
          .ofType('private')
          .withPermissions('token:read', 'token:create')
          .withRules({ description: 'PCI', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] })
          .createdAt('2026-01-01T10:00:00.123Z')
          .expiringAt('2027-01-01T00:00:00.000Z')
          .with({ createdBy: 'c1', modifiedBy: 'm1', modifiedAt: new Date('2026-01-02T00:00:00.000Z') })
          .build();
        const key = aKeyOf(app).with({ createdBy: 'c1' }).build();
        await store().applications.create(app, key);
        expect(await store().applications.findById(T1, app.id)).toEqual(app);
        expect(await store().applications.findByKeyHash(key.keyHash)).toEqual(app);
        expect(await store().applications.listKeys(T1, app.id)).toEqual([key]);
      });

      it('leaves optional fields undefined', async () => {
        const app = anApplication().inTenant(T1).build();
        await store().applications.create(app, aKeyOf(app).build());
        const found = await store().applications.findById(T1, app.id);
        expect(found).toEqual(app);
        expect(found?.expiresAt).toBeUndefined();
        expect(found?.modifiedAt).toBeUndefined();
      });

      it('hides an application from another tenant', async () => {
        const app = anApplication().inTenant(T1).build();
        await store().applications.create(app, aKeyOf(app).build());
        expect(await store().applications.findById(T2, app.id)).toBeUndefined();
        expect((await store().applications.list(T2, {}, { page: 1, size: 20 })).total).toBe(0);
        expect(await store().applications.update({ ...app, tenantId: T2, name: 'stolen' })).toBe(false);
        expect(await store().applications.delete(T2, app.id)).toBe(false);
        expect((await store().applications.findById(T1, app.id))?.name).toBe(app.name);
      });

      it('lists newest first, filtered by ids and type, with totals across pages', async () => {
        const apps = [
          anApplication().inTenant(T1).ofType('private').createdAt('2026-01-01T00:00:00.000Z').build(),
          anApplication().inTenant(T1).ofType('public').createdAt('2026-01-02T00:00:00.000Z').build(),
          anApplication().inTenant(T1).ofType('private').createdAt('2026-01-03T00:00:00.000Z').build(),
          anApplication().inTenant(T2).ofType('private').createdAt('2026-01-04T00:00:00.000Z').build(),
        ];
        for (const app of apps) await store().applications.create(app, aKeyOf(app).build());
        const all = await store().applications.list(T1, {}, { page: 1, size: 2 });
        expect(all.total).toBe(3);
        expect(all.items.map((a) => a.id)).toEqual([apps[2]!.id, apps[1]!.id]);
        const byType = await store().applications.list(T1, { types: ['private'] }, { page: 1, size: 20 });
        expect(byType.items.map((a) => a.id)).toEqual([apps[2]!.id, apps[0]!.id]);
        const byTypes = await store().applications.list(T1, { types: ['public', 'management'] }, { page: 1, size: 20 });
        expect([byTypes.total, byTypes.items.map((a) => a.id)]).toEqual([1, [apps[1]!.id]]);
        const both = await store().applications.list(T1, { types: ['public', 'private'] }, { page: 1, size: 20 });
        expect(both.items.map((a) => a.id)).toEqual([apps[2]!.id, apps[1]!.id, apps[0]!.id]);
        const byIds = await store().applications.list(T1, { ids: [apps[0]!.id, apps[3]!.id] }, { page: 1, size: 20 });
        expect(byIds.items.map((a) => a.id)).toEqual([apps[0]!.id]);
        expect(byIds.total).toBe(1);
      });

      it('orders applications created in the same instant by id', async () => {
        const a = anApplication().inTenant(T1).with({ id: 'bbbbbbbb-0000-4000-8000-000000000002' }).build();
        const b = anApplication().inTenant(T1).with({ id: 'bbbbbbbb-0000-4000-8000-000000000001' }).build();
        await store().applications.create(a, aKeyOf(a).build());
        await store().applications.create(b, aKeyOf(b).build());
        const page = await store().applications.list(T1, {}, { page: 1, size: 20 });
        expect(page.items.map((x) => x.id)).toEqual([a.id, b.id]);
      });

      it('updates an application, keeping its keys', async () => {
        const app = anApplication().inTenant(T1).build();
        const key = aKeyOf(app).build();
        await store().applications.create(app, key);
        const updated = { ...app, name: 'Renamed', permissions: ['token:read' as const], modifiedAt: new Date('2026-02-01T00:00:00.000Z') };
        expect(await store().applications.update(updated)).toBe(true);
        expect(await store().applications.findByKeyHash(key.keyHash)).toEqual(updated);
        expect(await store().applications.listKeys(T1, app.id)).toEqual([key]);
      });

      it('deletes an application and its key', async () => {
        const app = anApplication().inTenant(T1).build();
        const key = aKeyOf(app).build();
        await store().applications.create(app, key);
        expect(await store().applications.delete(T1, app.id)).toBe(true);
        expect(await store().applications.findByKeyHash(key.keyHash)).toBeUndefined();
        expect(await store().applications.listKeys(T1, app.id)).toEqual([]);
      });

      it('leaves expired applications out of a live list', async () => {
        const expired = anApplication().inTenant(T1).expiringAt('2026-01-01T00:00:00.000Z').build();
        const live = anApplication().inTenant(T1).expiringAt('2026-06-01T00:00:00.000Z').build();
        const forever = anApplication().inTenant(T1).build();
        for (const app of [expired, live, forever]) await store().applications.create(app, aKeyOf(app).build());
        const page = await store().applications.list(T1, { liveAt: new Date('2026-01-01T00:00:00.000Z') }, { page: 1, size: 20 });
        expect(page.items.map((a) => a.id).sort()).toEqual([live.id, forever.id].sort());
        expect(page.total).toBe(2);
      });

      it('deletes only expired applications', async () => {
        const expired = anApplication().inTenant(T1).expiringAt('2026-01-01T00:00:00.000Z').build();
        const live = anApplication().inTenant(T2).expiringAt('2026-06-01T00:00:00.000Z').build();
        const forever = anApplication().inTenant(T1).build();
        for (const app of [expired, live, forever]) await store().applications.create(app, aKeyOf(app).build());
        expect(await store().applications.deleteExpired(new Date('2026-01-01T00:00:00.000Z'))).toBe(1);
        expect(await store().applications.findById(T1, expired.id)).toBeUndefined();
        expect(await store().applications.findById(T2, live.id)).toBeDefined();
        expect(await store().applications.findById(T1, forever.id)).toBeDefined();
      });
    });
  });
}
