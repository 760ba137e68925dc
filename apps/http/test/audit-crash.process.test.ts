import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, bannerKey, killServed, send, type Served, serveBin } from './served-bin';

/**
 * ADR 4 under a crash: `svc serve` on SQLite is killed with SIGKILL in the middle of a token write load. Every token a
 * client was answered 201 for must have its `create` audit event and a webhook delivery (written in the token's own
 * transaction, so they cannot be lost apart from it), and after a restart the dispatcher delivers every one still
 * pending to the receiver, at least once.
 */




/** A webhook receiver answering 200, keeping the token id of every token.created it was sent. */
async function receiver(): Promise<{ server: Server; port: number; tokenIds: Set<string>; posts: () => number }> {
  const tokenIds = new Set<string>();
  let posts = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      posts++;
      const event = (JSON.parse(body) as { event: { type: string; data: { id: string } } }).event;
      if (event.type === 'token.created') tokenIds.add(event.data.id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, tokenIds, posts: () => posts };
}

/** Every item of a paged listing. */
async function listAll<T>(url: string, key: string, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const reply = await send(url, false, 'GET', `${path}${path.includes('?') ? '&' : '?'}size=50&page=${page}`, key);
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.body.slice(0, 200)}`);
    const body = JSON.parse(reply.body) as { data: T[]; pagination: { total_pages: number } };
    items.push(...body.data);
    if (page >= body.pagination.total_pages) return items;
  }
}

describe('svc serve killed under token load, with the audit log and a webhook', () => {
  let dataDir: string;
  let rx: Awaited<ReturnType<typeof receiver>>;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
  });
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-audit-crash-'));
    rx = await receiver();
  });
  afterEach(async () => {
    killServed();
    rx.server.closeAllConnections();
    await new Promise((resolve) => rx.server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the create event and a delivery of every acknowledged token, and delivers them all after the restart', async () => {
    const env = { SVC_DATA_DIR: dataDir, SVC_OUTBOUND_ALLOW: `127.0.0.1:${rx.port}` };
    let served: Served = await serveBin(env);
    const management = bannerKey(served.output());
    const hook = await send(served.url, false, 'POST', '/webhooks', management, { name: 'crash', url: `http://127.0.0.1:${rx.port}/in`, events: ['token.created'] });
    expect(hook.status).toBe(201);
    const webhookId = (JSON.parse(hook.body) as { id: string }).id;
    const app = await send(served.url, false, 'POST', '/applications', management, { name: 'load', type: 'private', permissions: ['token:create'] });
    const key = (JSON.parse(app.body) as { key: string }).key;

    const acked: string[] = [];
    const wrong: string[] = [];
    let killed = false;
    const client = async (n: number): Promise<void> => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; !killed; i++) {
          const reply = await send(served.url, agent, 'POST', '/tokens', key, { type: 'token', data: `client ${n} token ${i}`, metadata: { n: String(n) } });
          if (reply.status === 201) acked.push((JSON.parse(reply.body) as { id: string }).id);
          else wrong.push(`${reply.status} ${reply.body.slice(0, 200)}`);
        }
      } catch {
        // The server was killed under this request: never answered, so nothing is expected of it.
      } finally {
        agent.destroy();
      }
    };
    const load = Promise.all([0, 1, 2, 3, 4, 5].map(client));
    // Long enough for the dispatcher (every 250 ms) and the chainer to have run a few times under the load.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    served.child.kill('SIGKILL');
    killed = true;
    await served.exited;
    await load;
    expect(wrong).toEqual([]);
    expect(acked.length).toBeGreaterThan(50);
    const deliveredBeforeKill = rx.tokenIds.size;

    // Restarted: the same data, the dispatcher running again.
    served = await serveBin(env);
    const logged = new Set(
      (await listAll<{ entity_id?: string; operation: string; outcome?: string }>(served.url, management, '/logs?entity_type=token'))
        .filter((e) => e.operation === 'create')
        .map((e) => e.entity_id),
    );
    const withoutEvent = acked.filter((id) => !logged.has(id));
    expect({ acked: acked.length, withoutEvent }).toEqual({ acked: acked.length, withoutEvent: [] });

    const listed = await listAll<{ status: string; event: { data: { id: string } } }>(served.url, management, `/webhooks/${webhookId}/deliveries`);
    const queued = new Map(listed.map((d) => [d.event.data.id, d.status]));
    const withoutDelivery = acked.filter((id) => !['pending', 'delivered'].includes(queued.get(id) ?? 'none'));
    expect({ acked: acked.length, withoutDelivery }).toEqual({ acked: acked.length, withoutDelivery: [] });

    // The dispatcher of the new process sends what is still pending at once; what the dead one had leased (taken but
    // not yet recorded) waits for its lease to run out, a minute.
    const deadline = Date.now() + 75_000;
    const missing = () => acked.filter((id) => !rx.tokenIds.has(id));
    while (missing().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(missing()).toEqual([]);
    // The dispatcher kept delivering during the load, not only after it.
    expect(deliveredBeforeKill).toBeGreaterThan(0);
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
  }, 150_000);
});
