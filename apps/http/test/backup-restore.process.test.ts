import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { BIN, bannerKey, killServed, send, type Served, serveBin } from './served-bin';

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `svc` run as a user runs it, from a pipe (so no progress line may appear), on `env`. */
function svc(env: Record<string, string>, ...args: string[]): Run {
  const run = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The same, without blocking this process's event loop: the create load goes on while it runs. */
function svcAsync(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}

async function stop(served: Served): Promise<void> {
  served.child.kill('SIGTERM');
  expect((await served.exited).code).toBe(0);
}

/** A private application's key that creates tokens and reads them revealed, made with the bootstrap management key. */
async function tokenKey(served: Served): Promise<string> {
  const created = await send(served.url, false, 'POST', '/applications', bannerKey(served.output()), {
    name: 'backups',
    type: 'private',
    rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
  });
  expect(created.status).toBe(201);
  return (JSON.parse(created.body) as { key: string }).key;
}

/** Neither a carriage return nor an escape sequence: output to a pipe carries no progress line. */
const plain = (run: Run): void => expect(`${run.stdout}${run.stderr}`).not.toMatch(/[\r\u001b]/);

const names = (dir: string): string[] => readdirSync(dir).sort();

describe('svc backup and svc restore', () => {
  let root: string;
  let n = 0;
  const aPath = (name: string): string => join(root, `${++n}-${name}`);

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
    root = mkdtempSync(join(tmpdir(), 'svc-backup-'));
  });
  afterEach(() => killServed());
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('round trip: a backup restored into an empty directory holding master.key serves the same store', async () => {
    const source = aPath('data');
    const first = await serveBin({ SVC_DATA_DIR: source });
    const management = bannerKey(first.output());
    const key = await tokenKey(first);
    const created = await send(first.url, false, 'POST', '/tokens', key, { type: 'card_number', data: '4242424242424242', metadata: { kept: 'yes' } });
    expect(created.status).toBe(201);
    const token = JSON.parse(created.body) as { id: string };
    await stop(first);

    const file = join(aPath('backups'), 'svc-backup.db');
    mkdirSync(join(file, '..'));
    const backup = svc({ SVC_DATA_DIR: source }, 'backup', file);
    expect(backup.stderr).toBe('');
    expect(backup.status).toBe(0);
    expect(backup.stdout).toMatch(/^svc: backed up .*svc\.db to .*svc-backup\.db \(\d+\.\d MB, \d+ pages, schema version \d+\)\n/);
    expect(backup.stdout).toContain(`svc: the master key is not in the backup: keep ${join(source, 'master.key')} safe and apart from it; restoring needs the same key`);
    plain(backup);
    // One owner-only file, and nothing else beside it.
    expect(names(join(file, '..'))).toEqual(['svc-backup.db']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).toString('latin1')).not.toContain('4242424242424242');

    const target = aPath('restored');
    mkdirSync(target);
    copyFileSync(join(source, 'master.key'), join(target, 'master.key'));
    const restored = svc({ SVC_DATA_DIR: target }, 'restore', file);
    expect(restored.stderr).toBe('');
    expect(restored.status).toBe(0);
    expect(restored.stdout).toContain(`svc: restored ${file} into ${join(target, 'svc.db')}`);
    expect(restored.stdout).toContain(`integrity check ok; ${join(target, 'master.key')} opens its 1 tenant data key(s)`);
    plain(restored);
    expect(names(target)).toEqual(['master.key', 'svc.db', 'svc.db.lock']);
    expect(statSync(join(target, 'svc.db')).mode & 0o777).toBe(0o600);

    const second = await serveBin({ SVC_DATA_DIR: target });
    const underServer = svc({ SVC_DATA_DIR: target }, 'restore', file);
    expect(underServer).toEqual({
      status: 1,
      stdout: '',
      stderr: `svc: restore refused: ${target} is in use by a running svc serve (or keys rotate): a restore goes into an empty data directory that no server uses\n`,
    });
    // The restored store is not empty: no second bootstrap, and the keys of the backed-up store work.
    expect(second.output()).not.toContain('management key (shown once');
    expect((await send(second.url, false, 'GET', '/applications/key', management)).status).toBe(200);
    const read = await send(second.url, false, 'GET', `/tokens/${token.id}`, key);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ id: token.id, data: '4242424242424242', metadata: { kept: 'yes' } });
    await stop(second);
  }, 60_000);

  it('a backup taken during a create load restores to a store where every token acknowledged before it began reads back, and whose audit chains verify', async () => {
    const masterKey = Buffer.alloc(32, 7).toString('base64');
    const source = aPath('loaded');
    const served = await serveBin({ SVC_DATA_DIR: source, SVC_MASTER_KEY: masterKey });
    const key = await tokenKey(served);

    const acked: Array<{ id: string; data: string; at: number }> = [];
    const failures: string[] = [];
    // A store of some 10 MB first (POST /tokenize, 100 tokens of 1.5 KB a call), so the backup copies it in several
    // steps (4 MB each) while the creates below go on.
    const preload = async (c: number): Promise<void> => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let call = 0; call < 10; call++) {
          const values = Array.from({ length: 100 }, (_, i) => `preload ${c}.${call}.${i} ${'x'.repeat(1_500)}`);
          const reply = await send(served.url, agent, 'POST', '/tokenize', key, values);
          if (reply.status !== 201) failures.push(`tokenize: ${reply.status} ${reply.body.slice(0, 200)}`);
          else (JSON.parse(reply.body) as string[]).forEach((id, i) => acked.push({ id, data: values[i]!, at: performance.now() }));
        }
      } finally {
        agent.destroy();
      }
    };
    await Promise.all([0, 1, 2, 3].map(preload));
    expect(failures).toEqual([]);
    const preloaded = acked.length;
    let stopped = false;
    const client = async (c: number): Promise<void> => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; !stopped; i++) {
          const data = `client ${c} token ${i}`;
          const reply = await send(served.url, agent, 'POST', '/tokens', key, { type: 'token', data });
          if (reply.status !== 201) failures.push(`${reply.status} ${reply.body.slice(0, 200)}`);
          else acked.push({ id: (JSON.parse(reply.body) as { id: string }).id, data, at: performance.now() });
        }
      } finally {
        agent.destroy();
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(client));
    while (acked.length < preloaded + 300 && failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));

    const file = join(root, `${++n}-during-load.db`);
    const began = performance.now();
    const backup = await svcAsync({ SVC_DATA_DIR: source, SVC_MASTER_KEY: masterKey }, 'backup', file);
    const ended = performance.now();
    stopped = true;
    await load;
    await stop(served);
    expect(failures).toEqual([]);
    expect(backup.stderr).toBe('');
    expect(backup.status).toBe(0);
    expect(backup.stdout).toContain('keep SVC_MASTER_KEY safe and apart from it');
    expect(Number(/, (\d+) pages,/.exec(backup.stdout)![1])).toBeGreaterThan(2_048);
    const before = acked.filter((a) => a.at < began);
    // The load went on while the backup ran: writes landed between its start and its end.
    expect(acked.filter((a) => a.at >= began && a.at <= ended).length).toBeGreaterThan(0);

    const target = aPath('restored-from-load');
    const restored = svc({ SVC_DATA_DIR: target, SVC_MASTER_KEY: masterKey }, 'restore', file);
    expect(restored.stderr).toBe('');
    expect(restored.status).toBe(0);
    expect(restored.stdout).toContain('SVC_MASTER_KEY opens its 1 tenant data key(s)');

    const again = await serveBin({ SVC_DATA_DIR: target, SVC_MASTER_KEY: masterKey });
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const wrong: string[] = [];
      await Promise.all(
        before.map(async ({ id, data }) => {
          const reply = await send(again.url, agent, 'GET', `/tokens/${id}`, key);
          if (reply.status !== 200 || (JSON.parse(reply.body) as { data: string }).data !== data) wrong.push(`${id}: ${reply.status}`);
        }),
      );
      expect({ checked: before.length, wrong }).toEqual({ checked: before.length, wrong: [] });
      // A snapshot: it holds no token the source never acknowledged or had not yet been asked for.
      const listed = await send(again.url, agent, 'GET', '/tokens?size=1', key);
      const total = (JSON.parse(listed.body) as { pagination: { total_items: number } }).pagination.total_items;
      expect(total).toBeGreaterThanOrEqual(before.length);
      expect(total).toBeLessThanOrEqual(acked.length);
    } finally {
      agent.destroy();
    }
    await stop(again);

    const verified = svc({ SVC_DATA_DIR: target, SVC_MASTER_KEY: masterKey }, 'audit', 'verify');
    expect(verified.stderr).toBe('');
    expect(verified.stdout).not.toContain('FAILED');
    expect(verified.stdout).toMatch(/tenant \S+: ok, [1-9]\d* event\(s\) verified/);
    expect(verified.status).toBe(0);
  }, 90_000);

  describe('refusals', () => {
    let store: string;
    let backupFile: string;

    beforeAll(() => {
      store = aPath('store');
      const made = svc({ SVC_DATA_DIR: store }, 'tenants', 'create', '--name', 'Acme', '--owner-email', 'ops@acme.test');
      expect(made.status).toBe(0);
      backupFile = aPath('store-backup.db');
      expect(svc({ SVC_DATA_DIR: store }, 'backup', backupFile).status).toBe(0);
    });

    /** An empty data directory holding the store's master.key, as an operator prepares it for a restore. */
    function withMasterKey(): string {
      const dir = aPath('target');
      mkdirSync(dir);
      copyFileSync(join(store, 'master.key'), join(dir, 'master.key'));
      return dir;
    }

    it('backup will not overwrite an existing FILE, unless --force', () => {
      const file = aPath('existing.db');
      writeFileSync(file, 'yesterday');
      const refused = svc({ SVC_DATA_DIR: store }, 'backup', file);
      expect(refused).toEqual({ status: 1, stdout: '', stderr: `svc: backup refused: ${file} already exists (pass --force to replace it)\n` });
      expect(readFileSync(file, 'utf8')).toBe('yesterday');

      const forced = svc({ SVC_DATA_DIR: store }, 'backup', file, '--force');
      expect(forced.stderr).toBe('');
      expect(forced.status).toBe(0);
      const db = new Database(file, { readonly: true });
      expect((db.prepare('SELECT count(*) AS n FROM tenants').get() as { n: number }).n).toBe(1);
      db.close();
    });

    it('backup refuses a data directory with no store (creating nothing there), a FILE inside the data directory, and a usage without FILE', () => {
      const empty = aPath('no-store');
      const file = aPath('nothing.db');
      const refused = svc({ SVC_DATA_DIR: empty }, 'backup', file);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toBe(`svc: backup refused: there is no store to back up: ${join(empty, 'svc.db')} does not exist (check SVC_DATA_DIR)\n`);
      expect(existsSync(empty)).toBe(false);
      expect(existsSync(file)).toBe(false);

      const inside = svc({ SVC_DATA_DIR: store }, 'backup', join(store, 'copy.db'));
      expect(inside.status).toBe(1);
      expect(inside.stderr).toContain('is in the data directory; keep backups elsewhere');
      expect(existsSync(join(store, 'copy.db'))).toBe(false);

      const usage = svc({ SVC_DATA_DIR: store }, 'backup');
      expect(usage.status).toBe(2);
      expect(usage.stderr).toMatch(/^svc: backup takes one FILE\n\nUsage:/);
    });

    it('restore refuses a directory with a store in it, or any file but master.key, and leaves what is there', () => {
      const occupied = svc({ SVC_DATA_DIR: store }, 'restore', backupFile);
      expect(occupied.status).toBe(1);
      expect(occupied.stderr).toMatch(new RegExp(`^svc: restore refused: ${store} is not empty \\(svc\\.db.*\\): restore into an empty data directory\\n$`));

      const dir = withMasterKey();
      writeFileSync(join(dir, 'notes.txt'), 'mine');
      const stray = svc({ SVC_DATA_DIR: dir }, 'restore', backupFile);
      expect(stray.status).toBe(1);
      expect(stray.stderr).toBe(`svc: restore refused: ${dir} is not empty (notes.txt): restore into an empty data directory\n`);
      expect(names(dir)).toEqual(['master.key', 'notes.txt', 'svc.db.lock']);
    });

    it('restore refuses a missing file, a file that is not SQLite, and an SQLite file that is not an svc store', () => {
      const text = aPath('notes.txt');
      writeFileSync(text, 'not a database\n'.repeat(100));
      const other = aPath('other.db');
      const db = new Database(other);
      db.exec('CREATE TABLE notes (t TEXT)');
      db.close();
      const cases: Array<[string, string]> = [
        [aPath('missing.db'), 'does not exist'],
        [text, 'is not an SQLite database'],
        [other, 'is an SQLite database but not an svc store'],
      ];
      for (const [file, reason] of cases) {
        const dir = withMasterKey();
        const refused = svc({ SVC_DATA_DIR: dir }, 'restore', file);
        expect({ file, status: refused.status, stderr: refused.stderr, stdout: refused.stdout }).toEqual({
          file,
          status: 1,
          stderr: `svc: restore refused: ${file} ${reason}\n`,
          stdout: '',
        });
        expect(names(dir).filter((f) => f !== 'svc.db.lock')).toEqual(['master.key']);
      }
    });

    it('restore refuses without the master key, or with another one, since the restored tokens could not be read', () => {
      const bare = aPath('bare');
      const missing = svc({ SVC_DATA_DIR: bare }, 'restore', backupFile);
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain('svc: restore refused: no master key: set SVC_MASTER_KEY, or copy master.key from the data directory the backup was taken from');
      expect(names(bare)).toEqual(['svc.db.lock']);

      const wrong = svc({ SVC_DATA_DIR: aPath('wrong-key'), SVC_MASTER_KEY: Buffer.alloc(32, 1).toString('base64') }, 'restore', backupFile);
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toMatch(/^svc: restore refused: SVC_MASTER_KEY does not open the backup's data key of tenant \S+: restore with the master key the backed-up store was served with\n$/);
      plain(wrong);
    });

    it('after a restore or backup killed midway: a start refuses to serve an empty store beside the copy, and the next restore or backup clears what the killed one left', () => {
      // What `kill -9` leaves (the copy and its journal, named after the dead process): made here as it would be,
      // rather than by racing a kill against a copy this small.
      const dead = spawnSync(process.execPath, ['-e', '']).pid;
      const dir = withMasterKey();
      const copy = join(dir, `.svc.db.restore-${dead}.tmp`);
      writeFileSync(copy, readFileSync(backupFile).subarray(0, 4096));
      writeFileSync(`${copy}-journal`, 'half');
      const started = svc({ SVC_DATA_DIR: dir, SVC_PORT: '0' }, 'serve');
      expect(started.status).not.toBe(0);
      expect(started.stderr).toContain(`${copy} is a restore's copy and there is no svc.db: a restore is running, or one was interrupted. Run svc restore again`);
      expect(existsSync(join(dir, 'svc.db'))).toBe(false);
      // Nor does a command make a store there (it would then be served).
      const command = svc({ SVC_DATA_DIR: dir }, 'tenants', 'create', '--name', 'X', '--owner-email', 'x@acme.test');
      expect(command.status).not.toBe(0);
      expect(command.stderr).toContain("is a restore's copy and there is no svc.db");
      expect(existsSync(join(dir, 'svc.db'))).toBe(false);

      const again = svc({ SVC_DATA_DIR: dir }, 'restore', backupFile);
      expect(again.stderr).toBe('');
      expect(again.status).toBe(0);
      expect(names(dir)).toEqual(['master.key', 'svc.db', 'svc.db.lock']);

      // A backup's leftovers beside its FILE go with the next backup to that FILE, unless their process still runs.
      const file = aPath('again.db');
      const left = (pid: number | undefined) => [`.${basename(file)}.${pid}.tmp`, `.${basename(file)}.${pid}.tmp-journal`];
      for (const name of [...left(dead), ...left(process.pid)]) writeFileSync(join(root, name), 'half');
      expect(svc({ SVC_DATA_DIR: store }, 'backup', file).status).toBe(0);
      for (const name of left(dead)) expect(existsSync(join(root, name))).toBe(false);
      for (const name of left(process.pid)) expect(existsSync(join(root, name))).toBe(true);
    });

    it('points MongoDB deployments to mongodump and mongorestore', () => {
      const env = { SVC_STORE: 'mongo', MONGODB_URI: 'mongodb://127.0.0.1:1/svc', SVC_MASTER_KEY: Buffer.alloc(32, 2).toString('base64') };
      const backup = svc(env, 'backup', aPath('mongo.db'));
      expect(backup.status).toBe(1);
      expect(backup.stderr).toContain('mongodump --uri "$MONGODB_URI"');
      const restore = svc(env, 'restore', backupFile);
      expect(restore.status).toBe(1);
      expect(restore.stderr).toContain('mongorestore --uri "$MONGODB_URI"');
    });
  });
});
