import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, bannerKey, killServed, send, type Served, serveBin } from './served-bin';

/**
 * `svc serve` killed with SIGKILL while clients make tokens of token intents, then started again. An intent is used
 * up in its token's own transaction, so after the crash each intent is exactly one of: made into its token, or still
 * there to be made into one. Never both (one card, two tokens), never neither (a card the customer typed, lost).
 */

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };
const INTENTS = 120;
const CLIENTS = 4;

/** The token made of an intent has an id of the client's choosing, so its state can be read after the crash. */
const tokenOf = (intentId: string): string => `of-${intentId}`;

describe('svc serve killed while token intents become tokens', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
  });
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'svc-intent-crash-'))));
  afterEach(() => {
    killServed();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves every intent either made into its one token or still there, across two SIGKILLs', async () => {
    let served: Served = await serveBin({ SVC_DATA_DIR: dataDir });
    const created = await send(served.url, false, 'POST', '/applications', bannerKey(served.output()), {
      name: 'checkout',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:intent:create', 'token:intent:read'],
    });
    const key = (JSON.parse(created.body) as { key: string }).key;

    for (let round = 0; round < 2; round++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const intents: string[] = [];
      for (let i = 0; i < INTENTS; i++) {
        const reply = await send(served.url, agent, 'POST', '/token-intents', key, { type: 'card', data: CARD });
        expect(reply.status).toBe(201);
        intents.push((JSON.parse(reply.body) as { id: string }).id);
      }
      agent.destroy();

      const queue = [...intents];
      const answered = new Set<string>();
      const wrong: string[] = [];
      let killed = false;
      const convert = async (): Promise<void> => {
        const own = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          for (let id = queue.shift(); id !== undefined && !killed; id = queue.shift()) {
            const reply = await send(served.url, own, 'POST', '/tokens', key, { token_intent_id: id, id: tokenOf(id) });
            if (reply.status === 201) answered.add(id);
            else wrong.push(`${id}: ${reply.status} ${reply.body.slice(0, 200)}`);
          }
        } catch {
          // The server was killed under this request: it was never answered, so either outcome is allowed of it.
        } finally {
          own.destroy();
        }
      };
      const running = Promise.all(Array.from({ length: CLIENTS }, convert));
      // The kill lands while every client has a conversion in flight, after some were answered.
      for (let i = 0; i < 400 && answered.size < 10 + round * 25; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      served.child.kill('SIGKILL');
      killed = true;
      await served.exited;
      await running;
      expect(wrong).toEqual([]);
      expect(answered.size).toBeGreaterThan(0);
      expect(queue.length).toBeGreaterThan(0);

      served = await serveBin({ SVC_DATA_DIR: dataDir });
      const check = new Agent({ keepAlive: true, maxSockets: 8 });
      try {
        const states = await Promise.all(
          intents.map(async (id) => {
            const token = (await send(served.url, check, 'GET', `/tokens/${tokenOf(id)}`, key)).status;
            const intent = (await send(served.url, check, 'GET', `/token-intents/${id}`, key)).status;
            return { id, answered: answered.has(id), token, intent };
          }),
        );
        // Made into its token (and gone), or still there (and no token): each answered conversion made its token.
        const broken = states.filter((s) => !((s.token === 200 && s.intent === 404) || (s.token === 404 && s.intent === 200 && !s.answered)));
        expect({ round, broken }).toEqual({ round, broken: [] });
        // An intent the crash left is made into a token now, as if nothing had happened.
        const left = states.find((s) => s.intent === 200)!;
        expect((await send(served.url, check, 'POST', '/tokens', key, { token_intent_id: left.id, id: tokenOf(left.id) })).status).toBe(201);
      } finally {
        check.destroy();
      }
    }
    served.child.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);
  }, 90_000);
});
