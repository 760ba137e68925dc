import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { type Child, freePort, startNode } from './processes';
import { type Scenario, type ScenarioContext, SUITES } from './scenarios';
import { prepareSearchDataset } from './search-dataset';
import { searchScenarios } from './search-scenarios';

/**
 * `npm run bench`: starts the real `svc serve` on a fresh SQLite data dir and a bare Express echo server, drives
 * both with autocannon from this process, and prints each scenario beside the baseline. Settings:
 * BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (default 10).
 */
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
/** Rounds of (baseline, scenario) run back to back; medians are reported, so one noisy run does not decide. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const BOOTSTRAP_KEY = 'key_mgt_bench-bootstrap-key-not-for-production';

interface Result {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
}

async function measure(url: string, method: string, key: string | undefined, body?: string, contentType?: string): Promise<Result> {
  const headers: Record<string, string> = {};
  if (key) headers['SVC-API-KEY'] = key;
  if (body) headers['Content-Type'] = contentType ?? 'application/json';
  const result = await autocannon({ url, method: method as 'GET', headers, body, connections: CONNECTIONS, duration: DURATION });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

async function startVault(dataDir: string, bootstrapKey = BOOTSTRAP_KEY): Promise<Child> {
  const port = await freePort();
  const script = join(__dirname, '..', 'src', 'bin', 'svc.js');
  const env = {
    PATH: process.env.PATH,
    SVC_PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_BOOTSTRAP_API_KEY: bootstrapKey,
    SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'warn',
  };
  const url = `http://127.0.0.1:${port}`;
  // The vault logs at warn here, so readiness is polled over HTTP rather than read from its output.
  const child = await startNode(script, ['serve'], env, url, () => true);
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${url}/applications/key`).catch(() => undefined))?.status === 401) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the vault did not answer');
}

async function startEcho(): Promise<Child> {
  const port = await freePort();
  const env = { PATH: process.env.PATH, PORT: String(port) };
  return startNode(join(__dirname, 'echo-server.js'), [], env, `http://127.0.0.1:${port}`, (out) => out.includes('listening'));
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

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Compared {
  readonly scenario: Result;
  readonly baseline: Result;
  readonly ratio: number;
}

/** Alternates baseline and scenario runs and keeps the medians: both see the same machine state. */
async function compare(baseline: () => Promise<Result>, scenario: () => Promise<Result>): Promise<Compared> {
  const runs: Array<{ b: Result; s: Result }> = [];
  for (let round = 0; round < ROUNDS; round++) runs.push({ b: await baseline(), s: await scenario() });
  const pick = (results: Result[]): Result => ({
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    errors: results.reduce((n, r) => n + r.errors, 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
  });
  return { scenario: pick(runs.map((r) => r.s)), baseline: pick(runs.map((r) => r.b)), ratio: median(runs.map((r) => r.s.rps / r.b.rps)) };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const vault = await startVault(dataDir);
  await new Promise((r) => setTimeout(r, 500));
  const echo = await startEcho();
  try {
    const ctx = context(vault.url);
    const runs: Array<{ scenario: Scenario; key: string }> = [];
    for (const suite of SUITES) runs.push(...(await suite.prepare(ctx)));
    process.stdout.write(`svc bench: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 1024 ** 3)} GiB, node ${process.version}, ${new Date().toISOString()}\n`);
    process.stdout.write(`${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s (baseline, scenario); medians; server logs at ${process.env.SVC_LOG_LEVEL ?? 'warn'}\n\n`);
    const rows: string[] = [
      '| scenario | req/s | tokens/s | p50 ms | p99 ms | baseline req/s | ratio | errors/non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const { scenario, key } of runs) {
      const body = scenario.baseline === 'POST' ? scenario.body : undefined;
      const { scenario: result, baseline: base, ratio } = await compare(
        () => measure(`${echo.url}/echo`, scenario.baseline, undefined, body),
        () => measure(`${vault.url}${scenario.path}`, scenario.method, key, scenario.body, scenario.contentType),
      );
      const tokens = scenario.path.startsWith('/applications') ? '' : fmt(result.rps * (scenario.tokensPerRequest ?? 1));
      const row = `| ${scenario.name} | ${fmt(result.rps)} | ${tokens} | ${result.p50} | ${result.p99} | ${fmt(base.rps)} | ${fmt(ratio * 100)}% | ${result.errors}/${result.non2xx} |`;
      rows.push(row);
      process.stdout.write(`${row}\n`);
    }
    process.stdout.write(`\n${rows.join('\n')}\n`);
    if (process.env.BENCH_SEARCH !== '0') await searchPhase(echo);
  } finally {
    await Promise.all([vault.stop(), echo.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Search scenarios on a store of BENCH_TOKENS tokens (default 1,000,000), loaded once into bench-data/. */
async function searchPhase(echo: Child): Promise<void> {
  const count = Number(process.env.BENCH_TOKENS ?? 1_000_000);
  const dataset = await prepareSearchDataset(resolve(process.env.BENCH_DATA ?? 'bench-data'), count, (line) =>
    process.stdout.write(`${line}\n`),
  );
  const vault = await startVault(dataset.dataDir, dataset.bootstrapKey);
  try {
    const rows = [
      `${count.toLocaleString('en-US')} tokens in SQLite`,
      '| scenario | total (expected) | req/s | p50 ms | p99 ms | baseline req/s | ratio | errors/non-2xx |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const scenario of searchScenarios(dataset)) {
      const body = JSON.stringify({ query: scenario.query, size: 20 });
      const check = await fetch(`${vault.url}/tokens/search`, {
        method: 'POST',
        headers: { 'SVC-API-KEY': dataset.searchKey, 'Content-Type': 'application/json' },
        body,
      });
      const total = ((await check.json()) as { pagination: { total_items: number } }).pagination.total_items;
      if (total !== scenario.expectedTotal) throw new Error(`${scenario.name}: total ${total}, expected ${scenario.expectedTotal}`);
      const { scenario: result, baseline: base, ratio } = await compare(
        () => measure(`${echo.url}/echo`, 'POST', undefined, body),
        () => measure(`${vault.url}/tokens/search`, 'POST', dataset.searchKey, body),
      );
      const row = `| ${scenario.name} | ${total} (${scenario.expectedTotal}) | ${fmt(result.rps)} | ${result.p50} | ${result.p99} | ${fmt(base.rps)} | ${fmt(ratio * 100)}% | ${result.errors}/${result.non2xx} |`;
      rows.push(row);
      process.stdout.write(`${row}\n`);
    }
    process.stdout.write(`\n${rows.join('\n')}\n`);
  } finally {
    await vault.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
