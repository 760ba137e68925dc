import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { AuditRecorder, Bootstrap, DeliverWebhooks, ProvisionedTenant, Store, Sweep } from '@svc/core';
import type { DependencyContainer } from 'tsyringe';
import { type Config, ConfigError } from './config/config';
import { type AuditLogUseCases, type ContainerOverrides, createContainer, openStore } from './container';
import { createApp } from './http/app';
import { Connections } from './http/connections';
import { Logger } from './logger';
import type { Readiness } from './http/operations';
import type { Metrics } from './metrics';
import { TOKENS } from './tokens';

export interface ShutdownOptions {
  /**
   * Milliseconds to wait for responses in progress. Past it the connections still open are destroyed (their
   * responses are cut short), the reason is logged, and the store is closed anyway. Default: wait as long as it takes.
   */
  readonly deadlineMs?: number;
}

export interface Shutdown {
  /** True when the deadline passed and connections still open were destroyed. */
  readonly forced: boolean;
}

export interface RunningServer {
  readonly url: string;
  readonly container: DependencyContainer;
  /**
   * Stops listening and drains: idle keep-alive connections close at once, responses in progress finish with
   * `Connection: close`, requests that arrive meanwhile get a 503; then the sweeper stops and the store closes.
   */
  close(options?: ShutdownOptions): Promise<Shutdown>;
}

/** The first-run banner: the only place a generated management key is ever shown. */
export function bootstrapBanner(result: ProvisionedTenant, presetKey: boolean): string {
  const lines = [
    '',
    `svc: first start: created tenant "${result.tenant.name}" (${result.tenant.id})`,
    `     owner: ${result.owner.user.email}; management application: ${result.management.application.id}`,
    presetKey
      ? '     management key: the value of SVC_BOOTSTRAP_API_KEY'
      : `     management key (shown once, store it now): ${result.management.key}`,
    '     use it in the SVC-API-KEY header, e.g. curl -H "SVC-API-KEY: <key>" <url>/applications/key',
    '',
  ];
  return lines.join('\n');
}

/**
 * Runs `task` every interval, one run at a time; the returned stop waits for a run under way, so the store can close
 * after it. A failed run is logged by the error's class only (never its message, which could quote a request).
 */
function startLoop(
  name: string,
  task: () => Promise<unknown>,
  intervalMs: number,
  logger: Logger,
  overlap = 1,
  metrics?: Metrics,
  patienceMs?: number,
): () => Promise<void> {
  const running = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (running.size >= overlap) return;
    const started = process.hrtime.bigint();
    const took = () => Number(process.hrtime.bigint() - started) / 1e9;
    const run: Promise<void> = task()
      .then((report) => {
        metrics?.backgroundRun(name, true, took());
        if (report !== undefined && typeof report === 'object') logger.debug(name, { ...report });
      })
      .catch((error: unknown) => {
        metrics?.backgroundRun(name, false, took());
        logger.error(`${name} failed`, { error: error instanceof Error ? error.name : 'unknown' });
      })
      .finally(() => running.delete(run));
    running.add(run);
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    const finished = Promise.all([...running]);
    if (patienceMs === undefined) {
      await finished;
      return;
    }
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([finished, new Promise<void>((resolve) => (timeout = setTimeout(resolve, patienceMs)))]);
    clearTimeout(timeout);
  };
}

/**
 * Dispatcher runs that may be under way at once: a run waits for its slowest receiver (up to the 10 s timeout), and
 * the next one must not wait behind it. Each delivery is leased to one run, so runs never send one twice.
 */
const DELIVERY_RUNS = 4;

/** The chainer places committed audit events every 100 ms (ADR 4); the dispatcher looks for due deliveries as often. */
const CHAIN_INTERVAL_MS = 100;
const DELIVERY_INTERVAL_MS = 250;
/** How long a shutdown waits for webhook attempts under way once their runs are told to stop. */
const DELIVERY_PATIENCE_MS = 2_000;

/**
 * Binds the listening socket. An address this machine does not have, or a name that does not resolve, is a
 * configuration error naming SVC_HOST; a port in use names SVC_PORT.
 */
function listen(server: Server, config: Config): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${config.host}:${config.port}`;
      if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') reject(new ConfigError('SVC_HOST', `'${config.host}' does not resolve to an address (${error.code})`));
      else if (error.code === 'EADDRNOTAVAIL') reject(new ConfigError('SVC_HOST', `'${config.host}' is not an address of this machine (EADDRNOTAVAIL)`));
      else if (error.code === 'EADDRINUSE') reject(new Error(`cannot listen on ${where}: the port is in use (EADDRINUSE); set SVC_PORT to a free port or stop the other server`));
      else if (error.code === 'EACCES') reject(new ConfigError('SVC_PORT', `not allowed to listen on ${where} (EACCES)`));
      else reject(error);
    });
    server.listen(config.port, config.host, () => resolve(server.address() as AddressInfo));
  });
}

/**
 * Binds the socket first, then opens the store, checks its master key and bootstraps an empty one, then serves the
 * API and starts the sweeper. Binding first means a port in use or an address that is not there stops the start
 * before anything is created: the first-start banner (the only time a generated management key is shown) is printed
 * only by a server that is listening. Requests that arrive before the store is ready get a 503.
 */
export async function startServer(
  config: Config,
  overrides: ContainerOverrides = {},
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<RunningServer> {
  const logger = overrides.logger ?? new Logger(config.logLevel);
  // Connections answers a request without Host itself, as problem+json (Node's own 400 has no body).
  const connections = new Connections(createServer({ requireHostHeader: false }), logger);
  connections.server.keepAliveTimeout = 65_000;
  connections.server.maxConnections = config.maxConnections;
  let dropsLogged = 0;
  connections.server.on('drop', () => {
    // Once a minute at most: a flood of refused connections must not flood the log too.
    const now = Date.now();
    if (now - dropsLogged < 60_000) return;
    dropsLogged = now;
    logger.warn('connection refused: SVC_MAX_CONNECTIONS are open', { max_connections: config.maxConnections });
  });
  const address = await listen(connections.server, config);
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const stops: Array<() => Promise<void>> = [];
  const stopLoops = async (): Promise<void> => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
  };
  let store: Store | undefined = overrides.store;
  let container: DependencyContainer;
  try {
    store ??= await openStore(config, { exclusive: true });
    container = await createContainer(config, { ...overrides, store, logger }, { createMasterKey: true });
    const bootstrapped = await container
      .resolve<Bootstrap>(TOKENS.Bootstrap)
      .execute({ ownerEmail: config.ownerEmail, managementKey: config.bootstrapApiKey });
    if (bootstrapped) print(bootstrapBanner(bootstrapped, config.bootstrapApiKey !== undefined));
    const sweep = container.resolve<Sweep>(TOKENS.Sweep);
    const auditLog = container.resolve<AuditLogUseCases>(TOKENS.AuditLogUseCases);
    const deliver = container.resolve<DeliverWebhooks>(TOKENS.DeliverWebhooks);
    const metrics = config.metrics.enabled ? container.resolve<Metrics>(TOKENS.Metrics) : undefined;
    stops.push(
      startLoop('sweep', () => sweep.execute(), config.sweepIntervalMs, logger, 1, metrics),
      startLoop('audit chain', () => auditLog.chain.execute(), CHAIN_INTERVAL_MS, logger, 1, metrics),
      // On shutdown, runs stop attempting (see DeliverWebhooks.stop) and the store closes after at most
      // DELIVERY_PATIENCE_MS more: an attempt still waiting on its receiver then goes unrecorded, and its delivery is
      // sent again once its lease ends (delivery is at least once). Waiting for it held the exit up to 40 s.
      startLoop('webhook deliveries', () => deliver.execute(), DELIVERY_INTERVAL_MS, logger, DELIVERY_RUNS, metrics, DELIVERY_PATIENCE_MS),
    );
    connections.serve(createApp(container));
    logger.info('listening', { url, store: config.store });
    if (!config.smtpUrl && !overrides.mailer) {
      logger.warn('no SVC_SMTP_URL: invitation e-mails are written to the outbox directory, for development only', {
        outbox: join(config.dataDir, 'outbox'),
        note: 'each file holds a live invitation link until it is accepted, resent, deleted or expires; set SVC_SMTP_URL in production',
      });
    }
  } catch (error) {
    // A start that fails (a wrong master key, a store in use) leaves nothing running and releases the store's claim.
    await stopLoops();
    connections.destroyAll();
    await new Promise<void>((resolve) => connections.server.close(() => resolve()));
    if (!overrides.store) await store?.close().catch(() => undefined);
    throw error;
  }
  const opened = store;
  let closing: Promise<Shutdown> | undefined;
  const shutdown = async ({ deadlineMs }: ShutdownOptions): Promise<Shutdown> => {
    let forced = false;
    // Readiness goes first: /readyz answers 503 from here on, before any connection is drained.
    container.resolve<Readiness>(TOKENS.Readiness).stop();
    const deadline =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            forced = true;
            const cut = connections.destroyAll();
            logger.error('shutdown deadline passed: destroyed the connections still open', {
              deadline_ms: deadlineMs,
              connections: cut.connections,
              responses_cut_short: cut.responses,
            });
          }, deadlineMs);
    await connections.drain();
    clearTimeout(deadline);
    container.resolve<DeliverWebhooks>(TOKENS.DeliverWebhooks).stop();
    await stopLoops();
    // Events still batched are written, and placed in their chains, before the store closes.
    await container.resolve<AuditRecorder>(TOKENS.AuditRecorder).flush();
    await container.resolve<AuditLogUseCases>(TOKENS.AuditLogUseCases).chain.execute().catch((error: unknown) => {
      logger.error('audit chain failed', { error: error instanceof Error ? error.name : 'unknown' });
    });
    await opened.close();
    return { forced };
  };
  return { url, container, close: (options = {}) => (closing ??= shutdown(options)) };
}
