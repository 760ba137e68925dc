import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, bannerKey, killServed, type Reply, send, type Served, serveBin } from './served-bin';

/**
 * `svc serve` killed with SIGKILL in the middle of a write load, then started again: every token a client was answered
 * 2xx for is there, as the answer left it. The SQLite writer commits up to two batches at once on its thread while a
 * checkpointer thread copies the WAL; a 2xx must still mean the write is durable, and one client's create, update and
 * delete must land in order and be seen at once by the next read (a GET, or a search on a reader thread).
 */




/**
 * What a token of the ordering clients must look like after the crash: each step acknowledged moves it on (created
 * with step 0, updated to step 1, deleted); a step sent but not answered may or may not have happened.
 */
interface Walk {
  readonly id: string;
  acked: number;
  sent: number;
}
const STATES = ['absent', 'step 0', 'step 1', 'absent'] as const;

interface Load {
  /** Ids of tokens whose create was answered 2xx and that nobody deletes. */
  readonly kept: string[];
  readonly walks: Walk[];
  /** Anything a live server answered that it should not have: a lost read, a write out of order, a 5xx. */
  readonly wrong: string[];
}

/** Clients writing until `stopped()`: POST /tokens, POST /tokenize of 20 values, and create → search → PATCH → DELETE → GET walks. */
async function drive(url: string, key: string, stopped: () => boolean, round: number, load: Load): Promise<Load> {
  const client = async (_client: number, work: (agent: Agent, i: number) => Promise<void>): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; !stopped(); i++) await work(agent, i);
    } catch {
      // The server was killed under this request: it was never answered, so nothing is expected of it.
    } finally {
      agent.destroy();
    }
  };
  const expect2xx = (what: string, reply: Reply): boolean => {
    if (reply.status >= 200 && reply.status < 300) return true;
    load.wrong.push(`${what}: ${reply.status} ${reply.body.slice(0, 200)}`);
    return false;
  };
  await Promise.all([
    ...[0, 1, 2].map((n) =>
      client(n, async (agent, i) => {
        const reply = await send(url, agent, 'POST', '/tokens', key, { type: 'token', data: `round ${round} client ${n} token ${i}` });
        if (expect2xx('POST /tokens', reply)) load.kept.push((JSON.parse(reply.body) as { id: string }).id);
      }),
    ),
    ...[3, 4].map((n) =>
      client(n, async (agent, i) => {
        const values = Array.from({ length: 20 }, (_, j) => `round ${round} client ${n} call ${i} value ${j}`);
        const reply = await send(url, agent, 'POST', '/tokenize', key, values);
        if (expect2xx('POST /tokenize', reply)) load.kept.push(...(JSON.parse(reply.body) as string[]));
      }),
    ),
    ...[5, 6].map((n) =>
      client(n, async (agent, i) => {
        const tag = `r${round}c${n}i${i}`;
        const created = await send(url, agent, 'POST', '/tokens', key, { type: 'token', data: tag, metadata: { tag, step: '0' } });
        if (!expect2xx('walk create', created)) return;
        const walk: Walk = { id: (JSON.parse(created.body) as { id: string }).id, acked: 1, sent: 1 };
        load.walks.push(walk);
        const found = await send(url, agent, 'POST', '/tokens/search', key, { query: `metadata.tag:${tag}` });
        if ((JSON.parse(found.body) as { pagination?: { total_items: number } }).pagination?.total_items !== 1) load.wrong.push(`search after create: ${found.body.slice(0, 200)}`);
        walk.sent = 2;
        const updated = await send(url, agent, 'PATCH', `/tokens/${walk.id}`, key, { metadata: { tag, step: '1' } }, 'application/merge-patch+json');
        if (!expect2xx('walk update', updated)) return;
        walk.acked = 2;
        walk.sent = 3;
        if (!expect2xx('walk delete', await send(url, agent, 'DELETE', `/tokens/${walk.id}`, key))) return;
        walk.acked = 3;
        const gone = await send(url, agent, 'GET', `/tokens/${walk.id}`, key);
        if (gone.status !== 404) load.wrong.push(`GET after DELETE: ${gone.status}`);
      }),
    ),
  ]);
  return load;
}

/** What the token of `id` is now: absent, or the step its metadata holds. */
async function stateOf(url: string, agent: Agent, key: string, id: string): Promise<string> {
  const reply = await send(url, agent, 'GET', `/tokens/${id}`, key);
  if (reply.status === 404) return 'absent';
  if (reply.status !== 200) return `status ${reply.status}`;
  return `step ${(JSON.parse(reply.body) as { metadata: { step?: string } }).metadata.step ?? '?'}`;
}

describe('svc serve killed under write load', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
  });
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'))));
  afterEach(() => {
    killServed();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write, in its order, across three SIGKILLs', async () => {
    let served: Served = await serveBin({ SVC_DATA_DIR: dataDir });
    const created = await send(served.url, false, 'POST', '/applications', bannerKey(served.output()), {
      name: 'load',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'],
    });
    const key = (JSON.parse(created.body) as { key: string }).key;
    const kept: string[] = [];

    for (let round = 0; round < 3; round++) {
      let killed = false;
      const progress: Load = { kept: [], walks: [], wrong: [] };
      const running = drive(served.url, key, () => killed, round, progress);
      // Long enough for both batches in flight and a few checkpoints; the kill lands at a different point each round.
      await new Promise((resolve) => setTimeout(resolve, 300 + round * 150));
      // On a loaded machine the first answers come later: the kill also waits (up to 10 s) for enough of them.
      for (let i = 0; i < 200 && !(progress.kept.length > 20 && progress.walks.some((w) => w.acked === 3)); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      served.child.kill('SIGKILL');
      killed = true;
      await served.exited;
      const load = await running;
      expect(load.wrong).toEqual([]);
      expect(load.kept.length).toBeGreaterThan(20);
      expect(load.walks.filter((w) => w.acked === 3).length).toBeGreaterThan(0);
      kept.push(...load.kept);

      served = await serveBin({ SVC_DATA_DIR: dataDir });
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      try {
        const lost = (await Promise.all(load.kept.map(async (id) => ((await stateOf(served.url, agent, key, id)) === 'absent' ? id : undefined)))).filter(Boolean);
        expect({ round, lost }).toEqual({ round, lost: [] });
        for (const walk of load.walks) {
          const allowed = STATES.slice(walk.acked, walk.sent + 1);
          const state = await stateOf(served.url, agent, key, walk.id);
          expect({ round, walk, state, ok: (allowed as readonly string[]).includes(state) }).toEqual({ round, walk, state, ok: true });
        }
      } finally {
        agent.destroy();
      }
      // Nothing acknowledged in an earlier round went either: every kept token is counted.
      const listed = await send(served.url, false, 'GET', '/tokens?size=1', key);
      expect((JSON.parse(listed.body) as { pagination: { total_items: number } }).pagination.total_items).toBeGreaterThanOrEqual(kept.length);
    }
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
  }, 60_000);
});
