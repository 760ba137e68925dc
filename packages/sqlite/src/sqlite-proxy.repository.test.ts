import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Proxy } from '@svc/core';
import { anAuditEvent } from '@svc/core/testing';
import { openConnection } from './connection';
import { migrate } from './schema';
import { openSqliteStore, type SqliteStore } from './sqlite-store';

/** SQLite specifics of proxies: migration 17 on an older file, what a row holds, the indexes the reads use. */

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-proxies-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T1 = '11111111-0000-4000-8000-000000000001';
const NOW = new Date('2026-01-01T00:00:00.000Z');

const aProxy = (patch: Partial<Proxy> = {}): Proxy => ({
  id: `00000000-0000-7000-b000-${String(++n).padStart(12, '0')}`,
  tenantId: T1,
  name: 'Partner',
  destinationUrl: 'https://api.partner.example.com/',
  requestTransforms: [{ type: 'detokenize' }],
  responseTransforms: [],
  sealedConfiguration: Uint8Array.from([1, 2, 3]),
  requireAuth: true,
  disableDetokenization: false,
  keyHash: String(n).padStart(64, 'a'),
  version: 1,
  createdBy: 'mgt-1',
  createdAt: NOW,
  ...patch,
});

describe('migration 17', () => {
  it('applies on a file an older svc left at version 16, keeping what it held, and proxies are stored', async () => {
    const file = join(dir, `v16-${++n}.db`);
    const old = openConnection(file);
    migrate(old, 16);
    old
      .prepare(`INSERT INTO webhooks (tenant_id, id, name, url, events, status, notify_email, sealed_secret, created_by, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(T1, 'wh-old', 'old', 'https://hooks.example.com/in', '["proxy.created"]', 'enabled', null, Buffer.from([1]), 'app-1', NOW.getTime());
    old.close();

    const store = openSqliteStore({ file, writerThread: false });
    expect(store.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(17);
    expect((await store.webhooks.findById(T1, 'wh-old'))?.name).toBe('old');
    const proxy = aProxy();
    expect(await store.proxies.create(proxy, 100)).toBe('created');
    expect((await store.proxies.findByKeyHash(proxy.keyHash))?.id).toBe(proxy.id);
    await store.close();

    // Opened again: nothing runs twice.
    const again = openSqliteStore({ file, writerThread: false });
    expect((await again.proxies.list(T1, {}, { page: 1, size: 10 })).total).toBe(1);
    await again.close();
  });
});

describe('proxy rows', () => {
  let store: SqliteStore;
  beforeAll(() => {
    store = openSqliteStore({ file: join(dir, `rows-${++n}.db`), writerThread: false });
  });
  afterAll(() => store.close());

  it('hold the configuration as a BLOB, the key as its hash only, flags as 0 and 1, absent fields as NULL', async () => {
    const proxy = aProxy({ requireAuth: false, disableDetokenization: true });
    await store.proxies.create(proxy, 100);
    const row = store.db.prepare('SELECT * FROM proxies WHERE id = ?').get(proxy.id) as Record<string, unknown>;
    expect(Buffer.isBuffer(row.sealed_configuration)).toBe(true);
    expect(row).toMatchObject({
      key_hash: proxy.keyHash,
      require_auth: 0,
      disable_detokenization: 1,
      application_id: null,
      timeout_seconds: null,
      modified_by: null,
      modified_at: null,
      request_transforms: '[{"type":"detokenize"}]',
      response_transforms: '[]',
      created_at: NOW.getTime(),
    });
  });

  it('refuses a stored key hash at the UNIQUE constraint, in a transaction with effects too, and leaves nothing', async () => {
    const first = aProxy();
    await store.proxies.create(first, 100);
    const twin = aProxy({ keyHash: first.keyHash, tenantId: 'another-tenant' });
    // Not toThrow(): better-sqlite3's error class may come from another test file's realm under jest.
    const unique = { message: expect.stringMatching(/UNIQUE constraint failed: proxies.key_hash/) };
    await expect(store.proxies.create(twin, 100)).rejects.toMatchObject(unique);
    const event = anAuditEvent({ tenantId: 'another-tenant', entityType: 'proxy', entityId: twin.id });
    await expect(store.proxies.create(twin, 100, { events: [event], messages: [] })).rejects.toMatchObject(unique);
    expect(store.db.prepare('SELECT COUNT(*) FROM proxies WHERE id = ?').pluck().get(twin.id)).toBe(0);
    expect(store.db.prepare('SELECT COUNT(*) FROM audit_events WHERE id = ?').pluck().get(event.id)).toBe(0);
    // The connection is usable after the rolled-back transaction.
    expect(await store.proxies.create(aProxy(), 100, { events: [anAuditEvent({ entityType: 'proxy' })], messages: [] })).toBe('created');
  });
});

describe('proxy query plans', () => {
  let store: SqliteStore;
  beforeAll(() => {
    store = openSqliteStore({ file: join(dir, `plans-${++n}.db`), writerThread: false });
  });
  afterAll(() => store.close());

  const plan = (sql: string, ...params: unknown[]): string =>
    (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('\n');

  it('lists a tenant\'s proxies in index order, filtered or not, and finds a key by its unique index', () => {
    const list = plan('SELECT * FROM proxies WHERE tenant_id = ? ORDER BY created_at DESC, id DESC LIMIT 10 OFFSET 0', T1);
    expect(list).toMatch(/proxies_by_created/);
    expect(list).not.toMatch(/TEMP B-TREE/);
    const named = plan('SELECT * FROM proxies WHERE tenant_id = ? AND instr(svc_fold(name), ?) > 0 ORDER BY created_at DESC, id DESC LIMIT 10', T1, 'x');
    expect(named).toMatch(/SEARCH proxies USING INDEX proxies_by_created/);
    expect(plan('SELECT COUNT(*) FROM proxies WHERE tenant_id = ?', T1)).toMatch(/SEARCH proxies USING (COVERING )?INDEX/);
    expect(plan('SELECT * FROM proxies WHERE key_hash = ?', 'h')).toMatch(/SEARCH proxies USING INDEX sqlite_autoindex_proxies_\d \(key_hash=\?\)/);
  });
});
