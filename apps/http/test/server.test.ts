import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config';
import { startServer } from '../src/server';

const listening = (): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });

describe('startServer', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'svc-start-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('releases the data directory when it cannot start, so the next start works', async () => {
    const taken = await listening();
    const port = (taken.address() as { port: number }).port;
    const env = { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'error', SVC_HOST: '127.0.0.1' };
    const quiet = (): void => undefined;
    await expect(startServer(loadConfig({ ...env, SVC_PORT: String(port) }), {}, quiet)).rejects.toThrow(/EADDRINUSE/);
    taken.close();

    const server = await startServer(loadConfig({ ...env, SVC_PORT: '0' }), {}, quiet);
    expect((await fetch(`${server.url}/applications/key`)).status).toBe(401);
    await server.close();
  });
});
