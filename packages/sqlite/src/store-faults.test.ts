import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sqliteFault } from './sqlite-store';

/** The error `action` throws (it must throw). */
function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('sqliteFault: what a SQLite error says about the store, on errors SQLite really raises', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-faults-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a full database (no room to grow) as full', () => {
    const db = new BetterSqlite3(join(dir, 'full.db'));
    db.exec('CREATE TABLE t (v BLOB)');
    // The file may not grow past its pages now, as a full disk refuses the next one.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const error = thrown(() => {
      for (let i = 0; i < 100; i++) db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(4096));
    });
    expect((error as { code?: string }).code).toBe('SQLITE_FULL');
    expect(sqliteFault(error)).toBe('full');
    db.close();
  });

  it('reads a file whose pages were overwritten, or that is no database, as damaged', () => {
    const file = join(dir, 'damaged.db');
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200));
    })();
    db.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 20, 0xa5), 0, 4096 * 20, 4096 * 10);
    closeSync(fd);
    const reopened = new BetterSqlite3(file);
    const error = thrown(() => reopened.prepare('SELECT COUNT(*), SUM(LENGTH(v)) FROM t').get());
    expect((error as { code?: string }).code).toMatch(/^SQLITE_CORRUPT/);
    expect(sqliteFault(error)).toBe('damaged');
    reopened.close();

    const garbage = join(dir, 'garbage.db');
    const g = openSync(garbage, 'w');
    writeSync(g, Buffer.alloc(8192, 0x5a));
    closeSync(g);
    const notADatabase = thrown(() => new BetterSqlite3(garbage).prepare('SELECT * FROM sqlite_master').all());
    expect(sqliteFault(notADatabase)).toBe('damaged');
  });

  it('reads anything else as no fault', () => {
    const db = new BetterSqlite3(':memory:');
    expect(sqliteFault(thrown(() => db.prepare('SELECT * FROM missing').all()))).toBeUndefined();
    expect(sqliteFault(new Error('plain'))).toBeUndefined();
    expect(sqliteFault(undefined)).toBeUndefined();
    db.close();
  });
});
