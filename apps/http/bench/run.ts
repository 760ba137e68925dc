import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { SERVE_NODE_FLAGS } from '../src/bin/node-flags';
import { type Child, freePort, startNode } from './processes';
import { type Destination, prepareProxyScenario, startDestination } from './proxy-scenario';
import { type Scenario, type ScenarioContext, SUITES } from './scenarios';
import { prepareSearchDataset } from './search-dataset';
import { searchScenarios } from './search-scenarios';
import { BOOTSTRAP_KEY, startVault } from './vault';

/**
 * `npm run bench`: starts the real `svc serve` on a fresh SQLite data dir and a bare Express echo server, drives
 * both with autocannon from this process, and prints each scenario beside the baseline; then the proxy beside a
 * direct call to its local HTTPS destination (a third process), and searches on a large store. Settings:
 * BENCH_DURATION (seconds per run, default 5), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 10),
 * BENCH_PROXY=0 (skip the proxy phase and its HTTPS destination), BENCH_SEARCH=0 (skip the search phase),
 * BENCH_FLOOR=0 (skip the floor phase); SVC_METRICS=1 runs the vault with its metrics on.
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
/** Rounds of (baseline, scenario) run back to back; medians are reported, so one noisy run does not decide. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Result {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /**
   * p50 and p99 in fractional milliseconds, from each response's own time: autocannon's histogram keeps whole
   * milliseconds, too coarse for a figure such as the proxy's added latency.
   */
  readonly p50Exact: number;
  readonly p99Exact: number;
  readonly errors: number;
  readonly non2xx: number;
  /**
   * CPU time per request in microseconds: the server process's (every thread, user and system, from
   * /proc/<pid>/stat; NaN where there is no /proc) and this process's, the load generator's.
   */
  readonly serverCpuUs: number;
  readonly loaderCpuUs: number;
  /**
   * The server's main thread (its event loop) alone: CPU µs per request, and the share of the run's wall time it was
   * busy. Near 100%, the event loop bounds the scenario; well below, requests wait on something else (a commit).
   */
  readonly loopCpuUs: number;
  readonly loopBusy: number;
}

/**
 * The user plus system CPU time in microseconds (clock ticks of 10 ms) of a process, or of its main thread (the task
 * whose id is the process's), or NaN where /proc is absent.
 */
function processCpuUs(pid: number | undefined, mainThreadOnly = false): number {
  if (pid === undefined) return Number.NaN;
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
    const stat = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const fields = stat.split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

async function measure(
  server: Child,
  path: string,
  method: string,
  key: string | undefined,
  body?: string,
  contentType?: string,
): Promise<Result> {
  const headers: Record<string, string> = {};
  if (key) headers['SVC-API-KEY'] = key;
  if (body) headers['Content-Type'] = contentType ?? 'application/json';
  return load({ url: `${server.url}${path}`, method, headers, body, pid: server.process.pid });
}

/** One autocannon run (BENCH_CONNECTIONS unless told); `ca` is handed to its TLS connections for an https `url`. */
async function load(request: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  ca?: string;
  connections?: number;
  /** The server process whose CPU time is read around the run. */
  pid?: number | undefined;
}): Promise<Result> {
  const { url, method, headers, body, ca, connections = CONNECTIONS, pid } = request;
  const serverBefore = processCpuUs(pid);
  const loopBefore = processCpuUs(pid, true);
  const loaderBefore = process.cpuUsage();
  const startedAt = performance.now();
  const times: number[] = [];
  const options = { url, method: method as 'GET', headers, body, connections, duration: DURATION, ...(ca ? { tlsOptions: { ca } } : {}) };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, done) => (error ? reject(error) : resolve(done)));
    // Every response, as autocannon's own latency histogram records them (non-2xx included).
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  const wallUs = (performance.now() - startedAt) * 1000;
  const served = result.requests.total;
  const serverCpuUs = (processCpuUs(pid) - serverBefore) / served;
  const loopUs = processCpuUs(pid, true) - loopBefore;
  const loaderUsage = process.cpuUsage(loaderBefore);
  const loaderCpuUs = (loaderUsage.user + loaderUsage.system) / served;
  times.sort((a, b) => a - b);
  const rank = (p: number): number => times[Math.max(0, Math.ceil(p * times.length) - 1)] ?? Number.NaN;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p50Exact: rank(0.5),
    p99Exact: rank(0.99),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    serverCpuUs,
    loaderCpuUs,
    loopCpuUs: loopUs / served,
    loopBusy: loopUs / wallUs,
  };
}

/**
 * Starts one of the bench's own servers (`script` beside this file) on a free port, with `env` added. It runs with the
 * vault's flags: a ratio compares the two programs, not two runtime settings.
 */
async function startBenchServer(script: string, env: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  return startNode(join(__dirname, script), [], { PATH: process.env.PATH, PORT: String(port), ...env }, url, (out) => out.includes('listening'), SERVE_NODE_FLAGS);
}

function context(url: string): ScenarioContext {
  return {
    url,
    managementKey: BOOTSTRAP_KEY,
    async createApplication(body) {
      const res = await fetch(`${url}/applications`, {
        method: 'POST',
        headers: { 'SVC-API-KEY': BOOTSTRAP_KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`creating a bench application failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { key: string }).key;
    },
  };
}

const fmt = (n: number, digits = 0): string => n.toFixed(digits);

/** The event loop column: its CPU µs per request and how busy it was, for the scenario and (in brackets) the echo. */
const loopCell = (result: Result, base: Result): string =>
  `${fmt(result.loopCpuUs)}, ${fmt(result.loopBusy * 100)}% (${fmt(base.loopCpuUs)}, ${fmt(base.loopBusy * 100)}%)`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Compared {
  readonly scenario: Result;
  readonly baseline: Result;
  readonly ratio: number;
  /** Each round's scenario p50 minus its baseline p50 (fractional ms), in round order. */
  readonly p50Added: number[];
}

/** Alternates baseline and scenario runs and keeps the medians: both see the same machine state. */
async function compare(baseline: () => Promise<Result>, scenario: () => Promise<Result>): Promise<Compared> {
  const runs: Array<{ b: Result; s: Result }> = [];
  for (let round = 0; round < ROUNDS; round++) runs.push({ b: await baseline(), s: await scenario() });
  const pick = (results: Result[]): Result => ({
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    p50Exact: median(results.map((r) => r.p50Exact)),
    p99Exact: median(results.map((r) => r.p99Exact)),
    errors: results.reduce((n, r) => n + r.errors, 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    serverCpuUs: median(results.map((r) => r.serverCpuUs)),
    loaderCpuUs: median(results.map((r) => r.loaderCpuUs)),
    loopCpuUs: median(results.map((r) => r.loopCpuUs)),
    loopBusy: median(results.map((r) => r.loopBusy)),
  });
  return {
    scenario: pick(runs.map((r) => r.s)),
    baseline: pick(runs.map((r) => r.b)),
    ratio: median(runs.map((r) => r.s.rps / r.b.rps)),
    p50Added: runs.map((r) => r.s.p50Exact - r.b.p50Exact),
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  // The proxy's destination starts first: the vault is started allowing it and trusting its CA.
  const destination = process.env.BENCH_PROXY === '0' ? undefined : await startDestination();
  const children: Child[] = [];
  try {
    const vault = await startVault(dataDir, BOOTSTRAP_KEY, destination ? { ...destination.vaultEnv } : {});
    children.push(vault);
    await new Promise((r) => setTimeout(r, 500));
    const echo = await startBenchServer('echo-server.js');
    children.push(echo);
    const ctx = context(vault.url);
    const runs: Array<{ scenario: Scenario; key: string }> = [];
    for (const suite of SUITES) runs.push(...(await suite.prepare(ctx)));
    process.stdout.write(`svc bench: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 1024 ** 3)} GiB, node ${process.version}, ${new Date().toISOString()}, metrics ${process.env.SVC_METRICS === '1' ? 'on' : 'off'}\n`);
    process.stdout.write(`${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s (baseline, scenario); medians; server logs at ${process.env.SVC_LOG_LEVEL ?? 'warn'}\n\n`);
    const rows: string[] = [
      '| scenario | req/s | tokens/s | p50 ms | p99 ms | baseline req/s | ratio | CPU µs/req: server (echo), autocannon (with echo) | event loop µs/req, busy (echo) | errors/non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const { scenario, key } of runs) {
      const body = scenario.baseline === 'POST' ? scenario.body : undefined;
      const { scenario: result, baseline: base, ratio } = await compare(
        () => measure(echo, '/echo', scenario.baseline, undefined, body),
        () => measure(vault, scenario.path, scenario.method, key, scenario.body, scenario.contentType),
      );
      const tokens = scenario.path.startsWith('/applications') ? '' : fmt(result.rps * (scenario.tokensPerRequest ?? 1));
      const cpu = `${fmt(result.serverCpuUs)} (${fmt(base.serverCpuUs)}), ${fmt(result.loaderCpuUs)} (${fmt(base.loaderCpuUs)})`;
      const row = `| ${scenario.name} | ${fmt(result.rps)} | ${tokens} | ${result.p50} | ${result.p99} | ${fmt(base.rps)} | ${fmt(ratio * 100)}% | ${cpu} | ${loopCell(result, base)} | ${result.errors}/${result.non2xx} |`;
      rows.push(row);
      process.stdout.write(`${row}\n`);
    }
    process.stdout.write(`\n${rows.join('\n')}\n`);
    if (process.env.BENCH_FLOOR !== '0') await floorPhase(dataDir, echo);
    if (destination) await proxyPhase(ctx, destination);
    if (process.env.BENCH_SEARCH !== '0') await searchPhase(echo);
  } finally {
    await Promise.all([...children.map((c) => c.stop()), destination?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The floor (floor-server.ts: only what a create, a reveal and a search by id cannot skip, in bare Express) beside the
 * echo, alternated in rounds like the scenarios: how close to the echo any vault built this way gets on this machine
 * in this run, against which the vault's own ratios above can be read.
 */
async function floorPhase(dataDir: string, echo: Child): Promise<void> {
  const tokenId = randomUUID();
  const floor = await startBenchServer('floor-server.js', { FLOOR_DB: join(dataDir, 'floor.db'), FLOOR_TOKEN_ID: tokenId });
  try {
    const create = JSON.stringify({ type: 'card_number', data: '4242424242424242' });
    const search = JSON.stringify({ query: `id:${tokenId}` });
    const scenarios = [
      { name: 'floor: POST /tokens', method: 'POST', path: '/tokens', body: create },
      { name: 'floor: GET /tokens/{id}', method: 'GET', path: `/tokens/${tokenId}` },
      { name: 'floor: POST /tokens/search (by id)', method: 'POST', path: '/tokens/search', body: search },
    ] as const;
    const rows = [
      'the floor: bare Express doing only what each request cannot skip (floor-server.ts), beside the echo',
      '| scenario | req/s | p50 ms | p99 ms | baseline req/s | ratio | CPU µs/req: server (echo) | event loop µs/req, busy (echo) | errors/non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const scenario of scenarios) {
      const body = 'body' in scenario ? scenario.body : undefined;
      const { scenario: result, baseline: base, ratio } = await compare(
        () => measure(echo, '/echo', scenario.method, undefined, body),
        () => measure(floor, scenario.path, scenario.method, 'key_floor', body),
      );
      const row = `| ${scenario.name} | ${fmt(result.rps)} | ${result.p50} | ${result.p99} | ${fmt(base.rps)} | ${fmt(ratio * 100)}% | ${fmt(result.serverCpuUs)} (${fmt(base.serverCpuUs)}) | ${loopCell(result, base)} | ${result.errors}/${result.non2xx} |`;
      rows.push(row);
      process.stdout.write(`${row}\n`);
    }
    process.stdout.write(`\n${rows.join('\n')}\n`);
  } finally {
    await floor.stop();
  }
}

/**
 * The proxy (one token detokenized into a JSON body, sent to a local HTTPS destination) beside a direct call to the
 * same destination, alternated in rounds like the other scenarios; the direct call is the baseline. Measured at
 * BENCH_CONNECTIONS, where the vault is saturated and p50 is mostly queueing (ten requests always waiting: even the
 * bare echo's p50 there is about 10 / its req/s, 0.7 ms), and again at one connection, where p50 added is the proxy's
 * own time per request. The load generator is given the run's CA, but autocannon 8 connects with `rejectUnauthorized: false` whatever it is given,
 * so the destination's certificate is verified by the check before measuring; the vault verifies it on every
 * connection (SVC_OUTBOUND_CA).
 */
async function proxyPhase(ctx: ScenarioContext, destination: Destination): Promise<void> {
  const scenario = await prepareProxyScenario(ctx, destination);
  const ms = (n: number): string => fmt(n, 2);
  const rows = [
    'proxy to a local HTTPS destination (127.0.0.1); latencies in ms from each response, p50 added = median over rounds of (proxy p50 − direct p50)',
    '| scenario | connections | req/s | p50 ms | p99 ms | direct req/s | direct p50 ms | direct p99 ms | ratio | p50 added ms | errors/non-2xx |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const perRound: string[] = [];
  for (const connections of CONNECTIONS === 1 ? [1] : [CONNECTIONS, 1]) {
    const { scenario: proxied, baseline: direct, ratio, p50Added } = await compare(
      () => load({ method: 'POST', ...scenario.direct, ca: destination.caPem, connections }),
      () => load({ method: 'POST', ...scenario.proxied, connections }),
    );
    const row = `| ${scenario.name} | ${connections} | ${fmt(proxied.rps)} | ${ms(proxied.p50Exact)} | ${ms(proxied.p99Exact)} | ${fmt(direct.rps)} | ${ms(direct.p50Exact)} | ${ms(direct.p99Exact)} | ${fmt(ratio * 100)}% | ${ms(median(p50Added))} | ${proxied.errors}/${proxied.non2xx} (direct ${direct.errors}/${direct.non2xx}) |`;
    rows.push(row);
    perRound.push(`${connections} connection${connections === 1 ? '' : 's'}: ${p50Added.map(ms).join(', ')} ms`);
    process.stdout.write(`${row}\n`);
  }
  process.stdout.write(`\n${rows.join('\n')}\np50 added per round: ${perRound.join('; ')}\n`);
}

/**
 * Search scenarios on stores of BENCH_TOKENS tokens (default 1,000,000; a comma-separated list such as
 * `100000,1000000,10000000` runs each size in turn and ends with a table of each query's p99 against the count), each
 * loaded once through the bulk path into bench-data/<count>/. The store's bytes per token are its files' sizes (the
 * database and any WAL) over the count, audit events and indexes included.
 */
async function searchPhase(echo: Child): Promise<void> {
  const counts = (process.env.BENCH_TOKENS ?? '1000000').split(',').map((c) => Number(c.trim()));
  const growth = new Map<string, string[]>();
  const sizes: string[] = [];
  for (const count of counts) {
    const dataset = await prepareSearchDataset(resolve(process.env.BENCH_DATA ?? 'bench-data'), count, (line) =>
      process.stdout.write(`${line}\n`),
    );
    const bytes = storeBytes(dataset.dataDir);
    sizes.push(`| ${count.toLocaleString('en-US')} | ${fmt(bytes / 1024 ** 2)} MiB | ${fmt(bytes / count)} |`);
    const vault = await startVault(dataset.dataDir, dataset.bootstrapKey);
    try {
      const rows = [
        `${count.toLocaleString('en-US')} tokens in SQLite (${fmt(bytes / count)} bytes per token)`,
        '| scenario | total (expected) | req/s | p50 ms | p99 ms | baseline req/s | ratio | errors/non-2xx |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
      ];
      for (const scenario of searchScenarios(dataset)) {
        const body = JSON.stringify({ query: scenario.query, size: 20 });
        const check = await checkFetch(`${vault.url}/tokens/search`, {
          method: 'POST',
          headers: { 'SVC-API-KEY': dataset.searchKey, 'Content-Type': 'application/json' },
          body,
        });
        const total = ((await check.json()) as { pagination: { total_items: number } }).pagination.total_items;
        if (total !== scenario.expectedTotal) throw new Error(`${scenario.name}: total ${total}, expected ${scenario.expectedTotal}`);
        const { scenario: result, baseline: base, ratio } = await compare(
          () => measure(echo, '/echo', 'POST', undefined, body),
          () => measure(vault, '/tokens/search', 'POST', dataset.searchKey, body),
        );
        const row = `| ${scenario.name} | ${total} (${scenario.expectedTotal}) | ${fmt(result.rps)} | ${result.p50} | ${result.p99} | ${fmt(base.rps)} | ${fmt(ratio * 100)}% | ${result.errors}/${result.non2xx} |`;
        rows.push(row);
        const label = `${scenario.name} (${scenario.selective ? 'selective, < 20' : 'broad, < 100'})`;
        growth.set(label, [...(growth.get(label) ?? []), String(result.p99)]);
        process.stdout.write(`${row}\n`);
      }
      process.stdout.write(`\n${rows.join('\n')}\n`);
    } finally {
      await vault.stop();
    }
  }
  if (counts.length < 2) return;
  const header = counts.map((c) => c.toLocaleString('en-US')).join(' | ');
  const table = [
    'p99 ms at 10 connections against the token count',
    `| scenario (target p99 ms) | ${header} |`,
    `|---|${counts.map(() => '---:').join('|')}|`,
    ...[...growth].map(([name, p99s]) => `| ${name} | ${p99s.join(' | ')} |`),
    '',
    '| tokens | store | bytes per token |',
    '|---:|---:|---:|',
    ...sizes,
  ];
  process.stdout.write(`\n${table.join('\n')}\n`);
}

/**
 * A check request, sent again once if the connection failed before any answer (printed, with its cause): the 10M
 * run once lost one to a kept-alive connection the server had just closed. A wrong answer is never retried.
 */
async function checkFetch(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    process.stdout.write(`check request failed (${String((error as Error & { cause?: unknown }).cause ?? error)}); sending it again\n`);
    return fetch(url, init);
  }
}

/** The bytes of every file in a data dir (the database, its WAL and shared memory, the key files). */
function storeBytes(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => {
    const stats = statSync(join(dir, name));
    return sum + (stats.isFile() ? stats.size : 0);
  }, 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
