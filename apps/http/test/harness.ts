import 'reflect-metadata';
import type { AuditRecorder, CreateTenant, DeliverWebhooks, DeliveryRun, ProvisionedTenant, Sweep, SweepReport } from '@svc/core';
import type { DependencyContainer } from 'tsyringe';
import { createMemoryStore } from '@svc/memory';
import { openMongoStore } from '@svc/mongo';
import { openSqliteStore } from '@svc/sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostResolver, Store } from '@svc/core';
import { FixedClock, RecordingMailer } from '@svc/core/testing';
import type { Mailer } from '@svc/core';
import request from 'supertest';
import type { Express } from 'express';
import { loadConfig } from '../src/config/load-config';
import { type AuditLogUseCases, buildContainer } from '../src/container';
import { createApp } from '../src/http/app';
import { Logger } from '../src/logger';
import { TOKENS } from '../src/tokens';

export interface Harness {
  readonly app: Express;
  readonly clock: FixedClock;
  /** The management key of the first tenant. */
  readonly key: string;
  readonly tenant: ProvisionedTenant;
  readonly logLines: string[];
  readonly mailer: RecordingMailer;
  /** The store under the app, for tests that check what a request did or did not change. */
  readonly store: Store;
  createTenant(name?: string): Promise<ProvisionedTenant>;
  /** One run of the sweeper `svc serve` runs on a timer. */
  sweep(): Promise<SweepReport>;
  /** Writes the batched audit events (reads, refusals, failures) and chains every event, as `svc serve` does on timers. */
  settleAudit(): Promise<void>;
  /** One run of the webhook dispatcher `svc serve` runs on a timer. */
  deliver(): Promise<DeliveryRun>;
  /** The container, for tests that need another port or use case. */
  readonly container: DependencyContainer;
}

/**
 * The HTTP tests look no webhook host name up in DNS (slow or absent where tests run): every name is unresolved, which
 * create and update accept (each delivery resolves and checks it again). webhooks.test.ts gives names addresses.
 */
const NO_NAMES: HostResolver = { resolve: async () => ({ kind: 'unresolved' }) };

/** A resolver that knows only these names (each to its addresses); every other name does not resolve. */
export const resolving = (names: Readonly<Record<string, readonly string[]>>): HostResolver => ({
  resolve: async (hostname) => (names[hostname] ? { kind: 'resolved', addresses: [...names[hostname]!] } : { kind: 'unresolved' }),
});

/** How to close and remove each SQLite file the harnesses of the running test file opened. */
const opened: Array<() => Promise<void>> = [];

/**
 * The store HTTP tests run on: memory; a fresh MongoDB database when SVC_TEST_STORE=mongo and MONGODB_URI are set
 * (TTL indexes off: the fixed clock lives in the past of the server's own clock); or, with SVC_TEST_STORE=sqlite, a
 * fresh SQLite file opened as `svc serve` opens it (exclusive, so API keys are remembered in memory).
 */
async function testStore(): Promise<Store> {
  const uri = process.env.MONGODB_URI;
  if (process.env.SVC_TEST_STORE === 'mongo' && uri) {
    return openMongoStore({ uri, dbName: `svc_http_${randomBytes(6).toString('hex')}`, ttlIndexes: false });
  }
  if (process.env.SVC_TEST_STORE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-http-'));
    const store = openSqliteStore({ file: join(dir, 'svc.db'), exclusive: true });
    opened.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return store;
  }
  return createMemoryStore();
}

/** Closes the files the harnesses of one test file opened (test/close-stores.ts runs it after each file). */
export async function closeHarnessStores(): Promise<void> {
  await Promise.all(opened.splice(0).map((close) => close()));
}

/** The real Express app over the test store, a fixed clock and one provisioned tenant. */
export async function harness(env: Record<string, string> = {}, mailer?: Mailer, resolver: HostResolver = NO_NAMES): Promise<Harness> {
  const clock = new FixedClock('2026-01-01T00:00:00.000Z');
  const logLines: string[] = [];
  const recording = new RecordingMailer();
  const config = loadConfig({ SVC_STORE: 'memory', SVC_LOG_LEVEL: 'debug', SVC_PUBLIC_URL: 'https://vault.example.com', ...env });
  const store = await testStore();
  const container = buildContainer(config, {
    store,
    clock,
    logger: new Logger('debug', (line) => logLines.push(line)),
    mailer: mailer ?? recording,
    resolver,
  });
  const createTenant = (name = 'Acme'): Promise<ProvisionedTenant> =>
    container.resolve<CreateTenant>(TOKENS.CreateTenant).execute({ name, ownerEmail: `owner@${name.toLowerCase()}.test` });
  const tenant = await createTenant();
  const settleAudit = async (): Promise<void> => {
    await container.resolve<AuditRecorder>(TOKENS.AuditRecorder).flush();
    await container.resolve<AuditLogUseCases>(TOKENS.AuditLogUseCases).chain.execute();
  };
  return {
    app: createApp(container),
    clock,
    key: tenant.management.key,
    tenant,
    logLines,
    mailer: recording,
    store,
    createTenant,
    sweep: () => container.resolve<Sweep>(TOKENS.Sweep).execute(),
    settleAudit,
    deliver: () => container.resolve<DeliverWebhooks>(TOKENS.DeliverWebhooks).execute(),
    container,
  };
}

/** A supertest request with the key in SVC-API-KEY. */
export function as(app: Express, key: string) {
  const agent = request(app);
  return {
    get: (url: string) => agent.get(url).set('SVC-API-KEY', key),
    post: (url: string) => agent.post(url).set('SVC-API-KEY', key),
    put: (url: string) => agent.put(url).set('SVC-API-KEY', key),
    patch: (url: string) => agent.patch(url).set('SVC-API-KEY', key),
    delete: (url: string) => agent.delete(url).set('SVC-API-KEY', key),
  };
}

/** Creates an application in the harness tenant and returns its key. */
export async function applicationKey(h: Harness, body: object): Promise<string> {
  const res = await as(h.app, h.key).post('/applications').send(body);
  if (res.status !== 201) throw new Error(`application create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key as string;
}

/** A private application with plain permissions. */
export const privateKey = (h: Harness, ...permissions: string[]): Promise<string> =>
  applicationKey(h, { name: 'private', type: 'private', permissions });

/** An app listening on 127.0.0.1, for clients that need a URL (Basis Theory's SDK, raw sockets). */
export async function listening(app: Express): Promise<{ readonly url: string; readonly port: number; close(): Promise<void> }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
