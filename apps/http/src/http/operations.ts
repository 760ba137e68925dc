import { createHash, timingSafeEqual } from 'node:crypto';
import type { Store, StoreFault } from '@svc/core';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Metrics } from '../metrics';
import { routeAudit } from './audit-edge';
import { HTTP_PROBLEMS, HttpProblemError } from './problem';
import { sendJson } from './respond';

/** How long /readyz answers 503 after a write found the store's disk full (each such write starts it again). */
export const FULL_DISK_HOLD_MS = 30_000;

/**
 * Whether the server takes traffic: false from the moment a shutdown begins, before any connection is drained; for
 * a while after a write found the store's disk full; and for good once the store was found damaged (an operator
 * must restore it: docs/operations.md).
 */
export class Readiness {
  private stopping = false;
  private damaged = false;
  private fullUntil = 0;

  constructor(private readonly now: () => number = Date.now) {}

  stop(): void {
    this.stopping = true;
  }

  /** A store fault seen by a request. */
  fault(kind: StoreFault): void {
    if (kind === 'damaged') this.damaged = true;
    else this.fullUntil = this.now() + FULL_DISK_HOLD_MS;
  }

  get serving(): boolean {
    return !this.stopping;
  }

  /** Why the store cannot take traffic, when a request found it so. */
  get storeProblem(): string | undefined {
    if (this.damaged) return 'The store is damaged.';
    if (this.now() < this.fullUntil) return "The store's disk is full.";
    return undefined;
  }
}

/** How long /readyz waits for the store before it answers that the store does not answer. */
const READY_TIMEOUT_MS = 2_000;

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (it takes traffic and its store answers reads and writes),
 * without a key and without detail: an orchestrator's probes, not a status page.
 */
export function healthRoutes(app: Express, store: Store, readiness: Readiness): void {
  app.get('/healthz', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    if (!readiness.serving) throw new HttpProblemError(HTTP_PROBLEMS.unavailable, 'The server is shutting down.');
    const problem = readiness.storeProblem;
    if (problem) throw new HttpProblemError(HTTP_PROBLEMS.unavailable, problem);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([store.ping(), late]);
    } catch {
      throw new HttpProblemError(HTTP_PROBLEMS.unavailable, 'The store does not answer.');
    } finally {
      clearTimeout(timer);
    }
    sendJson(res, 200, { status: 'ready' });
  });
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** `GET /metrics` in Prometheus's text format, behind `Authorization: Bearer <SVC_METRICS_TOKEN>` when one is set. */
export function metricsRoute(app: Express, metrics: Metrics, token: string | undefined): void {
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', async (req, res) => {
    if (expected) {
      const presented = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '')?.[1];
      // Compared as digests, in constant time: equal lengths whatever was presented.
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new HttpProblemError(HTTP_PROBLEMS.unauthenticated, 'The metrics token is missing or wrong.');
      }
    }
    const text = await metrics.text();
    res.status(200).setHeader('Content-Type', metrics.contentType).end(text);
  });
}

/**
 * Runs `then` (the edge middleware) after starting to measure the request. Counts and times every answer by route pattern; token routes also count as token operations (their names are the
 * audit log's). The route is read when the answer finishes, once Express has matched it.
 */
export function measureRequests(metrics: Metrics, then: RequestHandler): RequestHandler {
  type Recorder = (status: number, seconds: number) => void;
  // Recorders per matched route object and method, made on first use (routes are made once, at start-up).
  const byRoute = new WeakMap<object, Map<string, Recorder>>();
  const unmatched = new Map<string, Recorder>();
  const recorderOf = (req: Request): Recorder => {
    const route = req.route as { path?: unknown } | undefined;
    let byMethod = route ? byRoute.get(route) : unmatched;
    if (!byMethod) {
      byMethod = new Map();
      byRoute.set(route!, byMethod);
    }
    let record = byMethod.get(req.method);
    if (!record) {
      const pattern = typeof route?.path === 'string' ? route.path : 'unmatched';
      const audited = routeAudit(req.method, pattern);
      record = metrics.requestRecorder(req.method, pattern, audited?.entityType === 'token' ? audited.operation : undefined);
      byMethod.set(req.method, record);
    }
    return record;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    // 'finish' fires once: a plain listener spares once()'s wrapper. The route is read then, once Express matched it.
    res.on('finish', () => recorderOf(req)(res.statusCode, (performance.now() - started) / 1000));
    void then(req, res, next);
  };
}

/**
 * Requests per API key and window (SVC_RATE_LIMIT), counted in this process's memory under a digest of the key (the
 * key itself is never held). Calls without an API key are counted under their proxy key, if any; others are not
 * limited here. Over the limit: 429 problem+json with Retry-After, before the key is even looked up.
 */
/** Probes and metrics: never limited, whatever headers come with them. */
const UNLIMITED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * With SVC_RATE_LIMIT, the requests refused for want of a valid key (401) are limited per client address as well,
 * counted when they are refused: past the limit within the window, such a request is answered 429 and recorded in no
 * audit event. Every refusal is an event (beyond.md §5), about 2 KB of store each, kept a year: without this, one
 * client sending made-up keys (each its own bucket of the per-key limit) grew the store 7.5 MB a second. Requests with
 * a valid key are never held back by it.
 */
export class RefusalLimit {
  private readonly seen = new Map<string, { count: number; until: number }>();

  constructor(
    private readonly limit: { readonly points: number; readonly windowMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one refusal from `address` on `path`: the seconds to wait when it is past the limit, undefined otherwise.
   * An IPv6 address counts by its /64 (a client is given one, and could send from any of its addresses), an
   * IPv4-mapped one as the IPv4 address; the probes and `/metrics` are never limited.
   */
  refused(address: string, path: string): number | undefined {
    if (UNLIMITED.has(path)) return undefined;
    address = addressKey(address);
    const now = this.now();
    let entry = this.seen.get(address);
    if (!entry || entry.until <= now) {
      this.seen.delete(address);
      // At most 10,000 addresses remembered: the oldest window is forgotten first.
      if (this.seen.size >= 10_000) this.seen.delete(this.seen.keys().next().value!);
      entry = { count: 0, until: now + this.limit.windowMs };
      this.seen.set(address, entry);
    }
    entry.count++;
    return entry.count > this.limit.points ? Math.max(1, Math.ceil((entry.until - now) / 1000)) : undefined;
  }

  describe(): string {
    return `${this.limit.points} per ${this.limit.windowMs / 1000} s`;
  }
}

/** What refusals are counted by: an IPv4 address, or the /64 of an IPv6 one. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export function rateLimit(limit: { readonly points: number; readonly windowMs: number }): RequestHandler {
  const limiter = new RateLimiterMemory({ points: limit.points, duration: limit.windowMs / 1000 });
  return async (req: Request, res: Response, next: NextFunction) => {
    if (UNLIMITED.has(req.path)) {
      next();
      return;
    }
    const key = req.get('svc-api-key') ?? req.get('bt-api-key') ?? req.get('svc-proxy-key') ?? req.get('bt-proxy-key');
    if (key === undefined || key === '') {
      next();
      return;
    }
    try {
      await limiter.consume(digest(key.trim()).toString('base64'));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
      throw new HttpProblemError(
        HTTP_PROBLEMS.tooManyRequests,
        `This API key may make ${limit.points} requests per ${limit.windowMs / 1000} s (SVC_RATE_LIMIT); wait before trying again.`,
      );
    }
    next();
  };
}
