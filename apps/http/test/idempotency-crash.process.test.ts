import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, bannerKey, killServed, send, type Served, serveBin } from './served-bin';

/**
 * `svc serve` killed with SIGKILL while clients create tokens with idempotency keys, then started again. The answer
 * of a token create is kept in the token's own transaction, so no crash separates the write from its kept answer:
 * after the restart, a key whose tokens exist replays their answer, and a key whose write never committed has no
 * tokens. Before, a kill between the commit and the kept answer left the key running with no answer: its retry ran
 * again after the takeover and made the tokens twice. A keyed token update keeps its answer with the update in the same
 * way (before, a retry of an update applied before the kill got 409 until the takeover, then applied it again).
 */

const SINGLE_CLIENTS = 12;
const BULK_CLIENTS = 4;
const BULK_SIZE = 5;
const UPDATE_CLIENTS = 12;

interface Sent {
  readonly key: string;
  readonly path: '/tokens' | '/tokenize';
  readonly body: unknown;
  /** How many tokens it makes. */
  readonly tokens: number;
  answer?: string;
}

const single = (key: string): Sent => ({ key, path: '/tokens', body: { type: 'token', data: `value ${key}`, metadata: { req: key } }, tokens: 1 });
/** New tokens, and one deduplicated to the base token: its answer is predicted before the write, and kept with it. */
const bulk = (key: string): Sent => ({
  key,
  path: '/tokenize',
  body: [...Array.from({ length: BULK_SIZE }, (_, i) => ({ type: 'token', data: `value ${key} ${i}`, metadata: { req: key } })), BASE],
  tokens: BULK_SIZE,
});
const BASE = { type: 'token', data: 'the base token', deduplicate_token: true };

describe('svc serve killed while idempotent token creates run', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
  });
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'svc-idem-crash-'))));
  afterEach(() => {
    killServed();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves every key either answered with its tokens, or without any, across two SIGKILLs', async () => {
    let served: Served = await serveBin({ SVC_DATA_DIR: dataDir });
    const apiKey = await checkoutKey(served, 'token:create', 'token:read', 'token:search');
    expect((await send(served.url, false, 'POST', '/tokens', apiKey, BASE)).status).toBe(201);

    for (let round = 0; round < 2; round++) {
      const sent: Sent[] = [];
      const wrong: string[] = [];
      let killed = false;
      const client = async (n: number, make: (key: string) => Sent): Promise<void> => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let i = 0; !killed; i++) {
            const request = make(`r${round}c${n}i${i}`);
            sent.push(request);
            const reply = await sendKeyed(served.url, agent, apiKey, request);
            if (reply.status === 201) request.answer = reply.body;
            else wrong.push(`${request.key}: ${reply.status} ${reply.body.slice(0, 200)}`);
          }
        } catch {
          // The server was killed under this request: it was never answered.
        } finally {
          agent.destroy();
        }
      };
      const running = Promise.all([
        ...Array.from({ length: SINGLE_CLIENTS }, (_, n) => client(n, single)),
        ...Array.from({ length: BULK_CLIENTS }, (_, n) => client(SINGLE_CLIENTS + n, bulk)),
      ]);
      for (let i = 0; i < 400 && sent.filter((s) => s.answer).length < 150; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      served.child.kill('SIGKILL');
      killed = true;
      await served.exited;
      await running;
      expect(wrong).toEqual([]);

      served = await serveBin({ SVC_DATA_DIR: dataDir });
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      try {
        const unanswered = sent.filter((s) => s.answer === undefined);
        expect(unanswered.length).toBeGreaterThan(0);
        const broken: string[] = [];
        for (const request of unanswered) {
          const ids = await tokensOf(served.url, agent, apiKey, request.key);
          const retry = await sendKeyed(served.url, agent, apiKey, request);
          if (ids.length === request.tokens) {
            // Committed before the kill: the retry is the answer, kept with the tokens.
            const answered = retry.status === 201 ? idsOf(retry.body, request.tokens) : [];
            if (retry.status !== 201 || JSON.stringify(answered) !== JSON.stringify(ids)) broken.push(`${request.key}: tokens ${ids.join()} retry ${retry.status} ${retry.body.slice(0, 120)}`);
          } else if (ids.length !== 0) {
            broken.push(`${request.key}: ${ids.length} of its ${request.tokens} tokens`);
          } else if (retry.status === 201) {
            // Never claimed (the kill came first): the retry is its first run, and makes its tokens once.
            const made = await tokensOf(served.url, agent, apiKey, request.key);
            if (JSON.stringify(made) !== JSON.stringify(idsOf(retry.body, request.tokens))) broken.push(`${request.key}: first run made ${made.join()}`);
          } else if (retry.status !== 409) {
            // Claimed and never committed: the dead process's claim holds the key until the takeover.
            broken.push(`${request.key}: no tokens, retry ${retry.status}`);
          }
        }
        expect({ round, broken }).toEqual({ round, broken: [] });
        // Answered keys replay their first answer.
        for (const request of sent.filter((s) => s.answer !== undefined).slice(-10)) {
          const retry = await sendKeyed(served.url, agent, apiKey, request);
          expect({ key: request.key, status: retry.status, body: retry.body }).toEqual({ key: request.key, status: 201, body: request.answer });
        }
      } finally {
        agent.destroy();
      }
    }
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
  }, 90_000);

  it('leaves every keyed token update either answered, or not applied, across two SIGKILLs', async () => {
    let served: Served = await serveBin({ SVC_DATA_DIR: dataDir });
    const apiKey = await checkoutKey(served, 'token:create', 'token:read', 'token:update');
    // One token per client: each client's updates run one after another, so at a kill at most one of them is unanswered.
    const tokens: string[] = [];
    for (let n = 0; n < UPDATE_CLIENTS; n++) {
      tokens.push((JSON.parse((await send(served.url, false, 'POST', '/tokens', apiKey, { type: 'token', data: `client ${n}` })).body) as { id: string }).id);
    }
    const patch = (url: string, agent: Agent | false, n: number, key: string) =>
      send(url, agent, 'PATCH', `/tokens/${tokens[n]}`, apiKey, { metadata: { last: key } }, 'application/merge-patch+json', { 'SVC-IDEMPOTENCY-KEY': key });

    for (let round = 0; round < 2; round++) {
      const inFlight = new Map<number, string>();
      const wrong: string[] = [];
      let answered = 0;
      let killed = false;
      const client = async (n: number): Promise<void> => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let i = 0; !killed; i++) {
            const key = `u${round}c${n}i${i}`;
            inFlight.set(n, key);
            const reply = await patch(served.url, agent, n, key);
            if (reply.status !== 200) wrong.push(`${key}: ${reply.status} ${reply.body.slice(0, 200)}`);
            inFlight.delete(n);
            answered++;
          }
        } catch {
          // The server was killed under this request: it was never answered.
        } finally {
          agent.destroy();
        }
      };
      const running = Promise.all(Array.from({ length: UPDATE_CLIENTS }, (_, n) => client(n)));
      for (let i = 0; i < 400 && answered < 150; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      served.child.kill('SIGKILL');
      killed = true;
      await served.exited;
      await running;
      expect(wrong).toEqual([]);
      expect(inFlight.size).toBeGreaterThan(0);

      served = await serveBin({ SVC_DATA_DIR: dataDir });
      const broken: string[] = [];
      for (const [n, key] of inFlight) {
        const before = JSON.parse((await send(served.url, false, 'GET', `/tokens/${tokens[n]}`, apiKey)).body) as { metadata: Record<string, string>; modified_at: string };
        const retry = await patch(served.url, false, n, key);
        const after = JSON.parse((await send(served.url, false, 'GET', `/tokens/${tokens[n]}`, apiKey)).body) as { metadata: Record<string, string>; modified_at: string };
        if (before.metadata.last === key) {
          // Applied before the kill: the retry replays the answer kept with it, and changes nothing.
          const replayed = retry.status === 200 ? (JSON.parse(retry.body) as { metadata: Record<string, string>; modified_at: string }) : undefined;
          if (replayed?.metadata.last !== key || replayed.modified_at !== before.modified_at || after.modified_at !== before.modified_at) {
            broken.push(`${key}: applied, retry ${retry.status} ${retry.body.slice(0, 160)}`);
          }
        } else if (retry.status === 200) {
          // Never claimed (the kill came first): the retry is its first run.
          if (after.metadata.last !== key) broken.push(`${key}: first run left ${after.metadata.last}`);
        } else if (retry.status !== 409) {
          // Claimed and never applied: the dead process's claim holds the key until the takeover.
          broken.push(`${key}: not applied, retry ${retry.status}`);
        }
      }
      expect({ round, broken }).toEqual({ round, broken: [] });
    }
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
  }, 90_000);
});

/** A private application's key with `permissions`, made with the first start's management key. */
async function checkoutKey(served: Served, ...permissions: string[]): Promise<string> {
  const created = await send(served.url, false, 'POST', '/applications', bannerKey(served.output()), { name: 'checkout', type: 'private', permissions });
  return (JSON.parse(created.body) as { key: string }).key;
}

/** The request again, with its idempotency key. */
function sendKeyed(url: string, agent: Agent, apiKey: string, request: Sent): Promise<{ status: number; body: string }> {
  return send(url, agent, 'POST', request.path, apiKey, request.body, 'application/json', { 'SVC-IDEMPOTENCY-KEY': request.key });
}

/** The ids of the tokens a request of `key` made, sorted. */
async function tokensOf(url: string, agent: Agent, apiKey: string, key: string): Promise<string[]> {
  const found = await send(url, agent, 'POST', '/tokens/search', apiKey, { query: `metadata.req:${key}`, size: 20 });
  return (JSON.parse(found.body) as { data: Array<{ id: string }> }).data.map((t) => t.id).sort();
}

/** The ids of the first `count` tokens of a 201 to POST /tokens (one) or POST /tokenize (an array), sorted. */
function idsOf(body: string, count: number): string[] {
  const answer = JSON.parse(body) as { id: string } | Array<{ id: string }>;
  return (Array.isArray(answer) ? answer : [answer]).slice(0, count).map((t) => t.id).sort();
}
