import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Child } from '../bench/processes';
import { soakChecks, soakWindows, throughputIn } from '../bench/soak-checks';
import { OPERATIONS, type OperationCounts, requestsIn, sumTallies, type Tally, zeroTally } from '../bench/soak-counts';
import { SoakLoad, type SoakRun, type SoakSample } from '../bench/soak-driver';
import { BOOTSTRAP_KEY, startVault } from '../bench/vault';
import { BIN } from './served-bin';

/** The main thread's memory right after a full collection, as test/gc-probe.cjs reports it. */
interface Probe {
  readonly heapUsed: number;
  readonly rss: number;
}

/** Requests before the first reading: every code path compiled, caches and pools at their working size. */
const WARM_UP_REQUESTS = 4_000;
/** Measured phases, each followed by a reading. */
const PHASES = 4;
const PHASE_REQUESTS = 5_000;
/**
 * Allowed growth of the heap after a full collection over the measured phases (20,000 requests): 300 bytes a
 * request. Nothing the server keeps in its main thread grows with the number of requests, so it stays within about
 * half a megabyte; one ~200-character string kept per request (a deliberate leak, in a trial) adds 8 MB.
 */
const HEAP_GROWTH_BOUND = 6 * 1024 ** 2;
/**
 * Allowed growth of the whole process's RSS over the same phases: generous, as SQLite's page caches and memory maps
 * (a few connections, 64 MiB of cache and 256 MiB of map each) fill as the store grows by about 100 MB. A backstop for
 * leaks outside the main thread's heap (native memory, worker threads) of several kilobytes a request.
 */
const RSS_GROWTH_BOUND = 384 * 1024 ** 2;
/** Every operation of the mix answered as expected at least this often (each is 5–30% of the requests). */
const AT_LEAST = 100;

const MB = (bytes: number): number => Math.round((bytes / 1024 ** 2) * 10) / 10;

/**
 * The soak's leak check (issue 17.3): the load of `npm run soak` (bench/soak-driver.ts) against the built `svc serve`
 * on a fresh SQLite store, by request count rather than by time, so a slow machine takes longer but measures the same
 * thing. No timing is asserted: only that every answer was right and that memory did not grow with the requests.
 * The server is started with its usual flags plus --expose-gc and a preload (test/gc-probe.cjs) that collects and
 * reports its heap on SIGUSR2, between phases, when no request is in flight.
 */
describe('the soak, bounded (leak check)', () => {
  let dataDir: string;
  let vault: Child | undefined;
  let load: SoakLoad | undefined;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-soak-test-'));
  });

  afterAll(async () => {
    load?.close();
    if (vault && vault.process.exitCode === null && vault.process.signalCode === null) await vault.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every request of the mix as expected, and its heap and RSS do not grow with the requests', async () => {
    const started = await startVault(dataDir, BOOTSTRAP_KEY, { SVC_METRICS: '1' }, {
      script: BIN,
      extraNodeFlags: ['--expose-gc', '--require', join(__dirname, 'gc-probe.cjs')],
    });
    vault = started;
    const probe = probes(started);
    load = await SoakLoad.prepare({ url: started.url, managementKey: BOOTSTRAP_KEY, pid: started.process.pid, dataDir });

    const runs: SoakRun[] = [await load.run({ requests: WARM_UP_REQUESTS })];
    const readings: Probe[] = [await probe()];
    for (let phase = 0; phase < PHASES; phase++) {
      runs.push(await load.run({ requests: PHASE_REQUESTS }));
      readings.push(await probe());
    }

    const totals = sumTallies(runs.map((r) => r.totals));
    const failures = runs.flatMap((r) => r.failures);
    expect({ requests: requestsIn(totals), failures }).toEqual({ requests: WARM_UP_REQUESTS + PHASES * PHASE_REQUESTS, failures: [] });
    for (const op of OPERATIONS) {
      expect({ op, ...totals[op], enough: totals[op].ok >= AT_LEAST }).toEqual({ op, ok: totals[op].ok, status5xx: 0, non2xx: 0, errors: 0, enough: true });
    }

    const first = readings[0]!;
    const last = readings.at(-1)!;
    const memory = {
      heapAfterGcMB: readings.map((r) => MB(r.heapUsed)),
      rssMB: readings.map((r) => MB(r.rss)),
      heapWithinBound: last.heapUsed - first.heapUsed < HEAP_GROWTH_BOUND,
      rssWithinBound: last.rss - first.rss < RSS_GROWTH_BOUND,
    };
    expect(memory).toEqual({ ...memory, heapWithinBound: true, rssWithinBound: true });
  }, 240_000);
});

/** Asks the served process for a reading (SIGUSR2) and resolves with the next one it prints. */
function probes(child: Child): () => Promise<Probe> {
  const waiting: Array<(probe: Probe) => void> = [];
  let pending = '';
  child.process.stderr?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (line.startsWith('{"gc_probe"')) waiting.shift()?.((JSON.parse(line) as { gc_probe: Probe }).gc_probe);
    }
  });
  return () =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server printed no memory reading within 30 s')), 30_000);
      waiting.push((probe) => {
        clearTimeout(timer);
        resolve(probe);
      });
      child.process.kill('SIGUSR2');
    });
}

/** A sample of `rps` requests a second over 10 s ending at `at`, with `rss` MB, every request a read. */
function sample(at: number, rps: number, rss: number, counts: Partial<OperationCounts> = {}): SoakSample {
  const tally = zeroTally();
  tally.read = { ...tally.read, ok: rps * 10, ...counts };
  return { atSeconds: at, seconds: 10, counts: tally, p50Ms: 1, p99Ms: 2, rssBytes: rss * 1024 ** 2 };
}

/** The targets' arithmetic on made-up samples: which samples each window takes, and where each check's line is. */
describe('the soak checks', () => {
  const run = (minutes: number, rate: (at: number) => number, rss: (at: number) => number): SoakSample[] =>
    Array.from({ length: minutes * 6 }, (_, i) => sample((i + 1) * 10, rate((i + 1) * 10), rss((i + 1) * 10)));
  const totals = (samples: SoakSample[]): Tally => sumTallies(samples.map((s) => s.counts));
  const passed = (minutes: number, samples: SoakSample[]) => Object.fromEntries(soakChecks(samples, totals(samples), minutes).map((c) => [c.id, c.passed]));

  it('compares minutes 25–30 with 5–10 and RSS after minute 5 with minute 5 in a 30-minute run', () => {
    expect(soakWindows(30)).toEqual({ warmUpEnd: 300, reference: [300, 600], final: [1500, 1800], scaled: false });
    // Slower while warming up, then steady; RSS climbs during warm-up only.
    const steady = run(30, (at) => (at <= 300 ? 500 : 1000), (at) => Math.min(at, 300) + 100);
    expect(throughputIn(steady, [300, 600])).toBe(1000);
    expect(passed(30, steady)).toEqual({ 'no-5xx': true, answers: true, throughput: true, rss: true });
    // 11% slower at the end, and RSS 16% above minute 5's at one sample.
    const worse = run(30, (at) => (at > 1500 ? 890 : 1000), (at) => (at === 1200 ? 464 : 400));
    expect(passed(30, worse)).toEqual({ 'no-5xx': true, answers: true, throughput: false, rss: false });
  });

  it('uses thirds of a run under 15 minutes, and fails on any 5xx or other unexpected answer', () => {
    expect(soakWindows(3)).toEqual({ warmUpEnd: 60, reference: [60, 120], final: [120, 180], scaled: true });
    const samples = run(3, () => 1000, () => 400);
    samples[10] = sample(110, 1000, 400, { status5xx: 1, non2xx: 1 });
    expect(passed(3, samples)).toEqual({ 'no-5xx': false, answers: false, throughput: true, rss: true });
  });
});
