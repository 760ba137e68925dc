import { createServer, request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Connections } from '../src/http/connections';
import { Logger } from '../src/logger';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('connections that never send a request', () => {
  it('are closed once silent for a while, while requests, slow ones included, and keep-alive connections are not', async () => {
    const connections = new Connections(createServer({ requireHostHeader: false }), new Logger('silent'), 200);
    connections.serve((req, res) => {
      const wait = req.url === '/slow' ? 600 : 0;
      setTimeout(() => res.end('ok'), wait);
    });
    await new Promise<void>((resolve) => connections.server.listen(0, '127.0.0.1', resolve));
    const { port } = connections.server.address() as AddressInfo;

    // A socket that sends nothing: closed by the server (it held a place under SVC_MAX_CONNECTIONS for good).
    const silent = connect(port, '127.0.0.1');
    const closed = new Promise<number>((resolve) => {
      const started = Date.now();
      silent.on('close', () => resolve(Date.now() - started));
      silent.on('error', () => undefined);
    });
    expect(await Promise.race([closed, pause(3_000).then(() => -1)])).toBeGreaterThanOrEqual(150);

    // A request slower than the silence allowed is answered; its keep-alive connection stays open after it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ body: string; socket: unknown }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ body, socket: req.socket }));
        });
        req.on('error', reject);
        req.setTimeout(3_000, () => req.destroy(new Error('no answer in 3 s')));
        req.end();
      });
    const first = await get('/slow');
    expect(first.body).toBe('ok');
    await pause(500);
    const second = await get('/');
    expect(second.body).toBe('ok');
    expect(second.socket).toBe(first.socket);
    agent.destroy();
    connections.destroyAll();
    await new Promise((resolve) => connections.server.close(resolve));
  });
});
