import type { Store } from '../../src/shared/store';
import type { Application } from '../../src/applications/application';
import type { ApplicationKey } from '../../src/applications/application-key';
import { aKeyOf, anApplication } from '../builders';
import { useStore } from './use-store';

const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';

/**
 * Application keys: several per application, each revocable alone, replaced all at once by regenerate, a limit that
 * holds under concurrent adds, and keys invisible outside their tenant and application.
 */
export function describeApplicationKeyContract(open: () => Promise<Store>): void {
  // Its store's hooks belong to this contract alone: registered outside it, every test of every contract opened one.
  describe('application key contract', () => {
    const store = useStore(open);

    /** An application of `tenantId` stored with one key (created at the application's instant). */
    async function stored(tenantId = T1): Promise<{ app: Application; first: ApplicationKey }> {
      const app = anApplication().inTenant(tenantId).ofType('private').withPermissions('token:read').build();
      const first = aKeyOf(app).build();
      await store().applications.create(app, first);
      return { app, first };
    }

    /** Every listed key finds the application; every other key of `known` finds nothing. */
    async function agrees(app: Application, known: readonly ApplicationKey[]): Promise<void> {
      const listed = new Set((await store().applications.listKeys(app.tenantId, app.id)).map((k) => k.id));
      for (const key of known) {
        const found = await store().applications.findByKeyHash(key.keyHash);
        expect({ key: key.id, listed: listed.has(key.id), found: found?.id }).toEqual({
          key: key.id,
          listed: listed.has(key.id),
          found: listed.has(key.id) ? app.id : undefined,
        });
      }
    }

    describe('application keys', () => {
      it('makes an application without a key when given none; a key added later finds it', async () => {
        const app = anApplication().inTenant(T1).build();
        await store().applications.create(app, undefined);
        expect(await store().applications.findById(T1, app.id)).toEqual(app);
        expect(await store().applications.listKeys(T1, app.id)).toEqual([]);
        const key = aKeyOf(app).build();
        expect(await store().applications.addKey(key, 10)).toBe('added');
        expect((await store().applications.findByKeyHash(key.keyHash))?.id).toBe(app.id);
      });

      it('adds keys beside the first: every key finds the application, listed newest first and found by id', async () => {
        const { app, first } = await stored();
        const second = aKeyOf(app).createdAt('2026-01-02T00:00:00.000Z').with({ createdBy: 'c1' }).build();
        const third = aKeyOf(app).createdAt('2026-01-03T00:00:00.123Z').build();
        expect(await store().applications.addKey(second, 10)).toBe('added');
        expect(await store().applications.addKey(third, 10)).toBe('added');
        expect(await store().applications.listKeys(T1, app.id)).toEqual([third, second, first]);
        expect(await store().applications.findKey(T1, app.id, second.id)).toEqual(second);
        for (const key of [first, second, third]) expect(await store().applications.findByKeyHash(key.keyHash)).toEqual(app);
      });

      it('orders keys created in the same instant by id, descending', async () => {
        const { app, first } = await stored();
        const low = aKeyOf(app).with({ id: 'cccccccc-0000-4000-8000-000000000001' }).build();
        const high = aKeyOf(app).with({ id: 'cccccccc-0000-4000-8000-000000000002' }).build();
        await store().applications.addKey(low, 10);
        await store().applications.addKey(high, 10);
        const ids = (await store().applications.listKeys(T1, app.id)).map((k) => k.id);
        expect(ids).toEqual([first.id, high.id, low.id].sort().reverse());
      });

      it('revokes one key alone: its hash finds nothing at once, the others keep working', async () => {
        const { app, first } = await stored();
        const second = aKeyOf(app).build();
        await store().applications.addKey(second, 10);
        expect(await store().applications.findByKeyHash(first.keyHash)).toEqual(app);
        expect(await store().applications.deleteKey(T1, app.id, first.id)).toBe(true);
        expect(await store().applications.findByKeyHash(first.keyHash)).toBeUndefined();
        expect(await store().applications.findByKeyHash(second.keyHash)).toEqual(app);
        expect(await store().applications.findKey(T1, app.id, first.id)).toBeUndefined();
        expect(await store().applications.listKeys(T1, app.id)).toEqual([second]);
        expect(await store().applications.deleteKey(T1, app.id, first.id)).toBe(false);
      });

      it('may revoke the last key, leaving an application that no key finds', async () => {
        const { app, first } = await stored();
        expect(await store().applications.deleteKey(T1, app.id, first.id)).toBe(true);
        expect(await store().applications.listKeys(T1, app.id)).toEqual([]);
        expect(await store().applications.findById(T1, app.id)).toEqual(app);
        const next = aKeyOf(app).build();
        expect(await store().applications.addKey(next, 10)).toBe('added');
        expect(await store().applications.findByKeyHash(next.keyHash)).toEqual(app);
      });

      it('replaces every key with one, storing the application with it', async () => {
        const { app, first } = await stored();
        const second = aKeyOf(app).build();
        await store().applications.addKey(second, 10);
        await store().applications.findByKeyHash(first.keyHash);
        const changed = { ...app, modifiedBy: 'm1', modifiedAt: new Date('2026-03-01T00:00:00.000Z') };
        const replacement = aKeyOf(app).createdAt('2026-03-01T00:00:00.000Z').build();
        expect(await store().applications.replaceKeys(changed, replacement)).toBe(true);
        expect(await store().applications.listKeys(T1, app.id)).toEqual([replacement]);
        expect(await store().applications.findByKeyHash(first.keyHash)).toBeUndefined();
        expect(await store().applications.findByKeyHash(second.keyHash)).toBeUndefined();
        expect(await store().applications.findByKeyHash(replacement.keyHash)).toEqual(changed);
        expect(await store().applications.findById(T1, app.id)).toEqual(changed);
      });

      it('refuses a key beyond the limit and a key of an absent application, adding nothing', async () => {
        const { app, first } = await stored();
        const second = aKeyOf(app).build();
        expect(await store().applications.addKey(second, 2)).toBe('added');
        const third = aKeyOf(app).build();
        expect(await store().applications.addKey(third, 2)).toBe('limit');
        expect(await store().applications.findByKeyHash(third.keyHash)).toBeUndefined();
        expect((await store().applications.listKeys(T1, app.id)).map((k) => k.id).sort()).toEqual([first.id, second.id].sort());
        const ghost = anApplication().inTenant(T1).build();
        const orphan = aKeyOf(ghost).build();
        expect(await store().applications.addKey(orphan, 10)).toBe('absent');
        expect(await store().applications.findByKeyHash(orphan.keyHash)).toBeUndefined();
        expect(await store().applications.replaceKeys(ghost, aKeyOf(ghost).build())).toBe(false);
        expect(await store().applications.findById(T1, ghost.id)).toBeUndefined();
      });

      it("hides keys from another tenant and from another application of the same tenant", async () => {
        const { app, first } = await stored(T1);
        const { app: sibling } = await stored(T1);
        const { app: foreign } = await stored(T2);
        const apps = store().applications;
        expect(await apps.listKeys(T2, app.id)).toEqual([]);
        expect(await apps.findKey(T2, app.id, first.id)).toBeUndefined();
        expect(await apps.findKey(T1, sibling.id, first.id)).toBeUndefined();
        expect(await apps.findKey(T2, foreign.id, first.id)).toBeUndefined();
        expect(await apps.deleteKey(T2, app.id, first.id)).toBe(false);
        expect(await apps.deleteKey(T1, sibling.id, first.id)).toBe(false);
        expect(await apps.deleteKey(T2, foreign.id, first.id)).toBe(false);
        expect(await apps.addKey({ ...aKeyOf(app).build(), tenantId: T2 }, 10)).toBe('absent');
        expect(await apps.replaceKeys({ ...app, tenantId: T2 }, { ...aKeyOf(app).build(), tenantId: T2 })).toBe(false);
        expect(await apps.findByKeyHash(first.keyHash)).toEqual(app);
        expect(await apps.listKeys(T1, app.id)).toEqual([first]);
      });

      it('deletes the keys of expired applications with them', async () => {
        const app = anApplication().inTenant(T1).expiringAt('2026-01-01T00:00:00.000Z').build();
        const first = aKeyOf(app).build();
        await store().applications.create(app, first);
        const second = aKeyOf(app).build();
        await store().applications.addKey(second, 10);
        expect(await store().applications.deleteExpired(new Date('2026-01-01T00:00:00.000Z'))).toBe(1);
        for (const key of [first, second]) expect(await store().applications.findByKeyHash(key.keyHash)).toBeUndefined();
        expect(await store().applications.listKeys(T1, app.id)).toEqual([]);
      });

      describe('under concurrency', () => {
        it('never lets concurrent adds pass the limit', async () => {
          const { app, first } = await stored();
          const candidates = Array.from({ length: 20 }, () => aKeyOf(app).build());
          const outcomes = await Promise.all(candidates.map((key) => store().applications.addKey(key, 5)));
          expect(outcomes.filter((o) => o === 'added')).toHaveLength(4);
          expect(outcomes.filter((o) => o === 'limit')).toHaveLength(16);
          expect(await store().applications.listKeys(T1, app.id)).toHaveLength(5);
          await agrees(app, [first, ...candidates]);
        });

        it('revokes a key once when two revocations race', async () => {
          const { app, first } = await stored();
          const results = await Promise.all([1, 2, 3].map(() => store().applications.deleteKey(T1, app.id, first.id)));
          expect(results.filter(Boolean)).toHaveLength(1);
          expect(await store().applications.findByKeyHash(first.keyHash)).toBeUndefined();
        });

        it('keeps the list and the key lookup in agreement when adds, revocations and a regenerate race', async () => {
          const { app, first } = await stored();
          const older = Array.from({ length: 3 }, () => aKeyOf(app).build());
          for (const key of older) await store().applications.addKey(key, 10);
          const added = Array.from({ length: 3 }, () => aKeyOf(app).build());
          const replacement = aKeyOf(app).build();
          await Promise.all([
            ...added.map((key) => store().applications.addKey(key, 10)),
            ...older.map((key) => store().applications.deleteKey(T1, app.id, key.id)),
            store().applications.replaceKeys(app, replacement),
          ]);
          const listed = (await store().applications.listKeys(T1, app.id)).map((k) => k.id);
          expect(listed).toContain(replacement.id);
          expect(listed).not.toContain(first.id);
          for (const key of older) expect(listed).not.toContain(key.id);
          await agrees(app, [first, ...older, ...added, replacement]);
        });

        it('leaves no key behind for an application deleted while a key was being added', async () => {
          const { app, first } = await stored();
          const late = aKeyOf(app).build();
          await Promise.all([store().applications.delete(T1, app.id), store().applications.addKey(late, 10)]);
          for (const key of [first, late]) expect(await store().applications.findByKeyHash(key.keyHash)).toBeUndefined();
          expect(await store().applications.listKeys(T1, app.id)).toEqual([]);
        });
      });
    });
  });
}
