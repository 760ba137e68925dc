import { mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey, isUuid, type Permission } from '@svc/core';
import { aKeyOf, anApplication, aStoredToken, describeSearchContract, describeStoreContract, describeTokenKeysetContract } from '@svc/core/testing';
import { openConnection } from './connection';
import { migrate } from './schema';
import { openSqliteStore } from './sqlite-store';

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
let n = 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreContract('sqlite', async () => openSqliteStore({ file: join(dir, `store-${++n}.db`) }));
describeStoreContract('sqlite with every side-table leaf filtering, writing in-process', async () =>
  openSqliteStore({ file: join(dir, `store-${++n}.db`), broadLeafThreshold: 0, writerThread: false }),
);

describe('searching on reader threads', () => {
  it('answers on its own connection once every reader thread has stopped, and fails no search for good', async () => {
    const store = openSqliteStore({ file: join(dir, `store-${++n}.db`), searchReaders: 1 });
    const NOW = new Date('2026-01-01T00:00:00.000Z');
    await store.tokens.create(aStoredToken().inTenant('t1').build(), { deduplicate: false, now: NOW });
    const readers = (store as unknown as { readers: { workers: Array<{ worker: { terminate(): Promise<number> } }> } }).readers;
    await readers.workers[0]!.worker.terminate();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await store.tokens.search('t1', { kind: 'all' }, { page: 1, size: 5 }, NOW)).total).toBe(1);
    expect((await store.tokens.searchAfter('t1', { kind: 'all' }, { size: 5 }, NOW)).items).toHaveLength(1);
    await store.close();
  });

  describeSearchContract(async () => openSqliteStore({ file: join(dir, `store-${++n}.db`), searchReaders: 1 }));
  describeTokenKeysetContract(async () => openSqliteStore({ file: join(dir, `store-${++n}.db`), searchReaders: 1 }));
});

describe('the writer thread', () => {
  it('is used when the build is there (npm test builds first)', async () => {
    const store = openSqliteStore({ file: join(dir, 'writer.db') });
    expect((store as unknown as { writer: object }).writer.constructor.name).toBe('ThreadTokenWriter');
    await store.close();
  });

  it('leaves checkpoints to the checkpointer thread: committed pages reach the database file while writes go on', async () => {
    const file = join(dir, 'checkpointed.db');
    const store = openSqliteStore({ file });
    const sizeOf = () => statSync(file).size;
    const before = sizeOf();
    const NOW = new Date('2026-01-01T00:00:00.000Z');
    // A few hundred WAL pages: below SQLite's own autocheckpoint, so only the checkpointer moves them.
    for (let batch = 0; batch < 4; batch++) {
      const tokens = Array.from({ length: 100 }, () => ({ token: aStoredToken().inTenant('t1').with({ indexHashes: ['h'], metadata: { k: 'v' } }).build(), deduplicate: false }));
      expect((await store.tokens.createMany(tokens, NOW)).status).toBe('created');
    }
    for (let i = 0; i < 100 && sizeOf() <= before * 4; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sizeOf()).toBeGreaterThan(before * 4);
    expect((await store.tokens.search('t1', { kind: 'all' }, { page: 1, size: 1 }, NOW)).total).toBe(400);
    await store.close();
  });

  it('keeps the order of writes with two batches in flight: each write sees every write sent before it', async () => {
    const store = openSqliteStore({ file: join(dir, 'ordered.db') });
    const NOW = new Date('2026-01-01T00:00:00.000Z');
    const token = aStoredToken().inTenant('t1').build();
    // Sent in three turns of the event loop, so they travel in separate batches, two of them at once.
    const created = store.tokens.create(token, { deduplicate: false, now: NOW });
    await new Promise((resolve) => setImmediate(resolve));
    const updated = store.tokens.update({ ...token, metadata: { step: '1' } }, NOW);
    await new Promise((resolve) => setImmediate(resolve));
    const deleted = store.tokens.delete('t1', token.id);
    expect([await created, await updated, await deleted]).toEqual([{ status: 'created' }, { status: 'updated' }, true]);
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

  /** An application of tenant t1 and its key, built but not stored. */
  function keyed(plaintext: string, permissions: Permission[] = ['token:read']) {
    const application = anApplication().inTenant('t1').withPermissions(...permissions).build();
    return { application, key: aKeyOf(application).withKey(plaintext).build() };
  }

  it('answers a key lookup from memory, frozen, and never remembers a key that was not found', async () => {
    const store = await opened('remember');
    const { application, key } = keyed('key_a');
    expect(await store.applications.findByKeyHash(key.keyHash)).toBeUndefined();
    await store.applications.create(application, key);
    const first = await store.applications.findByKeyHash(key.keyHash);
    expect(first?.id).toBe(application.id);
    expect(await store.applications.findByKeyHash(key.keyHash)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first!.permissions)).toBe(true);
    await store.close();
  });

  it('forgets remembered keys on every change, so a revoked, regenerated, changed, deleted or expired key is seen at once', async () => {
    const store = await opened('forget');
    const { application, key } = keyed('key_old');
    await store.applications.create(application, key);
    const spare = aKeyOf(application).withKey('key_spare').build();
    await store.applications.addKey(spare, 10);
    await store.applications.findByKeyHash(hashKey('key_old'));
    await store.applications.findByKeyHash(hashKey('key_spare'));

    await store.applications.deleteKey('t1', application.id, spare.id);
    expect(await store.applications.findByKeyHash(hashKey('key_spare'))).toBeUndefined();
    expect((await store.applications.findByKeyHash(hashKey('key_old')))?.id).toBe(application.id);

    const regenerated = { ...application, permissions: ['token:create' as const] };
    await store.applications.replaceKeys(regenerated, aKeyOf(application).withKey('key_new').build());
    expect(await store.applications.findByKeyHash(hashKey('key_old'))).toBeUndefined();
    expect((await store.applications.findByKeyHash(hashKey('key_new')))?.permissions).toEqual(['token:create']);

    await store.applications.update({ ...regenerated, expiresAt: new Date('2026-01-02T00:00:00.000Z') });
    expect((await store.applications.findByKeyHash(hashKey('key_new')))?.expiresAt).toEqual(new Date('2026-01-02T00:00:00.000Z'));
    await store.applications.deleteExpired(new Date('2026-01-03T00:00:00.000Z'));
    expect(await store.applications.findByKeyHash(hashKey('key_new'))).toBeUndefined();

    const other = keyed('key_other');
    await store.applications.create(other.application, other.key);
    await store.applications.findByKeyHash(other.key.keyHash);
    await store.applications.delete('t1', other.application.id);
    expect(await store.applications.findByKeyHash(other.key.keyHash)).toBeUndefined();
    await store.close();
  });

  it('sees a change made by another connection or process at once, even by hand in SQL', async () => {
    const server = await opened('elsewhere');
    const { application, key } = keyed('key_x');
    await server.applications.create(application, key);
    const spare = aKeyOf(application).withKey('key_x2').build();
    await server.applications.addKey(spare, 10);
    expect((await server.applications.findByKeyHash(key.keyHash))?.permissions).toEqual(['token:read']);
    expect((await server.applications.findByKeyHash(spare.keyHash))?.id).toBe(application.id);

    const other = openSqliteStore({ file: join(dir, 'elsewhere.db') });
    other.db.prepare('UPDATE applications SET permissions = ? WHERE id = ?').run('["token:create"]', application.id);
    expect((await server.applications.findByKeyHash(key.keyHash))?.permissions).toEqual(['token:create']);
    await other.applications.deleteKey('t1', application.id, spare.id);
    expect(await server.applications.findByKeyHash(spare.keyHash)).toBeUndefined();
    expect((await server.applications.findByKeyHash(key.keyHash))?.id).toBe(application.id);
    other.db.prepare('DELETE FROM application_keys WHERE id = ?').run(key.id);
    expect(await server.applications.findByKeyHash(key.keyHash)).toBeUndefined();
    await other.applications.addKey(key, 10);
    expect((await server.applications.findByKeyHash(key.keyHash))?.id).toBe(application.id);
    await other.applications.delete('t1', application.id);
    expect(await server.applications.findByKeyHash(key.keyHash)).toBeUndefined();
    // Adding an application or a key elsewhere is no change to a remembered one: nothing is forgotten for it.
    const kept = keyed('key_z');
    await server.applications.create(kept.application, kept.key);
    const remembered = await server.applications.findByKeyHash(hashKey('key_z'));
    const added = keyed('key_y');
    await other.applications.create(added.application, added.key);
    await other.applications.addKey(aKeyOf(kept.application).withKey('key_z2').build(), 10);
    expect(await server.applications.findByKeyHash(hashKey('key_z'))).toBe(remembered);
    expect((await server.applications.findByKeyHash(added.key.keyHash))?.id).toBe(added.application.id);
    expect((await server.applications.findByKeyHash(hashKey('key_z2')))?.id).toBe(kept.application.id);
    await other.close();
    await server.close();
  });

  it('remembers at most 10,000 keys, forgetting the oldest first', async () => {
    const store = await opened('bounded', false);
    const apps = Array.from({ length: 10_001 }, (_, i) => anApplication().inTenant('t1').with({ id: `a${i}` }).build());
    const appKeys = apps.map((app, i) => aKeyOf(app).withKey(`key_${i}`).build());
    const insert = store.db.transaction(() => apps.forEach((app, i) => void store.applications.create(app, appKeys[i]!)));
    insert();
    for (const key of appKeys) await store.applications.findByKeyHash(key.keyHash);
    const keys = (store.applications as unknown as { keys: Map<string, unknown> }).keys;
    expect(keys.size).toBe(10_000);
    expect(keys.has(appKeys[0]!.keyHash)).toBe(false);
    expect(keys.has(appKeys[10_000]!.keyHash)).toBe(true);
    await store.close();
  });
});

describe('migration 11: several keys per application', () => {
  it("moves each application's one key into application_keys, so keys issued before keep working", async () => {
    const file = join(dir, 'before-keys.db');
    const old = openConnection(file);
    migrate(old, 10);
    const insert = old.prepare('INSERT INTO applications VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const created = Date.parse('2026-01-01T00:00:00.000Z');
    insert.run('a1', 't1', 'Backend', 'private', '["token:read"]', '[]', hashKey('key_pvt_legacy1'), 'creator', created, null, null, null);
    insert.run('a2', 't1', 'Admin', 'management', '["application:read"]', '[]', hashKey('key_mgt_legacy2'), null, created + 1, 'm', created + 2, null);
    const countBefore = old.prepare('SELECT n FROM application_changes').pluck().get() as number;
    old.close();

    const store = openSqliteStore({ file });
    expect(store.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(11);
    expect(await store.applications.findByKeyHash(hashKey('key_pvt_legacy1'))).toEqual({
      id: 'a1',
      tenantId: 't1',
      name: 'Backend',
      type: 'private',
      permissions: ['token:read'],
      rules: [],
      createdBy: 'creator',
      createdAt: new Date(created),
    });
    expect((await store.applications.findByKeyHash(hashKey('key_mgt_legacy2')))?.modifiedBy).toBe('m');
    const [first] = await store.applications.listKeys('t1', 'a1');
    expect(first).toEqual({ id: expect.any(String), tenantId: 't1', applicationId: 'a1', keyHash: hashKey('key_pvt_legacy1'), createdBy: 'creator', createdAt: new Date(created) });
    const [second] = await store.applications.listKeys('t1', 'a2');
    expect(isUuid(first!.id) && isUuid(second!.id) && first!.id !== second!.id).toBe(true);
    expect((store.db.pragma('table_info(applications)') as Array<{ name: string }>).map((c) => c.name)).not.toContain('key_hash');
    expect(store.db.prepare('SELECT n FROM application_changes').pluck().get()).toBeGreaterThan(countBefore);

    // The rebuilt table keeps its indexes and triggers: a change is counted, a delete takes the keys with it.
    const names = store.db.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = 'applications' AND type IN ('index', 'trigger')").pluck().all();
    expect(names).toEqual(expect.arrayContaining(['applications_by_tenant', 'applications_by_expiry', 'applications_updated', 'applications_deleted']));
    await store.applications.delete('t1', 'a1');
    expect(await store.applications.findByKeyHash(hashKey('key_pvt_legacy1'))).toBeUndefined();
    expect(store.db.prepare('SELECT COUNT(*) FROM application_keys WHERE application_id = ?').pluck().get('a1')).toBe(0);
    await store.close();
  });
});
