import { Agent, request } from 'node:http';
import { luhnComplete } from './scenarios';
import { addTally, type Operation, type Tally, zeroTally } from './soak-counts';
import { type MemoryReading, metricsHeapUsed, processMemory, storeBytes } from './soak-memory';

/**
 * The soak's load (issue 17.3), shared by `npm run soak` and the leak check in `npm test`: a steady mix of token
 * operations over a fixed number of keep-alive connections, each connection one request at a time, every answer's
 * status checked, and the server's memory sampled beside the throughput.
 */

/**
 * One turn of the mix, 20 requests: 6 reveal-gets, 3 creates, 3 updates, 3 searches, 2 tokenizes, 2 detokenizes and
 * a delete. Every connection walks it in this order from its own starting point, so at any moment the connections
 * are at different operations and the mix over any few hundred requests is this one.
 */
export const MIX: readonly Operation[] = [
  'read', 'create', 'search', 'read', 'update', 'detokenize', 'read', 'tokenize', 'create', 'read',
  'search', 'update', 'read', 'delete', 'detokenize', 'create', 'read', 'update', 'search', 'tokenize',
];

/** Tokens per POST /tokenize and per POST /detokenize. */
export const BULK_SIZE = 10;

/** The answer each operation must give; anything else is counted against it. */
const EXPECTED: Readonly<Record<Operation, number>> = {
  create: 201,
  read: 200,
  update: 200,
  search: 200,
  tokenize: 201,
  detokenize: 200,
  delete: 204,
};

/** The permissions of the soak's application key: everything the mix does. */
const PERMISSIONS = ['token:create', 'token:read', 'token:use', 'token:update', 'token:search', 'token:delete'];

/** Tokens reads, updates, searches and detokenizes pick from: the most recent ones the soak created. */
const POOL_SIZE = 4_096;
/** Tokens kept aside for deletes (never in the pool, so nothing else reads a token a delete removes). */
const DELETE_QUEUE_SIZE = 1_024;
/** One request's time limit; past it the request counts as an error. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Failures whose description is kept for the report (the counts are always complete). */
const KEPT_FAILURES = 20;

/** One sampling interval of a run. */
export interface SoakSample extends MemoryReading {
  /** Seconds since the run began, at the interval's end. */
  readonly atSeconds: number;
  /** The interval's length in seconds. */
  readonly seconds: number;
  readonly counts: Readonly<Tally>;
  /** Answer times over the interval, in milliseconds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The store's files (svc.db, its WAL and the rest of the data dir), in bytes. */
  readonly storeBytes?: number;
}

export interface SoakRun {
  readonly samples: readonly SoakSample[];
  readonly totals: Readonly<Tally>;
  readonly seconds: number;
  /** The first failures, each as `operation: what happened` (no token data: problem bodies only). */
  readonly failures: readonly string[];
}

export interface SoakRunOptions {
  /** Stop after this long. */
  readonly durationMs?: number;
  /** Stop after this many requests (whichever of the two comes first). */
  readonly requests?: number;
  /** How often to sample (default 10 s); the last interval ends with the run. */
  readonly sampleIntervalMs?: number;
  readonly onSample?: (sample: SoakSample) => void;
}

/** Where the server's memory and store are read from. */
export interface SoakTarget {
  /** The vault's base URL (http, loopback). */
  readonly url: string;
  /** A management key of the vault's tenant (to create the soak's application). */
  readonly managementKey: string;
  /** The server's process id, for /proc/<pid>/status. */
  readonly pid?: number;
  /** Read `nodejs_heap_size_used_bytes` from GET /metrics (the vault runs with SVC_METRICS=1). */
  readonly metrics?: boolean;
  /** The vault's data dir, to report the store's size. */
  readonly dataDir?: string;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

interface PoolToken {
  readonly id: string;
  readonly ref: string;
}


/** The rank-`p` value of sorted `values` (NaN when empty). */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

/** The ids of a tokenize answer to an array of token requests (each answered with the token it made). */
const tokenIds = (body: string): string[] => (JSON.parse(body) as Array<{ id: string }>).map((token) => token.id);

/**
 * The mix against one vault. {@link SoakLoad.prepare} creates an application holding the mix's permissions and seeds
 * tokens; {@link SoakLoad.run} may then be called several times (the leak check runs a warm-up, then measured
 * phases), the pools carrying over.
 */
export class SoakLoad {
  private readonly agent: Agent;
  private readonly pool: PoolToken[] = [];
  private poolNext = 0;
  private readonly deleteQueue: string[] = [];
  /** Makes every token's card number and `ref` unique to this run (several soaks may share a store). */
  private readonly tag = `s${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  private serial = 0;

  private constructor(
    private readonly target: SoakTarget,
    private readonly key: string,
    readonly connections: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
  }

  /** Creates the soak's application and seeds the pools with one tokenize of 100 tokens. */
  static async prepare(target: SoakTarget, connections = 10): Promise<SoakLoad> {
    const created = await fetch(`${target.url}/applications`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': target.managementKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'soak backend', type: 'private', permissions: PERMISSIONS }),
    });
    if (created.status !== 201) throw new Error(`creating the soak application failed: ${created.status} ${await created.text()}`);
    const load = new SoakLoad(target, ((await created.json()) as { key: string }).key, connections);
    const items = Array.from({ length: 100 }, () => load.tokenizeItem());
    const seeded = await load.call('POST', '/tokenize', JSON.stringify(items.map((i) => i.request)));
    if (seeded.status !== 201) throw new Error(`seeding the soak's tokens failed: ${seeded.status} ${seeded.body}`);
    tokenIds(seeded.body).forEach((id, i) => (i < 10 ? load.deleteQueue.push(id) : load.remember({ id, ref: items[i]!.ref })));
    return load;
  }

  /** Runs the mix on every connection until the duration or the request count is reached, sampling as it goes. */
  async run(options: SoakRunOptions): Promise<SoakRun> {
    const { durationMs = Number.POSITIVE_INFINITY, requests = Number.POSITIVE_INFINITY, sampleIntervalMs = 10_000 } = options;
    if (!Number.isFinite(durationMs) && !Number.isFinite(requests)) throw new Error('a soak run needs a duration or a request count');
    const started = performance.now();
    const deadline = started + durationMs;
    const totals = zeroTally();
    const failures: string[] = [];
    const samples: SoakSample[] = [];
    let interval = { counts: zeroTally(), times: [] as number[], from: started };
    let issued = 0;

    const record = (op: Operation, answer: Answer | Error, ms: number): void => {
      // Only the status and a problem body are reported, never a 2xx body: those hold token data.
      const failure =
        answer instanceof Error
          ? answer.message
          : answer.status !== EXPECTED[op]
            ? `${answer.status} (expected ${EXPECTED[op]})${answer.status >= 300 ? ` ${answer.body.slice(0, 300)}` : ''}`
            : this.wrongContent(op, answer.body);
      for (const counts of [totals[op], interval.counts[op]]) {
        if (failure === undefined) counts.ok++;
        else if (answer instanceof Error || (answer.status >= 200 && answer.status < 300)) counts.errors++;
        else counts.non2xx++;
        if (!(answer instanceof Error) && answer.status >= 500) counts.status5xx++;
      }
      interval.times.push(ms);
      if (failure !== undefined && failures.length < KEPT_FAILURES) failures.push(`${op}: ${failure}`);
    };

    const takeSample = async (): Promise<void> => {
      const now = performance.now();
      const { counts, times, from } = interval;
      interval = { counts: zeroTally(), times: [], from: now };
      times.sort((a, b) => a - b);
      const memory = await this.readMemory();
      const store = this.target.dataDir === undefined ? undefined : storeBytes(this.target.dataDir);
      const sample: SoakSample = {
        atSeconds: (now - started) / 1000,
        seconds: (now - from) / 1000,
        counts,
        p50Ms: percentile(times, 0.5),
        p99Ms: percentile(times, 0.99),
        ...memory,
        ...(store === undefined ? {} : { storeBytes: store }),
      };
      samples.push(sample);
      options.onSample?.(sample);
    };

    const worker = async (index: number): Promise<void> => {
      // Connections start two operations apart, so the ten of them cover the whole turn at once.
      for (let step = index * 2; performance.now() < deadline && issued < requests; step++) {
        issued++;
        const op = MIX[step % MIX.length]!;
        const begun = performance.now();
        const answer = await this.perform(op).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
        record(op, answer, performance.now() - begun);
      }
    };

    let sampling = Promise.resolve();
    const timer = setInterval(() => {
      sampling = sampling.then(takeSample);
    }, sampleIntervalMs);
    try {
      await Promise.all(Array.from({ length: this.connections }, (_, i) => worker(i)));
    } finally {
      clearInterval(timer);
    }
    await sampling;
    const last = samples.at(-1);
    if (last && performance.now() - interval.from < sampleIntervalMs / 2) {
      // The requests in flight when the run ended: a short tail, folded into the last sample (whose memory reading
      // and latencies stand) rather than reported as an interval of its own with a rate from a few milliseconds.
      const now = performance.now();
      const counts = addTally(addTally(zeroTally(), last.counts), interval.counts);
      samples[samples.length - 1] = { ...last, counts, atSeconds: (now - started) / 1000, seconds: last.seconds + (now - interval.from) / 1000 };
    } else {
      await takeSample();
    }
    return { samples, totals, seconds: (performance.now() - started) / 1000, failures };
  }

  /** Closes the load's connections. */
  close(): void {
    this.agent.destroy();
  }

  /** The server's memory now: /proc for RSS, GET /metrics for the heap; a part that cannot be read is left out. */
  async readMemory(): Promise<MemoryReading> {
    const rss = this.target.pid === undefined ? {} : processMemory(this.target.pid);
    const heap = this.target.metrics ? await metricsHeapUsed(this.target.url) : undefined;
    return heap === undefined ? rss : { ...rss, heapUsedBytes: heap };
  }

  /** Sends one operation of the mix. */
  private async perform(op: Operation): Promise<Answer> {
    switch (op) {
      case 'create': {
        const n = this.serial++;
        const ref = this.ref(n);
        const data = luhnComplete(`4${String(n).padStart(14, '0')}`);
        const answer = await this.call('POST', '/tokens', JSON.stringify({ type: 'card_number', data, metadata: { ref, source: 'soak' } }));
        if (answer.status === 201) this.remember({ id: (JSON.parse(answer.body) as { id: string }).id, ref });
        return answer;
      }
      case 'read':
        return this.call('GET', `/tokens/${this.pick().id}`);
      case 'update':
        return this.call('PATCH', `/tokens/${this.pick().id}`, JSON.stringify({ metadata: { rev: String(this.serial) } }), 'application/merge-patch+json');
      case 'search':
        return this.call('POST', '/tokens/search', JSON.stringify({ query: `metadata.ref:${this.pick().ref}`, size: 20 }));
      case 'tokenize': {
        const items = Array.from({ length: BULK_SIZE }, () => this.tokenizeItem());
        const answer = await this.call('POST', '/tokenize', JSON.stringify(items.map((i) => i.request)));
        if (answer.status === 201) {
          tokenIds(answer.body).forEach((id, i) => {
            if (i === 0 && this.deleteQueue.length < DELETE_QUEUE_SIZE) this.deleteQueue.push(id);
            else this.remember({ id, ref: items[i]!.ref });
          });
        }
        return answer;
      }
      case 'detokenize': {
        const ids = Array.from({ length: BULK_SIZE }, () => `{{ ${this.pick().id} }}`);
        return this.call('POST', '/detokenize', JSON.stringify(ids));
      }
      case 'delete': {
        const id = this.deleteQueue.shift();
        // The queue is refilled by every tokenize (one token in ten); empty only if deletes outran them.
        if (id === undefined) throw new Error('no token left to delete');
        return this.call('DELETE', `/tokens/${id}`);
      }
    }
  }

  /** What is wrong with an expected answer's body, if anything: a search by a pool token's own `ref` finds just it. */
  private wrongContent(op: Operation, body: string): string | undefined {
    if (op !== 'search') return undefined;
    let total: unknown;
    try {
      total = (JSON.parse(body) as { pagination?: { total_items?: unknown } }).pagination?.total_items;
    } catch {
      return 'an answer that is not JSON';
    }
    return total === 1 ? undefined : `total_items ${String(total)} (expected 1)`;
  }

  private ref(n: number): string {
    return `${this.tag}n${n.toString(36)}`;
  }

  private tokenizeItem(): { request: object; ref: string } {
    const n = this.serial++;
    const ref = this.ref(n);
    return { request: { type: 'token', data: { note: `soak ${n}`, amount: n % 1000 }, metadata: { ref, source: 'soak' } }, ref };
  }

  private remember(token: PoolToken): void {
    if (this.pool.length < POOL_SIZE) this.pool.push(token);
    else this.pool[this.poolNext++ % POOL_SIZE] = token;
  }

  private pick(): PoolToken {
    return this.pool[Math.floor(Math.random() * this.pool.length)]!;
  }

  /** One request on the load's keep-alive connections. */
  private call(method: string, path: string, body?: string, type = 'application/json'): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'SVC-API-KEY': this.key };
      if (body !== undefined) {
        headers['Content-Type'] = type;
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const req = request(`${this.target.url}${path}`, { method, agent: this.agent, headers, timeout: REQUEST_TIMEOUT_MS }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
