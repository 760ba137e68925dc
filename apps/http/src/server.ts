import {
  createServer,
  type IncomingMessage,
  maxHeaderSize,
  type RequestListener,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Bootstrap, ProvisionedTenant, Sweep } from '@svc/core';
import type { DependencyContainer } from 'tsyringe';
import type { Config } from './config/config';
import { type ContainerOverrides, createContainer, openStore } from './container';
import { createApp } from './http/app';
import { HTTP_PROBLEMS, type Problem } from './http/problem';
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
    private readonly logger: Logger,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res, app));
    server.on('connection', (socket: Socket) => {
      this.open.set(socket, new Set());
      socket.once('close', () => this.open.delete(socket));
    });
    server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => this.clientError(error, socket));
    // Node destroys a CONNECT it has no listener for without a word; this server is not a proxy.
    server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
      answerAndClose(socket, { ...HTTP_PROBLEMS.notImplemented, detail: 'This server is not a proxy: CONNECT is not implemented.' }),
    );
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

  /**
   * A request Node's HTTP parser refused (or a request that timed out) is answered with problem+json and its
   * connection closed; a broken connection (ECONNRESET…) is just destroyed. Neither the request's bytes nor its
   * header values ever reach the response or the logs: they may hold API keys.
   */
  private clientError(error: Error & { code?: string }, socket: Duplex): void {
    if (answered.has(socket)) return;
    answered.add(socket);
    const problem = parserProblem(error.code ?? '');
    if (!problem || !socket.writable) {
      socket.destroy();
      return;
    }
    this.logger.info('client error', { code: error.code, status: problem.status });
    const pending = [...(this.open.get(socket) ?? [])];
    // Requests received whole before the broken one (pipelined) are answered first, in order, and the connection
    // closes after them; the broken one goes unanswered, which tells the client it was not processed.
    const earlier = pending.filter((res) => res.req.complete);
    if (earlier.length > 0) {
      for (const res of earlier) if (!res.headersSent) res.setHeader('Connection', 'close');
      let left = earlier.length;
      for (const res of earlier) res.once('close', () => --left === 0 && socket.destroy());
      return;
    }
    // The broken request's own response may have begun (its body failed to parse): answer only if nothing went out.
    if (pending.some((res) => res.headersSent)) socket.destroy();
    else answerAndClose(socket, problem);
  }
}

/** Sockets already handled for a parser error: the parser reports the error again for every later chunk. */
const answered = new WeakSet<Duplex>();

const MALFORMED: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: 'The request line is malformed or names a method this server does not know.',
  HPE_INVALID_CONSTANT: 'The request line must be a method, a space, the request target, a space and HTTP/1.1.',
  HPE_INVALID_URL: 'The request target is not valid.',
  HPE_INVALID_VERSION: 'The request line must end with the HTTP version (HTTP/1.1) and CRLF.',
  HPE_CR_EXPECTED: 'Every line of the request head must end with CRLF.',
  HPE_LF_EXPECTED: 'Every line of the request head must end with CRLF.',
  HPE_INVALID_HEADER_TOKEN:
    'A header field is malformed: a character HTTP does not allow, a space before the colon, or an obsolete folded line.',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length must be one decimal number and cannot come with Transfer-Encoding.',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length must be one decimal number and cannot come with Transfer-Encoding.',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding must end with chunked.',
  HPE_INVALID_CHUNK_SIZE: 'A chunk size of the request body is not valid.',
};

/** The problem for an error code of Node's HTTP server; undefined for a broken connection (nothing to answer). */
function parserProblem(code: string): Problem | undefined {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { ...HTTP_PROBLEMS.headersTooLarge, detail: `The request line and header fields exceed ${maxHeaderSize} bytes.` };
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    return { ...HTTP_PROBLEMS.payloadTooLarge, detail: 'The chunk extensions of the request body are too large.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { ...HTTP_PROBLEMS.requestTimeout, detail: 'The request did not arrive in time.' };
  if (!code.startsWith('HPE_')) return undefined;
  return { ...HTTP_PROBLEMS.malformedRequest, detail: MALFORMED[code] ?? 'The request is not well-formed HTTP/1.1.' };
}

/**
 * Writes one complete response on a socket no response was written to, then closes it. The socket stays open
 * for reading a moment (at most a second) so that bytes the client is still sending do not turn the close into a
 * reset that would discard the answer before the client reads it.
 */
function answerAndClose(socket: Duplex, problem: Problem): void {
  const body = JSON.stringify(problem);
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  const linger = setTimeout(() => socket.destroy(), 1_000);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
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
    connections = new Connections(createServer(), createApp(container), logger);
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
