import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Actor, Authenticate, CreateApplicationKey, CryptoRandomSource, DeleteApplicationKey, SystemClock, UuidGenerator } from '@svc/core';
import { openSqliteStore, type SqliteStore } from '@svc/sqlite';
import { BIN, bannerKey, killServed, type Served, serveBin } from './served-bin';


/**
 * Two processes on one SQLite file: `svc serve`, and this test process with the file open as `svc tenants create`
 * opens it (not exclusively). Each remembers the key look-ups it made; a key revoked by either must be refused by
 * the other on its very next look-up.
 */
describe('application keys across processes sharing one SQLite file', () => {
  let dataDir: string;
  let served: Served;
  let store: SqliteStore;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
  });

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-keys-process-'));
    served = await serveBin({ SVC_DATA_DIR: dataDir });
    store = openSqliteStore({ file: join(dataDir, 'svc.db'), writerThread: false });
  });

  afterEach(async () => {
    await store.close();
    killServed();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${served.url}${path}`, { method, headers: { 'SVC-API-KEY': key } });
    return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>) };
  };

  it('refuses a key at once in one process after the other revoked it, both ways, and the other keys keep working', async () => {
    const bootstrap = bannerKey(served.output());
    const created = await fetch(`${served.url}/applications`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': bootstrap, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'rotating', type: 'management', permissions: ['application:read', 'application:update'] }),
    });
    const app = (await created.json()) as { id: string; key: string };
    const second = (await call('POST', `/applications/${app.id}/keys`, bootstrap)).body as { id: string; key: string };
    const [original] = ((await call('GET', `/applications/${app.id}/keys`, bootstrap)).body as unknown as Array<{ id: string }>).filter((k) => k.id !== second.id);

    // Both processes have looked up (and so remember) both keys.
    const authenticate = new Authenticate({ applications: store.applications, sessions: store.sessions, clock: new SystemClock() });
    for (const key of [app.key, second.key]) {
      expect((await call('GET', '/applications/key', key)).status).toBe(200);
      expect((await authenticate.execute(key)).applicationId).toBe(app.id);
    }

    // Revoked by the server: this process refuses it on its next look-up.
    expect((await call('DELETE', `/applications/${app.id}/keys/${original!.id}`, bootstrap)).status).toBe(204);
    await expect(authenticate.execute(app.key)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await authenticate.execute(second.key)).applicationId).toBe(app.id);

    // A key added here works on the server at once; revoked here, the server refuses it on its next request.
    const deps = { applications: store.applications, clock: new SystemClock(), ids: new UuidGenerator(), random: new CryptoRandomSource() };
    const actor: Actor = await authenticate.execute(second.key);
    const third = await new CreateApplicationKey(deps).execute(actor, app.id);
    expect((await call('GET', '/applications/key', third.plaintext)).status).toBe(200);
    await new DeleteApplicationKey(deps).execute(actor, app.id, second.id);
    expect((await call('GET', '/applications/key', second.key)).status).toBe(401);
    expect((await call('GET', '/applications/key', third.plaintext)).body.id).toBe(app.id);

    // Regenerated on the server: every earlier key fails here at once.
    const regenerated = (await call('POST', `/applications/${app.id}/regenerate`, bootstrap)).body as { key: string };
    await expect(authenticate.execute(third.plaintext)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await authenticate.execute(regenerated.key)).applicationId).toBe(app.id);
  }, 60_000);
});
