import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CryptoRandomSource, type DataKeyRepository, Keyring, SystemClock } from '@svc/core';
import { openSqliteStore } from '@svc/sqlite';
import { BIN, killServed, serveBin } from './served-bin';

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `svc` run as a user runs it, on `env` only. */
function svc(env: Record<string, string>, ...args: string[]): Run {
  const run = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, SVC_LOG_LEVEL: 'info', ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const count = (file: string, table: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

const otherKey = Buffer.alloc(32, 3).toString('base64');
const RAW_CRYPTO = 'Unsupported state or unable to authenticate data';

/**
 * A master key opens a store's data keys, or the command stops: one is generated only for a store with no data keys
 * yet. Before, a store restored or copied without its master.key was served under a new key (every token read a 500,
 * audit events lost), and `svc tenants create` wrapped the new tenant's data key under a key the server did not have.
 */
describe('the master key of an existing store', () => {
  let root: string;
  let n = 0;
  let source: string;
  let sourceKey: string;
  let backupFile: string;
  const aDir = (name: string): string => join(root, `${++n}-${name}`);

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
    root = mkdtempSync(join(tmpdir(), 'svc-master-key-'));
    source = aDir('source');
    expect(svc({ SVC_DATA_DIR: source }, 'tenants', 'create', '--name', 'Acme', '--owner-email', 'ops@acme.test').status).toBe(0);
    sourceKey = readFileSync(join(source, 'master.key'), 'utf8').trim();
    backupFile = join(root, 'backup.db');
    expect(svc({ SVC_DATA_DIR: source }, 'backup', backupFile).status).toBe(0);
  });
  afterEach(() => killServed());
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A data dir holding the restored store only (restored with SVC_MASTER_KEY, so no master.key beside it). */
  function restored(): string {
    const dir = aDir('restored');
    const run = svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: sourceKey }, 'restore', backupFile);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return dir;
  }

  it('svc serve refuses a restored store without its key, or with another master.key or SVC_MASTER_KEY, and writes no key', async () => {
    const dir = restored();
    const none = svc({ SVC_DATA_DIR: dir, SVC_PORT: '0' }, 'serve');
    expect(none.status).toBe(78);
    expect(none.stderr).toBe(`svc: invalid configuration: SVC_MASTER_KEY: this store has data keys but no master key: set SVC_MASTER_KEY, or put the store's master.key in ${dir} (a new key would open none of its tokens)\n`);
    expect(none.stdout).not.toContain('listening');
    expect(existsSync(join(dir, 'master.key'))).toBe(false);

    const viaEnv = svc({ SVC_DATA_DIR: dir, SVC_PORT: '0', SVC_MASTER_KEY: otherKey }, 'serve');
    expect(viaEnv.status).toBe(78);
    expect(viaEnv.stderr).toMatch(/^svc: invalid configuration: SVC_MASTER_KEY: the master key does not open this store's data keys \(SVC_MASTER_KEY does not open the data key of tenant [\w-]+\)/);
    expect(viaEnv.stderr).not.toContain(otherKey);

    writeFileSync(join(dir, 'master.key'), `${otherKey}\n`, { mode: 0o600 });
    const viaFile = svc({ SVC_DATA_DIR: dir, SVC_PORT: '0' }, 'serve');
    expect(viaFile.status).toBe(78);
    expect(viaFile.stderr).toContain(`the master key does not open this store's data keys (${join(dir, 'master.key')} does not open the data key of tenant `);
    expect(readFileSync(join(dir, 'master.key'), 'utf8').trim()).toBe(otherKey);

    // With its key the same store serves.
    writeFileSync(join(dir, 'master.key'), `${sourceKey}\n`);
    const served = await serveBin({ SVC_DATA_DIR: dir });
    expect(served.output()).not.toContain('first start');
    expect((await fetch(`${served.url}/readyz`)).status).toBe(200);
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
  }, 60_000);

  it('svc tenants create refuses a store without its key or with another one, and creates neither a key nor a tenant', () => {
    const dir = restored();
    const tenants = count(join(dir, 'svc.db'), 'tenants');
    const none = svc({ SVC_DATA_DIR: dir }, 'tenants', 'create', '--name', 'B', '--owner-email', 'b@b.test');
    expect(none.status).toBe(78);
    expect(none.stderr).toContain('SVC_MASTER_KEY: this store has data keys but no master key');
    expect(none.stdout).toBe('');
    expect(existsSync(join(dir, 'master.key'))).toBe(false);
    const wrong = svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: otherKey }, 'tenants', 'create', '--name', 'B', '--owner-email', 'b@b.test');
    expect(wrong.status).toBe(78);
    expect(wrong.stderr).toContain("SVC_MASTER_KEY: the master key does not open this store's data keys");
    expect(count(join(dir, 'svc.db'), 'tenants')).toBe(tenants);
    expect(count(join(dir, 'svc.db'), 'data_keys')).toBe(tenants);

    const right = svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: sourceKey }, 'tenants', 'create', '--name', 'B', '--owner-email', 'b@b.test');
    expect(right.status).toBe(0);
    expect(count(join(dir, 'svc.db'), 'tenants')).toBe(tenants + 1);
    expect(svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: sourceKey }, 'audit', 'verify').status).toBe(0);
  });

  it('svc audit verify writes nothing: no store is an error, a missing or wrong key is named, an unknown tenant gets no data key', () => {
    const missing = aDir('missing');
    const none = svc({ SVC_DATA_DIR: missing }, 'audit', 'verify');
    expect(none).toEqual({ status: 1, stdout: '', stderr: `svc: there is no store to verify: ${join(missing, 'svc.db')} does not exist (check SVC_DATA_DIR)\n` });
    expect(existsSync(missing)).toBe(false);
    const empty = aDir('empty');
    mkdirSync(empty);
    expect(svc({ SVC_DATA_DIR: empty }, 'audit', 'verify').status).toBe(1);
    expect(readdirSync(empty)).toEqual([]);

    const dir = restored();
    const before = readdirSync(dir).sort();
    const noKey = svc({ SVC_DATA_DIR: dir }, 'audit', 'verify');
    expect(noKey.status).toBe(78);
    expect(noKey.stderr).toContain('SVC_MASTER_KEY: this store has data keys but no master key');
    const wrong = svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: otherKey }, 'audit', 'verify');
    expect(wrong.status).toBe(78);
    expect(wrong.stderr).toContain("SVC_MASTER_KEY: the master key does not open this store's data keys");
    expect(wrong.stderr).not.toContain(RAW_CRYPTO);
    const keys = count(join(dir, 'svc.db'), 'data_keys');
    const unknown = svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: sourceKey }, 'audit', 'verify', '--tenant', 'no-such-tenant');
    expect(unknown).toEqual({ status: 1, stdout: 'svc: tenant no-such-tenant has no audit events: check the id\n', stderr: '' });
    expect(count(join(dir, 'svc.db'), 'data_keys')).toBe(keys);
    expect(svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: sourceKey }, 'audit', 'verify').status).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('svc keys rotate names a wrong current key in words, and refuses a data dir without a store', () => {
    const dir = restored();
    const next = Buffer.alloc(32, 4).toString('base64');
    const wrong = svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: otherKey, SVC_NEW_MASTER_KEY: next }, 'keys', 'rotate');
    expect(wrong.status).toBe(78);
    expect(wrong.stderr).toContain("SVC_MASTER_KEY: the master key does not open this store's data keys");
    expect(wrong.stderr).not.toContain(RAW_CRYPTO);
    const noKey = svc({ SVC_DATA_DIR: dir, SVC_NEW_MASTER_KEY: next }, 'keys', 'rotate');
    expect(noKey.status).toBe(78);
    expect(existsSync(join(dir, 'master.key'))).toBe(false);

    const missing = aDir('missing');
    const none = svc({ SVC_DATA_DIR: missing, SVC_NEW_MASTER_KEY: next }, 'keys', 'rotate');
    expect(none).toEqual({ status: 1, stdout: '', stderr: `svc: there is no store to rotate: ${join(missing, 'svc.db')} does not exist (check SVC_DATA_DIR)\n` });
    expect(existsSync(missing)).toBe(false);
  });

  it('svc keys rotate cut short (some data keys under each master key) is run again with the same new key and finishes', async () => {
    const dir = aDir('rotation');
    expect(svc({ SVC_DATA_DIR: dir }, 'tenants', 'create', '--name', 'One', '--owner-email', 'one@acme.test').status).toBe(0);
    expect(svc({ SVC_DATA_DIR: dir }, 'tenants', 'create', '--name', 'Two', '--owner-email', 'two@acme.test').status).toBe(0);
    const old = Buffer.from(readFileSync(join(dir, 'master.key'), 'utf8').trim(), 'base64');
    const next = Buffer.alloc(32, 9);
    // What a kill in the middle leaves: the first data key re-wrapped under the new master key, the other not yet.
    const store = openSqliteStore({ file: join(dir, 'svc.db'), writerThread: false });
    let replaced = 0;
    const cutShort: DataKeyRepository = {
      all: () => store.dataKeys.all(),
      find: (tenantId) => store.dataKeys.find(tenantId),
      createIfAbsent: (key) => store.dataKeys.createIfAbsent(key),
      replace: async (key) => {
        if (replaced++ === 1) throw new Error('killed');
        return store.dataKeys.replace(key);
      },
    };
    const keyring = new Keyring({ dataKeys: cutShort, random: new CryptoRandomSource(), clock: new SystemClock(), masterKey: old });
    await expect(keyring.rewrap(next)).rejects.toThrow('killed');
    await store.close();

    // Neither key opens the store alone; the refusal says what to do.
    const served = svc({ SVC_DATA_DIR: dir }, 'audit', 'verify');
    expect(served.status).toBe(78);
    expect(served.stderr).toContain('run it again with the same SVC_NEW_MASTER_KEY');
    expect(svc({ SVC_DATA_DIR: dir, SVC_MASTER_KEY: next.toString('base64') }, 'audit', 'verify').status).toBe(78);

    const again = svc({ SVC_DATA_DIR: dir, SVC_NEW_MASTER_KEY: next.toString('base64') }, 'keys', 'rotate');
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('re-wrapped 2 tenant data key(s)');
    expect(readFileSync(join(dir, 'master.key'), 'utf8').trim()).toBe(next.toString('base64'));
    const verified = svc({ SVC_DATA_DIR: dir }, 'audit', 'verify');
    expect(verified.status).toBe(0);
    expect(verified.stdout.match(/: ok,/g)).toHaveLength(2);
  });

  it('a first start that cannot listen creates nothing: no store, no key, no banner with a key that would be lost', async () => {
    const taken = await new Promise<Server>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
    try {
      const port = String((taken.address() as { port: number }).port);
      const dir = aDir('fresh');
      const inUse = svc({ SVC_DATA_DIR: dir, SVC_HOST: '127.0.0.1', SVC_PORT: port }, 'serve');
      expect(inUse.status).toBe(1);
      expect(inUse.stderr).toBe(`svc: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); set SVC_PORT to a free port or stop the other server\n`);
      expect(inUse.stdout).not.toContain('management key');
      expect(existsSync(dir)).toBe(false);
      // An address this machine does not have (TEST-NET-1) is a configuration error.
      const elsewhere = svc({ SVC_DATA_DIR: dir, SVC_HOST: '192.0.2.1', SVC_PORT: '0' }, 'serve');
      expect(elsewhere.status).toBe(78);
      expect(elsewhere.stderr).toBe("svc: invalid configuration: SVC_HOST: '192.0.2.1' is not an address of this machine (EADDRNOTAVAIL)\n");
      expect(existsSync(dir)).toBe(false);
    } finally {
      taken.close();
    }
  });
});
