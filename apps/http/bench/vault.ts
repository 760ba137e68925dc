import { join } from 'node:path';
import { SERVE_NODE_FLAGS } from '../src/bin/node-flags';
import { type Child, freePort, startNode } from './processes';

/** The management key the benchmarks bootstrap a fresh data dir with. */
export const BOOTSTRAP_KEY = 'key_mgt_bench-bootstrap-key-not-for-production';

/** How the vault process is launched, when not as the built benchmarks launch it. */
export interface VaultLaunch {
  /** The `svc` script to run (default: the built one beside the compiled benchmarks). */
  readonly script?: string;
  /** Node flags after {@link SERVE_NODE_FLAGS}, for a measuring harness only (the product is served with those). */
  readonly extraNodeFlags?: readonly string[];
}

/**
 * Starts the real `svc serve` on `dataDir` (SQLite) on a free loopback port, with the Node flags it is served with
 * everywhere, logging at SVC_LOG_LEVEL (default warn), with its metrics on when SVC_METRICS is set here; `extraEnv`
 * is added last. Resolves once it answers HTTP.
 */
export async function startVault(
  dataDir: string,
  bootstrapKey = BOOTSTRAP_KEY,
  extraEnv: Record<string, string> = {},
  launch: VaultLaunch = {},
): Promise<Child> {
  const port = await freePort();
  const script = launch.script ?? join(__dirname, '..', 'src', 'bin', 'svc.js');
  const env = {
    PATH: process.env.PATH,
    SVC_PORT: String(port),
    SVC_DATA_DIR: dataDir,
    SVC_BOOTSTRAP_API_KEY: bootstrapKey,
    SVC_LOG_LEVEL: process.env.SVC_LOG_LEVEL ?? 'warn',
    // SVC_METRICS=1 measures the vault with GET /metrics on (issue 15: within 5% of off).
    ...(process.env.SVC_METRICS ? { SVC_METRICS: process.env.SVC_METRICS } : {}),
    ...extraEnv,
  };
  const url = `http://127.0.0.1:${port}`;
  // The vault logs at warn here, so readiness is polled over HTTP rather than read from its output.
  const child = await startNode(script, ['serve'], env, url, () => true, [...SERVE_NODE_FLAGS, ...(launch.extraNodeFlags ?? [])]);
  // Up to 30 s: a loaded machine (a test run beside other suites) can take that long to open the store.
  for (let i = 0; i < 300; i++) {
    if ((await fetch(`${url}/applications/key`).catch(() => undefined))?.status === 401) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  await child.stop();
  throw new Error('the vault did not answer');
}
