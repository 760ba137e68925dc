import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { backupSqliteStore, restoreSqliteStore, SqliteBackupError } from './backup';
import { claimExclusively, openConnection } from './connection';
import { migrate, SCHEMA_VERSION } from './schema';

const root = mkdtempSync(join(tmpdir(), 'svc-backup-'));
let n = 0;

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh directory under the test root. */
function aDir(): string {
  const dir = join(root, `d${++n}`);
  mkdirSync(dir);
  return dir;
}

/** An svc store at `dir/svc.db` with `rows` rows of 4 KB in a filler table, so a copy takes several steps. */
function aStore(dir: string, rows: number): string {
  const file = join(dir, 'svc.db');
  const db = openConnection(file);
  migrate(db);
  db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, v BLOB NOT NULL)');
  const insert = db.prepare('INSERT INTO filler (v) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(Buffer.alloc(4_000, i % 251));
  })();
  db.close();
  return file;
}

const count = (file: string): number => {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('backupSqliteStore', () => {
  it('copies the snapshot it started from while another connection keeps committing, in steps, without restarting', async () => {
    const dir = aDir();
    const file = aStore(dir, 4_000);
    const writer = openConnection(file);
    const insert = writer.prepare('INSERT INTO filler (v) VALUES (?)');
    const steps: Array<[number, number]> = [];
    const destination = join(aDir(), 'backup.db');
    const result = await backupSqliteStore({
      file,
      destination,
      onProgress: (done, total) => {
        steps.push([done, total]);
        // A commit between every two steps: it restarted a copy that held no snapshot.
        insert.run(Buffer.alloc(4_000, 1));
      },
    });
    writer.close();
    expect(steps.length).toBeGreaterThan(3);
    for (let i = 1; i < steps.length; i++) expect(steps[i]![0]).toBeGreaterThanOrEqual(steps[i - 1]![0]);
    expect(steps.at(-1)).toEqual([result.pages, result.pages]);
    expect(result.schemaVersion).toBe(SCHEMA_VERSION);
    expect(count(destination)).toBe(4_000);
    expect(count(file)).toBe(4_000 + steps.length);
    // One self-contained, owner-only file; no temporary file or journal beside it.
    expect(readdirSync(join(destination, '..'))).toEqual(['backup.db']);
    expect(statSync(destination).mode & 0o777).toBe(0o600);
    expect(result.bytes).toBe(statSync(destination).size);
    const copy = new BetterSqlite3(destination, { readonly: true });
    expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    copy.close();
  });

  it('works beside a process that holds the store exclusively, as svc serve does', async () => {
    const dir = aDir();
    const file = aStore(dir, 10);
    const claim = claimExclusively(file);
    try {
      const destination = join(aDir(), 'b.db');
      await backupSqliteStore({ file, destination });
      expect(count(destination)).toBe(10);
    } finally {
      claim.close();
    }
  });

  it('refuses a destination that exists unless told to overwrite it, and a store that is not there', async () => {
    const dir = aDir();
    const file = aStore(dir, 5);
    const out = aDir();
    const destination = join(out, 'b.db');
    writeFileSync(destination, 'keep me');
    await expect(backupSqliteStore({ file, destination })).rejects.toThrow(new SqliteBackupError(`${destination} already exists`));
    expect(readFileSync(destination, 'utf8')).toBe('keep me');
    await backupSqliteStore({ file, destination, overwrite: true });
    expect(count(destination)).toBe(5);
    expect(readdirSync(out)).toEqual(['b.db']);

    const missing = join(aDir(), 'svc.db');
    await expect(backupSqliteStore({ file: missing, destination: join(out, 'c.db') })).rejects.toThrow(/there is no store to back up/);
    expect(existsSync(missing)).toBe(false);
    await expect(backupSqliteStore({ file, destination: join(out, 'nowhere', 'c.db') })).rejects.toThrow(/does not exist/);
    for (const own of [file, `${file}-wal`, `${file}.lock`]) {
      await expect(backupSqliteStore({ file, destination: own, overwrite: true })).rejects.toThrow(/is one of the store's own files/);
    }
    expect(count(file)).toBe(5);
    expect(readdirSync(out)).toEqual(['b.db']);
  });

  it('refuses an SQLite file that is not an svc store', async () => {
    const dir = aDir();
    const other = new BetterSqlite3(join(dir, 'svc.db'));
    other.exec('CREATE TABLE notes (t TEXT)');
    other.close();
    const out = aDir();
    await expect(backupSqliteStore({ file: join(dir, 'svc.db'), destination: join(out, 'b.db') })).rejects.toThrow(/is an SQLite database but not an svc store/);
    expect(readdirSync(out)).toEqual([]);
  });
  it('stops when its signal is aborted, leaving nothing behind', async () => {
    const file = aStore(aDir(), 3_000);
    const out = aDir();
    const controller = new AbortController();
    const copy = backupSqliteStore({ file, destination: join(out, 'b.db'), signal: controller.signal, onProgress: () => controller.abort() });
    await expect(copy).rejects.toThrow(new SqliteBackupError('interrupted'));
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('restoreSqliteStore', () => {
  async function aBackup(rows = 20): Promise<string> {
    const destination = join(aDir(), 'backup.db');
    await backupSqliteStore({ file: aStore(aDir(), rows), destination });
    return destination;
  }

  it('restores into an empty (or missing) directory, leaving only the store and its lock file', async () => {
    const backup = await aBackup(300);
    const progress: number[] = [];
    const target = join(aDir(), 'data', 'nested');
    const result = await restoreSqliteStore({ backup, file: join(target, 'svc.db'), onProgress: (done) => progress.push(done) });
    expect(result.bytes).toBe(statSync(backup).size);
    expect(progress.at(-1)).toBe(result.bytes);
    expect(result.schemaVersion).toBe(SCHEMA_VERSION);
    expect(count(join(target, 'svc.db'))).toBe(300);
    expect(readdirSync(target).sort()).toEqual(['svc.db', 'svc.db.lock']);
    expect(statSync(join(target, 'svc.db')).mode & 0o777).toBe(0o600);
    expect(statSync(target).mode & 0o777).toBe(0o700);
  });

  it('accepts the names the caller allows (master.key), and refuses any other file, naming it', async () => {
    const backup = await aBackup();
    const dir = aDir();
    writeFileSync(join(dir, 'master.key'), 'k');
    await restoreSqliteStore({ backup, file: join(dir, 'svc.db'), allowed: ['master.key'] });
    expect(count(join(dir, 'svc.db'))).toBe(20);

    const again = restoreSqliteStore({ backup, file: join(dir, 'svc.db'), allowed: ['master.key'] });
    await expect(again).rejects.toThrow(`${dir} is not empty (svc.db): restore into an empty data directory`);

    const stray = aDir();
    writeFileSync(join(stray, 'svc.db-wal'), '');
    writeFileSync(join(stray, 'notes.txt'), '');
    await expect(restoreSqliteStore({ backup, file: join(stray, 'svc.db') })).rejects.toThrow(/is not empty \(notes\.txt, svc\.db-wal\)/);
    expect(readdirSync(stray).sort()).toEqual(['notes.txt', 'svc.db-wal', 'svc.db.lock']);
  });

  it('refuses while svc serve (or a rotation) holds the directory', async () => {
    const backup = await aBackup();
    const dir = aDir();
    const file = aStore(dir, 1);
    const claim = claimExclusively(file);
    try {
      rmSync(file);
      await expect(restoreSqliteStore({ backup, file })).rejects.toThrow(new SqliteBackupError(`${dir} is in use by a running svc serve (or keys rotate): a restore goes into an empty data directory that no server uses`));
      expect(existsSync(file)).toBe(false);
    } finally {
      claim.close();
    }
  });

  it('refuses a missing, empty, non-SQLite, non-svc, newer or damaged file, leaving the directory as it was', async () => {
    const inputs = aDir();
    const cases: Array<[string, (path: string) => void, RegExp]> = [
      ['missing.db', () => undefined, /missing\.db does not exist/],
      ['empty.db', (p) => writeFileSync(p, ''), /empty\.db is empty/],
      ['text.db', (p) => writeFileSync(p, 'just some text, not a database at all\n'.repeat(200)), /text\.db is not an SQLite database/],
      [
        'other.db',
        (p) => {
          const db = new BetterSqlite3(p);
          db.exec('CREATE TABLE notes (t TEXT)');
          db.close();
        },
        /other\.db is an SQLite database but not an svc store/,
      ],
      [
        'newer.db',
        (p) => {
          const db = openConnection(p);
          migrate(db);
          db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
          db.pragma('journal_mode = DELETE');
          db.close();
        },
        /newer\.db was made by a newer svc/,
      ],
    ];
    for (const [name, make, refusal] of cases) {
      const path = join(inputs, name);
      make(path);
      const dir = aDir();
      await expect(restoreSqliteStore({ backup: path, file: join(dir, 'svc.db') })).rejects.toThrow(refusal);
      expect(readdirSync(dir).filter((f) => f !== 'svc.db.lock')).toEqual([]);
    }

    // Damaged: an index page overwritten with noise, which SQLite's integrity check (not a simple read) finds.
    const backup = await aBackup(2_000);
    const db = new BetterSqlite3(backup);
    const root = (db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'filler'").get() as { rootpage: number }).rootpage;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const bytes = readFileSync(backup);
    bytes.fill(0x5a, (root - 1) * pageSize + 100, root * pageSize);
    writeFileSync(backup, bytes);
    const dir = aDir();
    await expect(restoreSqliteStore({ backup, file: join(dir, 'svc.db') })).rejects.toThrow(/(fails SQLite's integrity check|is damaged)/);
    expect(readdirSync(dir).filter((f) => f !== 'svc.db.lock')).toEqual([]);
  });

  it('stops when its signal is aborted, leaving the directory as it was', async () => {
    const backup = await aBackup(3_000);
    const dir = aDir();
    const controller = new AbortController();
    const restore = restoreSqliteStore({ backup, file: join(dir, 'svc.db'), signal: controller.signal, onProgress: (done) => done > 0 && controller.abort() });
    await expect(restore).rejects.toThrow(new SqliteBackupError('interrupted'));
    expect(readdirSync(dir)).toEqual(['svc.db.lock']);
  });

  it("refuses a copy its caller's check refuses", async () => {
    const backup = await aBackup();
    const dir = aDir();
    const verify = (): never => {
      throw new SqliteBackupError('the master key does not open it');
    };
    await expect(restoreSqliteStore({ backup, file: join(dir, 'svc.db'), verify })).rejects.toThrow('the master key does not open it');
    expect(readdirSync(dir)).toEqual(['svc.db.lock']);
  });
});
