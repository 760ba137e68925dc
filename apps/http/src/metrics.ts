import { METHODS } from 'node:http';
import type { Store } from '@svc/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: from a tenth of a millisecond (a cached read) to ten seconds (a proxied call waiting on its destination). */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const KNOWN_METHODS = new Set(METHODS);

/**
 * The server's Prometheus metrics (GET /metrics, beyond.md §8). Every label takes its value from a fixed set: route
 * patterns (never a path), methods, status codes, operation and repository names. No id, key or data is ever a label.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly tokenOperations: Counter<'operation' | 'outcome'>;
  private readonly storeLatency: Histogram<'repository' | 'operation'>;
  private readonly writerWait: Histogram;
  private readonly writerCommit: Histogram;
  private readonly writerBatch: Histogram;
  private readonly loopRuns: Counter<'loop' | 'outcome'>;
  private readonly loopLatency: Histogram<'loop'>;
  private readonly requestChildren = new Map<string, { count: { inc(): void }; latency: { observe(value: number): void } }>();

  constructor(webhookBacklog?: () => Promise<number>) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.', labelNames: ['method', 'route', 'status'], registers });
    this.latency = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from a request arriving to its answer finishing, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tokenOperations = new Counter({ name: 'svc_token_operations_total', help: 'Token operations answered, by kind and outcome.', labelNames: ['operation', 'outcome'], registers });
    this.storeLatency = new Histogram({
      name: 'svc_store_operation_duration_seconds',
      help: 'Time of each store operation, by repository and operation.',
      labelNames: ['repository', 'operation'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.writerWait = new Histogram({ name: 'svc_writer_queue_wait_seconds', help: 'Time the oldest write of a batch waited before the writer took the batch (SQLite).', buckets: LATENCY_BUCKETS, registers });
    this.writerCommit = new Histogram({ name: 'svc_writer_commit_seconds', help: 'Time from a batch reaching the writer to its commit (SQLite).', buckets: LATENCY_BUCKETS, registers });
    this.writerBatch = new Histogram({ name: 'svc_writer_batch_writes', help: 'Writes committed together in one transaction (SQLite).', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256], registers });
    this.loopRuns = new Counter({ name: 'svc_background_runs_total', help: 'Runs of the background loops (sweep, audit chain, webhook deliveries), by outcome.', labelNames: ['loop', 'outcome'], registers });
    this.loopLatency = new Histogram({ name: 'svc_background_run_duration_seconds', help: 'Time of each background run.', labelNames: ['loop'], buckets: LATENCY_BUCKETS, registers });
    if (webhookBacklog) {
      new Gauge({
        name: 'svc_webhook_deliveries_pending',
        help: 'Webhook deliveries not yet delivered nor given up on.',
        registers,
        async collect() {
          this.set(await webhookBacklog());
        },
      });
    }
  }

  /** One answered request. `route`: the matched pattern (`/tokens/:id`), or `unmatched`. */
  request(method: string, route: string, status: number, seconds: number): void {
    const m = KNOWN_METHODS.has(method) ? method : 'OTHER';
    // Children cached by their label values: prom-client would hash the label object on every call otherwise.
    const key = `${m} ${route} ${status}`;
    let child = this.requestChildren.get(key);
    if (!child) {
      child = { count: this.requests.labels(m, route, String(status)), latency: this.latency.labels(m, route) };
      this.requestChildren.set(key, child);
    }
    child.count.inc();
    child.latency.observe(seconds);
  }

  tokenOperation(operation: string, ok: boolean): void {
    this.tokenOperations.inc({ operation, outcome: ok ? 'success' : 'failure' });
  }

  /** A timer of one repository operation's calls: `record(seconds)` per call, its labels resolved once. */
  storeTimer(repository: string, operation: string): (seconds: number) => void {
    const child = this.storeLatency.labels(repository, operation);
    return (seconds) => child.observe(seconds);
  }

  writerBatchCommitted(writes: number, waitSeconds: number, commitSeconds: number): void {
    this.writerBatch.observe(writes);
    this.writerWait.observe(waitSeconds);
    this.writerCommit.observe(commitSeconds);
  }

  backgroundRun(loop: string, ok: boolean, seconds: number): void {
    this.loopRuns.inc({ loop, outcome: ok ? 'success' : 'failure' });
    this.loopLatency.observe({ loop }, seconds);
  }
}

/** The store's own members that are not repositories. */
const NOT_REPOSITORIES = new Set(['ping', 'close', 'db', 'constructor']);

/**
 * The store with each repository method timed. Only used with metrics on: the wrapping costs a closure per call.
 * Repository and method names come from the store's own shape, so the label values form a fixed set.
 */
export function instrumentStore<S extends Store>(store: S, metrics: Metrics): S {
  const wrapped = new Map<string, unknown>();
  const instrument = (name: string, repository: object): object => {
    // One timed wrapper per method, made on first use.
    const methods = new Map<string, (...args: unknown[]) => unknown>();
    return new Proxy(repository, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        let method = methods.get(property);
        if (!method) {
          const record = metrics.storeTimer(name, property);
          const fn = value as (...a: unknown[]) => unknown;
          method = (...args: unknown[]) => {
            const started = process.hrtime.bigint();
            const done = () => record(Number(process.hrtime.bigint() - started) / 1e9);
            const result = fn.apply(target, args);
            if (result instanceof Promise) return result.finally(done);
            done();
            return result;
          };
          methods.set(property, method);
        }
        return method;
      },
    });
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || NOT_REPOSITORIES.has(property) || typeof value !== 'object' || value === null) {
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      if (!wrapped.has(property)) wrapped.set(property, instrument(property, value));
      return wrapped.get(property);
    },
  });
}
