import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger';
import { answerAndClose, parserProblem } from './parser-errors';
import { HTTP_PROBLEMS, type Problem } from './problem';

/** How long a new connection may stay silent before its first request (see Connections). */
export const SILENT_CONNECTION_MS = 10_000;

/**
 * The server's connections, each with its responses not yet finished, so that a shutdown can drain them: stop
 * listening, close idle keep-alive connections at once, let every response in progress finish with
 * `Connection: close` (Node then closes its connection), answer requests that arrive meanwhile with a 503, and close
 * a connection whose last response went out before the drain began as soon as that response is done.
 */
export class Connections {
  private readonly open = new Map<Duplex, Set<ServerResponse>>();
  /**
   * Responses whose handler has not ended them yet. A client that hangs up closes its response early, but the
   * handler goes on (its write may be queued in the store): the drain waits for it too, so the store is never closed
   * under a request still at work.
   */
  private readonly working = new Set<ServerResponse>();
  private idleWaiters: Array<() => void> = [];
  private draining = false;

  /** The app, once the vault is ready; until then requests get a 503 (the socket is bound before the store opens). */
  private app: RequestListener | undefined;

  /** Connections that have begun a request: until then one is closed once silent for `silentMs`. */
  private readonly begun = new WeakSet<Duplex>();

  constructor(
    readonly server: Server,
    private readonly logger: Logger,
    /**
     * How long a connection may stay silent before its first request. Node times out a request begun and a
     * keep-alive connection between requests, but not a connection that never sends a byte: held open, such sockets
     * kept their place under SVC_MAX_CONNECTIONS for good, and refused everyone else, probes included.
     */
    silentMs = SILENT_CONNECTION_MS,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(req, res));
    server.on('connection', (socket: Socket) => {
      this.open.set(socket, new Set());
      socket.once('close', () => this.open.delete(socket));
      // Node's own timeout listener destroys the socket when it fires with no request to tell; the first request
      // clears it (handle), handing the connection to Node's timeouts (headers, request, keep-alive).
      socket.setTimeout(silentMs);
    });
    server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => this.clientError(error, socket));
    // Node answers an Expect other than 100-continue with a bare 417 unless someone listens; answer it as a problem.
    server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
      sendProblem(res, { ...HTTP_PROBLEMS.expectationFailed, detail: 'The only expectation this server meets is Expect: 100-continue.' }),
    );
    // Node destroys a CONNECT it has no listener for without a word; this server is not a proxy.
    server.on('connect', (_req: IncomingMessage, socket: Duplex) =>
      answerAndClose(socket, { ...HTTP_PROBLEMS.notImplemented, detail: 'This server is not a proxy: CONNECT is not implemented.' }),
    );
  }

  /** Hands requests to `app` from now on. */
  serve(app: RequestListener): void {
    this.app = app;
  }

  /** Tracks the response, then hands the request to the app, or refuses it while starting or draining. */
  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (!this.begun.has(req.socket)) {
      this.begun.add(req.socket);
      req.socket.setTimeout(0);
    }
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
    this.working.add(res);
    const end = res.end;
    res.end = ((...args: Parameters<typeof end>) => {
      this.settled(res);
      return end.apply(res, args);
    }) as typeof end;
    if (this.draining) refuse(res);
    // RFC 9112 §3.2: a 400 for an HTTP/1.1 request without Host (Node's own answer to it has no body; see server.ts).
    else if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      sendProblem(res, { ...HTTP_PROBLEMS.malformedRequest, detail: 'An HTTP/1.1 request must carry a Host header.' }, { Connection: 'close' });
    } else if (!this.app) sendProblem(res, { ...HTTP_PROBLEMS.unavailable, detail: 'The server is starting; the request was not processed.' }, { 'Retry-After': '1' });
    else this.app(req, res);
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
    if (this.working.size > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private settled(res: ServerResponse): void {
    if (!this.working.delete(res) || this.working.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Destroys every connection still open; returns how many there were and how many responses they cut short. */
  destroyAll(): { readonly connections: number; readonly responses: number } {
    const connections = this.open.size;
    let responses = 0;
    for (const [socket, pending] of this.open) {
      responses += pending.size;
      socket.destroy();
    }
    // Handlers still at work are given up on too: the shutdown goes on without them.
    responses += [...this.working].filter((res) => ![...this.open.values()].some((p) => p.has(res))).length;
    this.working.clear();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
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

/** A request that arrives during the drain was not processed: a client may send it again, to another instance. */
function refuse(res: ServerResponse): void {
  sendProblem(res, { ...HTTP_PROBLEMS.unavailable, detail: 'The server is shutting down; the request was not processed.' }, { Connection: 'close' });
}

/** A problem answered by the server itself, outside Express. */
function sendProblem(res: ServerResponse, problem: Problem, headers: Readonly<Record<string, string>> = {}): void {
  const body = JSON.stringify(problem);
  res.writeHead(problem.status, {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}
