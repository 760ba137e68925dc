import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Bootstrap, ProvisionedTenant, Sweep } from '@svc/core';
import type { DependencyContainer } from 'tsyringe';
import type { Config } from './config/config';
import { type ContainerOverrides, createContainer, openStore } from './container';
import { createApp } from './http/app';
import { HTTP_PROBLEMS } from './http/problem';
import type { Logger } from './logger';
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

/** Runs the sweep every interval; the returned stop waits for a sweep under way, so the store can close after it. */
function startSweeper(sweep: Sweep, intervalMs: number, logger: Logger): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= sweep
      .execute()
      .then((report) => logger.debug('sweep', { ...report }))
      .catch((error: unknown) => logger.error('sweep failed', { error: error instanceof Error ? error.name : 'unknown' }))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

function listen(server: Server, config: Config): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve(server.address() as AddressInfo));
  });
}

/**
 * The server's connections, each with its responses not yet finished, so that a shutdown can drain them: stop
 * listening, close idle keep-alive connections at once, let every response in progress finish with
 * `Connection: close` (Node then closes its connection), answer requests that arrive meanwhile with a 503, and close
 * a connection whose last response went out before the drain began as soon as that response is done.
 */
class Connections {
  private readonly open = new Map<Duplex, Set<ServerResponse>>();
  private draining = false;

  constructor(
    readonly server: Server,
    app: RequestListener,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res, app));
    server.on('connection', (socket: Socket) => {
      this.open.set(socket, new Set());
      socket.once('close', () => this.open.delete(socket));
    });
  }

  /** Tracks the response, then hands the request to the app, or refuses it while draining. */
  private handle(req: IncomingMessage, res: ServerResponse, app: RequestListener): void {
    const pending = this.open.get(req.socket);
    pending?.add(res);
    // During the drain a connection turns idle when its response is done (one that went out with keep-alive
    // before the drain) or when the body of a request answered early has arrived: close it then.
    const closeIfIdle = (): void => {
      if (this.draining && pending?.size === 0) this.server.closeIdleConnections();
    };
    res.once('close', () => {
      pending?.delete(res);
      closeIfIdle();
    });
    req.once('end', closeIfIdle);
    if (this.draining) refuse(res);
    else app(req, res);
  }

  /** Starts the drain; resolves once every connection has closed. */
  async drain(): Promise<void> {
    this.draining = true;
    for (const pending of this.open.values()) {
      for (const res of pending) if (!res.headersSent) res.setHeader('Connection', 'close');
    }
    // One turn of the event loop first: requests already received but not yet read (the loop was busy) are read
    // and get a 503 that says they were not processed, rather than a reset when their connection is closed as idle.
    await new Promise((resolve) => setImmediate(resolve));
    // close() stops listening and closes the idle connections; its callback runs once the last connection closed.
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Destroys every connection still open; returns how many there were and how many responses they cut short. */
  destroyAll(): { readonly connections: number; readonly responses: number } {
    const connections = this.open.size;
    let responses = 0;
    for (const [socket, pending] of this.open) {
      responses += pending.size;
      socket.destroy();
    }
    return { connections, responses };
  }
}

/** A request that arrives during the drain was not processed: a client may send it again, to another instance. */
function refuse(res: ServerResponse): void {
  const body = JSON.stringify({ ...HTTP_PROBLEMS.unavailable, detail: 'The server is shutting down; the request was not processed.' });
  res.writeHead(503, {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    Connection: 'close',
  });
  res.end(body);
}

/** Opens the store, bootstraps an empty one, starts the sweeper and serves the API. */
export async function startServer(
  config: Config,
  overrides: ContainerOverrides = {},
  print: (text: string) => void = (text) => process.stdout.write(`${text}\n`),
): Promise<RunningServer> {
  const store = overrides.store ?? (await openStore(config, { exclusive: true }));
  let stopSweeper = async (): Promise<void> => undefined;
  let container: DependencyContainer, logger: Logger, connections: Connections, url: string;
  try {
    container = await createContainer(config, { ...overrides, store });
    logger = container.resolve<Logger>(TOKENS.Logger);
    container.resolve<Buffer>(TOKENS.MasterKey);
    const bootstrapped = await container
      .resolve<Bootstrap>(TOKENS.Bootstrap)
      .execute({ ownerEmail: config.ownerEmail, managementKey: config.bootstrapApiKey });
    if (bootstrapped) print(bootstrapBanner(bootstrapped, config.bootstrapApiKey !== undefined));
    stopSweeper = startSweeper(container.resolve<Sweep>(TOKENS.Sweep), config.sweepIntervalMs, logger);
    connections = new Connections(createServer(), createApp(container));
    connections.server.keepAliveTimeout = 65_000;
    const address = await listen(connections.server, config);
    url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    logger.info('listening', { url, store: config.store });
  } catch (error) {
    // A start that fails (a wrong master key, a taken port) leaves nothing running and releases the store's claim.
    await stopSweeper();
    if (!overrides.store) await store.close().catch(() => undefined);
    throw error;
  }
  let closing: Promise<Shutdown> | undefined;
  const shutdown = async ({ deadlineMs }: ShutdownOptions): Promise<Shutdown> => {
    let forced = false;
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
    await stopSweeper();
    await store.close();
    return { forced };
  };
  return { url, container, close: (options = {}) => (closing ??= shutdown(options)) };
}
