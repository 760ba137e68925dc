import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { aStoredToken } from '@svc/core/testing';
import { checkpointScript } from './checkpointer';
import { openConnection } from './connection';
import { migrate } from './schema';
import { openSqliteStore, type SqliteStore } from './sqlite-store';
import { ThreadTokenWriter, workerScript } from './thread-writer';

const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-threads-'));
let n = 0;
const NOW = new Date('2026-01-01T00:00:00.000Z');

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const threadOf = (store: SqliteStore, part: 'writer' | 'checkpointer'): Worker => (store as unknown as Record<string, { worker: Worker }>)[part]!.worker;

/** Settles with what `promise` settled with, or 'pending' when it has not within `ms`. */
const within = (promise: Promise<unknown>, ms: number): Promise<unknown> =>
  Promise.race([promise.then((value) => ({ value }), (error: unknown) => ({ error: (error as Error).message })), new Promise((resolve) => setTimeout(() => resolve('pending'), ms))]);

const aToken = () => aStoredToken().inTenant('t1').with({ indexHashes: ['h1', 'h2'], metadata: { k: 'v', n: String(Math.random()) } }).build();

describe('the writer and checkpointer threads, when one stops', () => {
  beforeAll(() => {
    if (!workerScript() || !checkpointScript()) throw new Error('the threads run from the build: run it first (npm test does)');
  });

  it('fails writes at once once the writer thread has died, instead of leaving them and the close waiting forever', async () => {
    const store = openSqliteStore({ file: join(dir, `store-${++n}.db`) });
    await store.tokens.create(aToken(), { deduplicate: false, now: NOW });
    await threadOf(store, 'writer').terminate();
    const after = await within(store.tokens.create(aToken(), { deduplicate: false, now: NOW }), 2_000);
    expect(after).toEqual({ error: expect.stringMatching(/writer thread exited/) });
    expect(await within(store.close(), 2_000)).toEqual({ value: undefined });
  });

  it('keeps writing after the checkpointer thread has died, and closes without waiting for it', async () => {
    const store = openSqliteStore({ file: join(dir, `store-${++n}.db`) });
    await threadOf(store, 'checkpointer').terminate();
    expect(await store.tokens.create(aToken(), { deduplicate: false, now: NOW })).toEqual({ status: 'created' });
    const started = performance.now();
    await store.close();
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('the WAL under readers that never all stop', () => {
  const PAGES = 64;
  let file: string;
  let writer: ThreadTokenWriter;
  let readers: Database[];

  beforeAll(() => {
    file = join(dir, `store-${++n}.db`);
    const db = openConnection(file);
    migrate(db);
    db.close();
    // The writer's backstop scaled down to PAGES pages, and no checkpointer: the bound must hold without one (it may
    // have died), and a checkpoint under way on it would only delay the writer's reset, by as long as it runs.
    writer = new ThreadTokenWriter(file, workerScript()!, PAGES);
    readers = [openConnection(file), openConnection(file)];
  });

  afterAll(async () => {
    for (const reader of readers) if (reader.inTransaction) reader.exec('COMMIT');
    await writer.close();
    for (const reader of readers) reader.close();
  });

  it('stays bounded: the writer resets it even though some reader holds a snapshot at every commit', async () => {
    const walSize = (): number => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
    // Two readers taking turns every 2 ms, each starting before the other ends (search readers under load do this):
    // at no moment are all readers out of the WAL, so a PASSIVE checkpoint never lets the writer restart it.
    let turn = 0;
    readers[0]!.exec('BEGIN');
    readers[0]!.prepare('SELECT count(*) FROM tokens').get();
    const leapfrog = setInterval(() => {
      const [next, current] = [readers[(turn + 1) % 2]!, readers[turn % 2]!];
      next.exec('BEGIN');
      next.prepare('SELECT count(*) FROM tokens').get();
      current.exec('COMMIT');
      turn++;
    }, 2);
    let largest = 0;
    try {
      for (let batch = 0; batch < 60; batch++) {
        const tokens = Array.from({ length: 100 }, () => ({ token: aToken(), deduplicate: false }));
        expect(await writer.run({ op: 'createMany', tokens, now: NOW.getTime() })).toMatchObject({ status: 'created' });
        largest = Math.max(largest, walSize());
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } finally {
      clearInterval(leapfrog);
    }
    const limit = PAGES * 4096;
    // 6,000 tokens put several megabytes through the WAL; it may pass twice the backstop only by about a batch.
    expect({ largest, bounded: largest < 8 * limit }).toEqual({ largest, bounded: true });
  }, 30_000);
});
