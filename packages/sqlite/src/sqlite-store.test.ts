import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSearchContract, describeStoreContract } from '@svc/core/testing';
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
