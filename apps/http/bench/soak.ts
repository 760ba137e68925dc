import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { clock, soakChecks, soakWindows } from './soak-checks';
import { allOperations, OPERATIONS, requestsIn, requestsOf, sumTallies, type Tally } from './soak-counts';
import { BULK_SIZE, MIX, SoakLoad, type SoakSample } from './soak-driver';
import { BOOTSTRAP_KEY, startVault } from './vault';

/**
 * `npm run soak` (issue 17.3): the real `svc serve` on a fresh SQLite data dir, audit log and metrics on, under the
 * soak's mixed load (soak-driver.ts) at SOAK_CONNECTIONS (default 10) for SOAK_MINUTES (default 30). Every 10 s it
 * prints the throughput per operation, the failures, the server's RSS and heap and the store's size; at the end a
 * table per minute and the targets' checks. Exits non-zero when a target is missed.
 */
const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 10);
const SAMPLE_SECONDS = 10;

const fmt = (n: number | undefined, digits = 0): string =>
  n === undefined || !Number.isFinite(n) ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mb = (bytes: number | undefined): string => fmt(bytes === undefined ? undefined : bytes / 1024 ** 2);

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown (no git)';
  }
}

/** Samples merged into one row: counts added, p99 the highest, memory and store as at the last. */
interface Row {
  readonly label: string;
  readonly seconds: number;
  readonly counts: Tally;
  readonly p99Ms: number;
  readonly last: SoakSample;
}

function merge(label: string, samples: readonly SoakSample[]): Row {
  return {
    label,
    seconds: samples.reduce((n, s) => n + s.seconds, 0),
    counts: sumTallies(samples.map((s) => s.counts)),
    p99Ms: Math.max(...samples.map((s) => s.p99Ms).filter(Number.isFinite)),
    last: samples.at(-1)!,
  };
}

const HEADER = [
  `| at | req/s | ${OPERATIONS.join(' | ')} | p99 ms | 5xx | non-2xx | errors | RSS MB | RssAnon MB | heap MB | store MB |`,
  `|---|---:|${OPERATIONS.map(() => '---:|').join('')}---:|---:|---:|---:|---:|---:|---:|---:|`,
];

/** A table row; `memory` false leaves the memory and store columns empty (a row of totals). */
function line(row: Row, memory = true): string {
  const perSecond = (n: number): string => fmt(n / row.seconds);
  const all = allOperations(row.counts);
  const { last } = row;
  return `| ${row.label} | ${perSecond(requestsIn(row.counts))} | ${OPERATIONS.map((op) => perSecond(requestsOf(row.counts[op]))).join(' | ')} | ${fmt(row.p99Ms, 1)} | ${all.status5xx} | ${all.non2xx} | ${all.errors} | ${memory ? [last.rssBytes, last.rssAnonBytes, last.heapUsedBytes, last.storeBytes].map(mb).join(' | ') : ' |  |  | '} |`;
}

async function main(): Promise<void> {
  if (!(MINUTES > 0) || !Number.isInteger(CONNECTIONS) || CONNECTIONS < 1) {
    throw new Error(`SOAK_MINUTES must be a positive number and SOAK_CONNECTIONS a positive integer (got '${process.env.SOAK_MINUTES}', '${process.env.SOAK_CONNECTIONS}')`);
  }
  const out = (text = ''): boolean => process.stdout.write(`${text}\n`);
  const windows = soakWindows(MINUTES);
  const turn = OPERATIONS.map((op) => `${MIX.filter((m) => m === op).length} ${op}`).join(', ');
  out(`svc soak: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${fmt(totalmem() / 1024 ** 3)} GiB, node ${process.version}, commit ${commit()}, ${new Date().toISOString()}`);
  out(`${MINUTES} min at ${CONNECTIONS} connections, metrics and audit log on, server logs at ${process.env.SVC_LOG_LEVEL ?? 'warn'}; each turn of ${MIX.length} requests: ${turn} (bulk ${BULK_SIZE} tokens a request)`);
  out(
    `windows: warm-up to ${clock(windows.warmUpEnd)}, throughput ${clock(windows.final[0])}–${clock(windows.final[1])} against ${clock(windows.reference[0])}–${clock(windows.reference[1])}` +
      `${windows.scaled ? ' (under 15 minutes: thirds of the run)' : ''}; RSS: the highest sample after warm-up against the sample at ${clock(windows.warmUpEnd)}`,
  );
  out();

  const dataDir = mkdtempSync(join(tmpdir(), 'svc-soak-'));
  const vault = await startVault(dataDir, BOOTSTRAP_KEY, { SVC_METRICS: '1' });
  let failed = true;
  try {
    const load = await SoakLoad.prepare({ url: vault.url, managementKey: BOOTSTRAP_KEY, pid: vault.process.pid, metrics: true, dataDir }, CONNECTIONS);
    out(HEADER.join('\n'));
    const run = await load.run({
      durationMs: MINUTES * 60_000,
      sampleIntervalMs: SAMPLE_SECONDS * 1000,
      onSample: (s) => out(line(merge(clock(s.atSeconds), [s]))),
    });
    load.close();

    const minutes = new Map<number, SoakSample[]>();
    for (const s of run.samples) {
      const minute = Math.max(1, Math.ceil((s.atSeconds - s.seconds / 2) / 60));
      minutes.set(minute, [...(minutes.get(minute) ?? []), s]);
    }
    out();
    out('per minute (p99: the highest 10-second p99 of the minute; memory and store: at the minute\'s last sample)');
    out(HEADER.join('\n').replace('| at |', '| minute |'));
    for (const [minute, samples] of minutes) out(line(merge(String(minute), samples)));
    out(line(merge('all', run.samples), false));

    const all = allOperations(run.totals);
    out();
    out(`${fmt(requestsIn(run.totals))} requests in ${fmt(run.seconds, 1)} s: ${fmt(all.ok)} as expected, ${all.status5xx} 5xx, ${all.non2xx} non-2xx, ${all.errors} errors`);
    for (const failure of run.failures) out(`  ${failure}`);
    const checks = soakChecks(run.samples, run.totals, MINUTES);
    for (const check of checks) out(`${check.passed ? 'PASS' : 'FAIL'} ${check.name}: ${check.detail}`);
    failed = checks.some((c) => !c.passed);
  } finally {
    await vault.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
