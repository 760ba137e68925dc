import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Actor, Bootstrap, Clock, CreateTokenInput, Store } from '@svc/core';
import { loadConfig } from '../src/config/load-config';
import { type ApplicationUseCases, buildContainer, type TokenUseCases } from '../src/container';
import { ProgressLine } from '../src/progress';
import { TOKENS } from '../src/tokens';
import { luhnComplete } from './scenarios';

/** The dataset the search scenarios run on; rebuilt when the recipe changes. */
export interface SearchDataset {
  readonly version: number;
  readonly count: number;
  readonly dataDir: string;
  readonly bootstrapKey: string;
  /** A private key with token:search, token:read and token:use. */
  readonly searchKey: string;
  /** An SSN present exactly once, and the size of one customer's group. */
  readonly knownSsn: string;
  readonly knownCustomer: string;
}

const VERSION = 2;
const START = Date.UTC(2025, 0, 1);
const SPAN_MS = 365 * 86_400_000;
/** Tokens per POST /tokenize call of the loader (the bench's bulk size), and calls in flight at once. */
const PER_CALL = 100;
const IN_FLIGHT = 20;
export const CUSTOMERS = 50_000;
export const PLANS = ['gold', 'silver', 'bronze'] as const;

/**
 * When token i of `count` was created: the tokens of one tokenize call share its clock reading, and the calls are
 * spread evenly over 2025. The search scenarios compute their expected totals from this.
 */
export function createdAtOf(i: number, count: number): number {
  const call = i - (i % PER_CALL);
  return START + Math.floor((call * SPAN_MS) / count);
}

/** A clock the loader sets before each tokenize call, spreading created_at evenly over 2025. */
class SimulatedClock implements Clock {
  current = START;

  now(): Date {
    return new Date(this.current);
  }
}

const ssnOf = (i: number): string => {
  const digits = String(100_000_000 + ((i * 7_919) % 899_999_999)).padStart(9, '0');
  return `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`;
};

/** Token i of the dataset: 40% SSN, 30% card numbers, 20% generic tokens, 10% EINs; every one with metadata. */
export function datasetToken(i: number): CreateTokenInput {
  const metadata = { customer_id: `c${i % CUSTOMERS}`, plan: PLANS[i % 3]! };
  const kind = i % 10;
  if (kind < 4) return { type: 'social_security_number', data: ssnOf(i), metadata };
  if (kind < 7) return { type: 'card_number', data: luhnComplete(`4${String(i).padStart(14, '0')}`), metadata };
  if (kind < 9) return { type: 'token', data: { note: `note ${i}` }, metadata, containers: ['/general/low/'] };
  const digits = String(100_000_000 + i).slice(-9);
  return { type: 'employer_id_number', data: `${digits.slice(0, 2)}-${digits.slice(2)}`, metadata };
}

/**
 * Loads `count` tokens through the bulk path (the tokenize use case behind POST /tokenize, 100 tokens per call, with
 * the audit log's events and the webhook outbox as in production; not over HTTP) into `root/<count>/`, reusing an
 * existing dataset of the same recipe and size.
 */
export async function prepareSearchDataset(root: string, count: number, log: (line: string) => void): Promise<SearchDataset> {
  const home = join(root, String(count));
  const manifest = join(home, 'dataset.json');
  if (existsSync(manifest)) {
    const existing = JSON.parse(readFileSync(manifest, 'utf8')) as SearchDataset;
    if (existing.version === VERSION && existing.count === count) return existing;
  }
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const dataDir = join(home, 'data');
  const bootstrapKey = 'key_mgt_bench-search-bootstrap-key';
  const clock = new SimulatedClock();
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_BOOTSTRAP_API_KEY: bootstrapKey });
  const container = buildContainer(config, { clock });
  const store = container.resolve<Store>(TOKENS.Store);
  const tenant = await container.resolve<Bootstrap>(TOKENS.Bootstrap).execute({ ownerEmail: config.ownerEmail, managementKey: bootstrapKey });
  if (!tenant) throw new Error('the dataset store was not empty');
  const app = await container.resolve<ApplicationUseCases>(TOKENS.ApplicationUseCases).create.create(tenant.tenant.id, undefined, {
    name: 'bench search',
    type: 'private',
    permissions: ['token:create', 'token:search', 'token:read', 'token:use'],
  });
  const actor: Actor = {
    tenantId: tenant.tenant.id,
    kind: 'application',
    applicationId: app.application.id,
    applicationType: 'private',
    permissions: app.application.permissions,
    rules: [],
    authorized: true,
  };
  const tokenize = container.resolve<TokenUseCases>(TOKENS.TokenUseCases).tokenize;
  const started = Date.now();
  // On a terminal a progress line replaces the periodic log lines; piped output (CI, a log file) keeps the lines.
  const line = new ProgressLine('loading the search dataset', 'tokens');
  let next = 0;
  let loaded = 0;
  let logged = 0;
  // IN_FLIGHT calls at a time, as concurrent POST /tokenize requests would be; each reads the clock when it starts.
  const worker = async (): Promise<void> => {
    while (next < count) {
      const from = next;
      next = Math.min(count, from + PER_CALL);
      const items = [];
      for (let i = from; i < next; i++) items.push({ path: `[${i - from}]`, input: datasetToken(i) });
      clock.current = createdAtOf(from, count);
      await tokenize.execute(actor, items);
      loaded += items.length;
      line.update(loaded, count);
      if (!line.active && loaded - logged >= 100_000) {
        logged = loaded;
        log(`loaded ${loaded} tokens in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  line.done();
  await store.close();
  const known = Math.min(123_450, Math.floor(count / 20) * 10);
  const dataset: SearchDataset = {
    version: VERSION,
    count,
    dataDir,
    bootstrapKey,
    searchKey: app.key,
    knownSsn: ssnOf(known),
    knownCustomer: `c${4_242 % CUSTOMERS}`,
  };
  writeFileSync(manifest, JSON.stringify(dataset, null, 2));
  log(`loaded ${count} tokens in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return dataset;
}

if (require.main === module) {
  const count = Number(process.env.BENCH_TOKENS ?? 1_000_000);
  prepareSearchDataset(process.env.BENCH_DATA ?? join(process.cwd(), 'bench-data'), count, (l) => process.stdout.write(`${l}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
