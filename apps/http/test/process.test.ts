import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@svc/sqlite';
import { BIN, killServed, type Served, serveBin } from './served-bin';

/** These tests run the built `svc` command as a user would: `npm test` builds before it tests. */
const serve = (env: Record<string, string>): Promise<Served> => serveBin(env);

async function stop(served: Served): Promise<number | null> {
  served.child.kill('SIGTERM');
  return (await served.exited).code;
}

async function get(url: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: { 'SVC-API-KEY': key } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const bannerKey = (output: string): string | undefined => /management key \(shown once, store it now\): (\S+)/.exec(output)?.[1];

describe('the svc command', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
  });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-process-'));
  });

  afterEach(() => {
    killServed();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds a SIGTERM that comes during the start, then shuts down cleanly: the first start still shows its key', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { PATH: process.env.PATH, SVC_PORT: '0', SVC_LOG_LEVEL: 'info', SVC_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let signalled = false;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      // The banner comes before the server says it listens: the signal lands inside the start.
      if (!signalled && out.includes('first start')) {
        signalled = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    expect(await exited).toEqual({ code: 0, signal: null });
    const key = bannerKey(out);
    expect(key).toMatch(/^key_mgt_/);
    expect(out).toContain('"msg":"shut down"');
    // The store it made is whole: the key printed works on the next start.
    const again = await serve({ SVC_DATA_DIR: dataDir });
    expect((await get(`${again.url}/applications/key`, key!)).status).toBe(200);
    expect(await stop(again)).toBe(0);
  });

  it('finishes a first start killed after it claimed the bootstrap: the next start makes "Default" and shows its key', async () => {
    // The state such a kill leaves: the store claimed for the bootstrap, and no tenant or key made yet.
    const store = openSqliteStore({ file: join(dataDir, 'svc.db'), writerThread: false });
    expect(await store.system.claimOnce('bootstrap')).toBe(true);
    await store.close();
    const next = await serve({ SVC_DATA_DIR: dataDir });
    const key = bannerKey(next.output());
    expect(key).toMatch(/^key_mgt_/);
    expect((await get(`${next.url}/applications/key`, key!)).status).toBe(200);
    expect(await stop(next)).toBe(0);
    // Done now: a later start makes nothing and shows no key.
    const later = await serve({ SVC_DATA_DIR: dataDir });
    expect(bannerKey(later.output())).toBeUndefined();
    expect((await get(`${later.url}/applications/key`, key!)).status).toBe(200);
    expect(await stop(later)).toBe(0);
  }, 60_000);

  it('comes up with its preset management key working after first starts killed at any moment (kill -9)', async () => {
    const preset = 'key_mgt_killed-first-start-0000000000000000001';
    for (const delayMs of [0, 2, 5, 10, 20, 40]) {
      const dir = mkdtempSync(join(tmpdir(), 'svc-killed-'));
      try {
        const child = spawn(process.execPath, [BIN, 'serve'], {
          env: { PATH: process.env.PATH, SVC_PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_DATA_DIR: dir, SVC_BOOTSTRAP_API_KEY: preset },
          stdio: 'ignore',
        });
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // The master key file is written just before the store is bootstrapped.
        for (let i = 0; i < 2_000 && !existsSync(join(dir, 'master.key')); i++) await new Promise((r) => setTimeout(r, 2));
        await new Promise((r) => setTimeout(r, delayMs));
        child.kill('SIGKILL');
        await exited;
        const again = await serve({ SVC_DATA_DIR: dir, SVC_BOOTSTRAP_API_KEY: preset });
        expect((await get(`${again.url}/applications/key`, preset)).status).toBe(200);
        expect(await stop(again)).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }, 120_000);

  it('stays up under bodies nested half a million levels deep, with and without an idempotency key', async () => {
    const served = await serve({ SVC_DATA_DIR: dataDir });
    const key = bannerKey(served.output())!;
    // Within the 1 MiB body limit; with a key, the body was fingerprinted before its depth was checked, and
    // JSON.stringify's stack overflow in body-parser's callback ended the process.
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    for (const headers of [{}, { 'SVC-IDEMPOTENCY-KEY': 'deep' }, { 'BT-IDEMPOTENCY-KEY': 'deep' }] as Array<Record<string, string>>) {
      for (const path of ['/applications', '/tenants/self/invitations', '/webhooks']) {
        const res = await fetch(`${served.url}${path}`, { method: 'POST', headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json', ...headers }, body: deep });
        expect([path, headers, res.status, res.headers.get('content-type')]).toEqual([path, headers, 400, 'application/problem+json; charset=utf-8']);
        expect(((await res.json()) as { errors: Record<string, string[]> }).errors).toEqual({ [`[0]${'[0]'.repeat(31)}`]: ['Values may nest at most 32 levels deep.'] });
      }
    }
    expect((await get(`${served.url}/applications/key`, key)).status).toBe(200);
    expect(await stop(served)).toBe(0);
  }, 60_000);

  it('bootstraps once, keeps data across restarts, and creates tenants while serving', async () => {
    const first = await serve({ SVC_DATA_DIR: dataDir });
    const key = bannerKey(first.output());
    expect(key).toMatch(/^key_mgt_/);
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    for (const file of ['svc.db', 'svc.db-wal']) expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    const created = await fetch(`${first.url}/applications`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': key!, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Kept', type: 'private', permissions: ['token:read'] }),
    });
    expect(created.status).toBe(201);
    const appId = ((await created.json()) as { id: string }).id;

    const cli = spawnSync(process.execPath, [BIN, 'tenants', 'create', '--name', 'Second', '--owner-email', 'Boss@Example.com'], {
      env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    expect(cli.status).toBe(0);
    const printed = JSON.parse(cli.stdout) as {
      tenant: { id: string; name: string };
      owner: { role: string; user: { email: string } };
      application: { id: string; key: string; type: string };
    };
    expect(printed.tenant.name).toBe('Second');
    expect(printed.owner).toMatchObject({ role: 'OWNER', user: { email: 'boss@example.com' } });
    expect(printed.application.type).toBe('management');
    const theirs = await get(`${first.url}/applications/key`, printed.application.key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.tenant_id).toBe(printed.tenant.id);
    expect(first.output()).not.toContain(printed.application.key);

    expect(await stop(first)).toBe(0);

    const second = await serve({ SVC_DATA_DIR: dataDir });
    expect(bannerKey(second.output())).toBeUndefined();
    const kept = await get(`${second.url}/applications/${appId}`, key!);
    expect(kept.status).toBe(200);
    expect(kept.body.name).toBe('Kept');
    expect(second.output()).not.toContain(key!);
    expect(await stop(second)).toBe(0);
  }, 60_000);

  it('serves one process per SQLite data dir (key rotation waits for it), and a regenerated, changed or deleted key takes effect at once', async () => {
    const served = await serve({ SVC_DATA_DIR: dataDir });
    try {
      const key = bannerKey(served.output())!;
      const second = spawnSync(process.execPath, [BIN, 'serve'], {
        env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, SVC_PORT: '0' },
        encoding: 'utf8',
        timeout: 15_000,
      });
      expect(second.status).not.toBe(0);
      expect(second.stderr).toContain('another svc process (serve or keys rotate) is using');
      const rotate = spawnSync(process.execPath, [BIN, 'keys', 'rotate'], {
        env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, SVC_NEW_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') },
        encoding: 'utf8',
      });
      expect(rotate.status).not.toBe(0);
      expect(rotate.stderr).toContain('another svc process (serve or keys rotate) is using');

      const send = (method: string, path: string, body?: object) =>
        fetch(`${served.url}${path}`, {
          method,
          headers: { 'SVC-API-KEY': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
          body: body && JSON.stringify(body),
        });
      const listWith = async (appKey: string) => (await fetch(`${served.url}/tokens`, { headers: { 'SVC-API-KEY': appKey } })).status;
      const created = (await (await send('POST', '/applications', { name: 'r', type: 'private', permissions: ['token:read'] })).json()) as {
        id: string;
        key: string;
      };
      expect(await listWith(created.key)).toBe(200);

      expect((await send('PUT', `/applications/${created.id}`, { name: 'r', permissions: ['token:create'] })).status).toBe(200);
      expect(await listWith(created.key)).toBe(403);

      const regenerated = (await (await send('POST', `/applications/${created.id}/regenerate`)).json()) as { key: string };
      expect(await listWith(created.key)).toBe(401);
      expect(await listWith(regenerated.key)).toBe(403);

      expect((await send('DELETE', `/applications/${created.id}`)).status).toBe(204);
      expect(await listWith(regenerated.key)).toBe(401);
    } finally {
      expect(await stop(served)).toBe(0);
    }
    expect(readdirSync(dataDir).sort()).toEqual(['master.key', 'svc.db', 'svc.db.lock']);
  }, 60_000);

  it('installs SVC_BOOTSTRAP_API_KEY as the bootstrap key without printing it', async () => {
    const preset = 'key_mgt_operator-chosen-bootstrap-key-0001';
    const served = await serve({ SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_API_KEY: preset, SVC_OWNER_EMAIL: 'ops@example.com' });
    expect(served.output()).toContain('SVC_BOOTSTRAP_API_KEY');
    expect(served.output()).not.toContain(preset);
    const me = await get(`${served.url}/applications/key`, preset);
    expect(me.status).toBe(200);
    expect(me.body.permissions).toEqual(expect.arrayContaining(['application:create', 'tenant:member:read']));
    expect(await stop(served)).toBe(0);
  }, 30_000);

  it.each([
    ['SVC_PORT', 'eighty'],
    ['SVC_STORE', 'postgres'],
    ['SVC_MASTER_KEY', 'too-short'],
    ['SVC_LOG_LEVEL', 'loud'],
    ['SVC_BODY_LIMIT', 'huge'],
    ['SVC_CVC_RETENTION', 'an hour'],
    ['MONGODB_URI', 'http://db.example.com'],
    // A session key's prefix: authentication would look it up among sessions, so it could never authenticate.
    ['SVC_BOOTSTRAP_API_KEY', 'key_ses_operator-chosen-bootstrap-key'],
    // Found accepted before: a host that is no address (checked only when listening, after the first-start
    // bootstrap had printed its key), a mail URL nodemailer cannot take, a sweeper that would spin, a retention below
    // the documented 1s, link bases that are not http(s), a sender that is no address.
    ['SVC_HOST', '999.1.1.1'],
    ['SVC_HOST', 'not_a_host'],
    ['SVC_SMTP_URL', 'http://x'],
    ['SVC_SWEEP_INTERVAL', '0'],
    ['SVC_SWEEP_INTERVAL', '1ms'],
    ['SVC_LOG_RETENTION', '500ms'],
    ['SVC_PUBLIC_URL', 'javascript:alert(1)'],
    ['SVC_PUBLIC_URL', 'ftp://x'],
    ['SVC_MAIL_FROM', 'notanemail'],
  ])('refuses to start with a wrong %s (%s), names it, exits 78 and leaves the data dir empty', (variable, value) => {
    const run = spawnSync(process.execPath, [BIN, 'serve'], {
      env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, [variable]: value },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status).toBe(78);
    expect(run.stderr).toMatch(new RegExp(`^svc: invalid configuration: ${variable}: .+\n$`));
    expect(run.stdout).toBe('');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('needs MONGODB_URI and SVC_MASTER_KEY for the mongo store, and names them', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [BIN, 'serve'], { env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, ...env }, encoding: 'utf8', timeout: 15_000 });
    const noUri = run({ SVC_STORE: 'mongo' });
    expect(noUri.status).not.toBe(0);
    expect(noUri.stderr).toContain('MONGODB_URI');
    const noKey = run({ MONGODB_URI: 'mongodb://127.0.0.1:1/svc' });
    expect(noKey.status).not.toBe(0);
    expect(noKey.stderr).toContain('SVC_MASTER_KEY');
  });

  it('rotates the master key without touching tokens', async () => {
    const first = await serve({ SVC_DATA_DIR: dataDir });
    const key = bannerKey(first.output())!;
    const app = await fetch(`${first.url}/applications`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'b', type: 'private', permissions: ['token:create', 'token:read', 'token:use'] }),
    });
    const backend = ((await app.json()) as { key: string }).key;
    const token = await fetch(`${first.url}/tokens`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': backend, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'card_number', data: '4242424242424242' }),
    });
    const id = ((await token.json()) as { id: string }).id;
    await fetch(`${first.url}/tokens`, { method: 'POST', headers: { 'SVC-API-KEY': backend, 'Content-Type': 'application/json' }, body: '{"type":"token","data":"newer"}' });
    const cursor = (await get(`${first.url}/v2/tokens?size=1`, backend)).body.pagination as { next: string };
    expect(await stop(first)).toBe(0);
    const oldKey = readFileSync(join(dataDir, 'master.key'), 'utf8');
    const newKey = Buffer.alloc(32, 9).toString('base64');
    const rotate = spawnSync(process.execPath, [BIN, 'keys', 'rotate'], {
      env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir, SVC_NEW_MASTER_KEY: newKey },
      encoding: 'utf8',
    });
    expect(rotate.status).toBe(0);
    expect(rotate.stdout).toContain('re-wrapped 1 tenant data key');
    expect(readFileSync(join(dataDir, 'master.key'), 'utf8').trim()).toBe(newKey);
    expect(oldKey.trim()).not.toBe(newKey);
    const second = await serve({ SVC_DATA_DIR: dataDir });
    const read = await get(`${second.url}/tokens/${id}`, backend);
    expect(read.body.data).toBe('4242424242424242');
    // A cursor depends on the tenant's data key, which a rotation re-wraps but does not change: a walk carries on.
    const rest = await get(`${second.url}/v2/tokens?size=1&start=${cursor.next}`, backend);
    expect([rest.status, (rest.body.data as Array<{ id: string }>).map((t) => t.id)]).toEqual([200, [id]]);
    expect(await stop(second)).toBe(0);
  }, 60_000);

  it('explains its usage and refuses unknown commands', () => {
    const help = spawnSync(process.execPath, [BIN, 'help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('svc tenants create');
    const bad = spawnSync(process.execPath, [BIN, 'tenants', 'create', '--name', 'x'], { encoding: 'utf8', env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir } });
    expect(bad.status).toBe(2);
    const email = spawnSync(process.execPath, [BIN, 'tenants', 'create', '--name', 'x', '--owner-email', 'nope'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, SVC_DATA_DIR: dataDir },
    });
    expect(email.status).toBe(2);
    expect(email.stderr).toContain('owner_email');
  });
});
