import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey } from '@svc/core';
import { anApplication, describeSearchContract, describeStoreContract, describeTokenKeysetContract } from '@svc/core/testing';
import { openSqliteStore } from './sqlite-store';

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
let n = 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite', async () => openSqliteStore({ file: join(dir, `store-${++n}.db`) }));
describeStoreContract('sqlite with every side-table leaf filtering, writing in-process', async () =>
  openSqliteStore({ file: join(dir, `store-${++n}.db`), broadLeafThreshold: 0, writerThread: false }),
);

describe('searching on reader threads', () => {
  describeSearchContract(async () => openSqliteStore({ file: join(dir, `store-${++n}.db`), searchReaders: 1 }));
  describeTokenKeysetContract(async () => openSqliteStore({ file: join(dir, `store-${++n}.db`), searchReaders: 1 }));
});

describe('the writer thread', () => {
  it('is used when the build is there (npm test builds first)', async () => {
    const store = openSqliteStore({ file: join(dir, 'writer.db') });
    expect((store as unknown as { writer: object }).writer.constructor.name).toBe('ThreadTokenWriter');
    await store.close();
  });
});

describe('sqlite file', () => {
  it('runs in WAL mode and keeps data across reopening', async () => {
    const file = join(dir, 'reopen.db');
    const first = openSqliteStore({ file });
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal');
    await first.tenants.create({ id: 't1', name: 'Acme', ownerId: 'u1', createdAt: new Date('2026-01-01T00:00:00.000Z') });
    await first.close();
    const second = openSqliteStore({ file });
    expect((await second.tenants.findById('t1'))?.name).toBe('Acme');
    await second.close();
  });
});

describe('remembered API keys and the exclusive claim', () => {
  const tenant = { id: 't1', name: 'Acme', ownerId: 'u1', createdAt: new Date('2026-01-01T00:00:00.000Z') };

  async function opened(name: string, exclusive = true) {
    const store = openSqliteStore({ file: join(dir, `${name}.db`), exclusive });
    await store.tenants.create(tenant);
    return store;
  }

  it('claims its file: a second claim fails at once, also through a symlink; other openers still work; closing releases it', async () => {
    const file = join(dir, 'claimed.db');
    const first = openSqliteStore({ file, exclusive: true });
    expect(() => openSqliteStore({ file, exclusive: true })).toThrow(/another svc process .serve or keys rotate. is using .*claimed\.db/);
    symlinkSync(file, join(dir, 'linked.db'));
    expect(() => openSqliteStore({ file: join(dir, 'linked.db'), exclusive: true })).toThrow(/another svc process/);
    expect(readdirSync(dir).filter((name) => name.startsWith('claimed.db.lock'))).toEqual(['claimed.db.lock']);
    const command = openSqliteStore({ file });
    await command.tenants.create(tenant);
    await command.close();
    await first.close();
    const next = openSqliteStore({ file, exclusive: true });
    expect((await next.tenants.findById('t1'))?.name).toBe('Acme');
    await next.close();
  });

  it('answers a key lookup from memory, frozen, and never remembers a key that was not found', async () => {
    const store = await opened('remember');
    const application = anApplication().inTenant('t1').withKey('key_a').withPermissions('token:read').build();
    const { keyHash } = application;
    expect(await store.applications.findByKeyHash(keyHash)).toBeUndefined();
    await store.applications.create(application);
    const first = await store.applications.findByKeyHash(keyHash);
    expect(first?.id).toBe(application.id);
    expect(await store.applications.findByKeyHash(keyHash)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first!.permissions)).toBe(true);
    await store.close();
  });

  it('forgets remembered keys on every change, so a regenerated, changed, deleted or expired key is seen at once', async () => {
    const store = await opened('forget');
    const application = anApplication().inTenant('t1').withKey('key_old').withPermissions('token:read').build();
    await store.applications.create(application);
    await store.applications.findByKeyHash(hashKey('key_old'));

    const regenerated = { ...application, keyHash: hashKey('key_new'), permissions: ['token:create' as const] };
    await store.applications.update(regenerated);
    expect(await store.applications.findByKeyHash(hashKey('key_old'))).toBeUndefined();
    expect((await store.applications.findByKeyHash(hashKey('key_new')))?.permissions).toEqual(['token:create']);

    await store.applications.update({ ...regenerated, expiresAt: new Date('2026-01-02T00:00:00.000Z') });
    expect((await store.applications.findByKeyHash(hashKey('key_new')))?.expiresAt).toEqual(new Date('2026-01-02T00:00:00.000Z'));
    await store.applications.deleteExpired(new Date('2026-01-03T00:00:00.000Z'));
    expect(await store.applications.findByKeyHash(hashKey('key_new'))).toBeUndefined();

    const other = anApplication().inTenant('t1').withKey('key_other').build();
    await store.applications.create(other);
    await store.applications.findByKeyHash(other.keyHash);
    await store.applications.delete('t1', other.id);
    expect(await store.applications.findByKeyHash(other.keyHash)).toBeUndefined();
    await store.close();
  });

  it('sees a change made by another connection or process at once, even by hand in SQL', async () => {
    const server = await opened('elsewhere');
    const application = anApplication().inTenant('t1').withKey('key_x').withPermissions('token:read').build();
    await server.applications.create(application);
    expect((await server.applications.findByKeyHash(application.keyHash))?.permissions).toEqual(['token:read']);

    const other = openSqliteStore({ file: join(dir, 'elsewhere.db') });
    other.db.prepare('UPDATE applications SET permissions = ? WHERE id = ?').run('["token:create"]', application.id);
    expect((await server.applications.findByKeyHash(application.keyHash))?.permissions).toEqual(['token:create']);
    await other.applications.delete('t1', application.id);
    expect(await server.applications.findByKeyHash(application.keyHash)).toBeUndefined();
    // Adding an application elsewhere is no change to a remembered one: nothing is forgotten for it.
    const added = anApplication().inTenant('t1').withKey('key_y').build();
    await server.applications.create(anApplication().inTenant('t1').withKey('key_z').build());
    const remembered = await server.applications.findByKeyHash(hashKey('key_z'));
    await other.applications.create(added);
    expect(await server.applications.findByKeyHash(hashKey('key_z'))).toBe(remembered);
    expect((await server.applications.findByKeyHash(added.keyHash))?.id).toBe(added.id);
    await other.close();
    await server.close();
  });

  it('remembers at most 10,000 keys, forgetting the oldest first', async () => {
    const store = await opened('bounded', false);
    const apps = Array.from({ length: 10_001 }, (_, i) => anApplication().inTenant('t1').with({ id: `a${i}` }).withKey(`key_${i}`).build());
    const insert = store.db.transaction(() => apps.forEach((app) => void store.applications.create(app)));
    insert();
    for (const app of apps) await store.applications.findByKeyHash(app.keyHash);
    const keys = (store.applications as unknown as { keys: Map<string, unknown> }).keys;
    expect(keys.size).toBe(10_000);
    expect(keys.has(apps[0]!.keyHash)).toBe(false);
    expect(keys.has(apps[10_000]!.keyHash)).toBe(true);
    await store.close();
  });
});
