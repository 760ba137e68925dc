import { METHODS } from 'node:http';
import type { Store } from '@svc/core';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** Seconds: from a tenth of a millisecond (a cached read) to ten seconds (a proxied call waiting on its destination). */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

const KNOWN_METHODS = new Set(METHODS);

/** A label value as Prometheus's text format quotes it. */
const quote = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** `name="value",…` for a fixed list of names and values. */
const labelText = (names: readonly string[], values: readonly string[]): string => names.map((n, i) => `${n}="${quote(values[i]!)}"`).join(',');

/**
 * A histogram or counter family kept as plain numbers per label set, rendered at scrape time. The request path pays a
 * map look-up and a few additions: prom-client's own metrics hash their label object on every observation, which cost
 * the reveal-get 10% with metrics on.
 */
class Family {
  private readonly series = new Map<string, { readonly labels: string; readonly buckets: Float64Array; sum: number; count: number }>();

  constructor(
    private readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
    /** Upper bounds; none for a counter. */
    private readonly bounds: readonly number[] = [],
  ) {}

  /** The series of these label values, made on first use (values come from fixed sets: the map stays small). */
  child(...values: string[]): (value?: number) => void {
    const key = values.join('\u0000');
    let series = this.series.get(key);
    if (!series) {
      series = { labels: labelText(this.labelNames, values), buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    const s = series;
    const bounds = this.bounds;
    return (value = 1) => {
      s.count += 1;
      s.sum += value;
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]!) {
          s.buckets[i]! += 1;
          break;
        }
      }
    };
  }

  render(): string {
    const histogram = this.bounds.length > 0;
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${histogram ? 'histogram' : 'counter'}`];
    for (const { labels, buckets, sum, count } of this.series.values()) {
      const braces = (extra: string) => `{${[labels, extra].filter(Boolean).join(',')}}`;
      if (!histogram) {
        lines.push(`${this.name}${labels ? `{${labels}}` : ''} ${count}`);
        continue;
      }
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += buckets[i]!;
        lines.push(`${this.name}_bucket${braces(`le="${bound}"`)} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${braces('le="+Inf"')} ${count}`);
      lines.push(`${this.name}_sum${labels ? `{${labels}}` : ''} ${sum}`);
      lines.push(`${this.name}_count${labels ? `{${labels}}` : ''} ${count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

/**
 * The server's Prometheus metrics (GET /metrics, beyond.md §8). Every label takes its value from a fixed set: route
 * patterns (never a path), methods, status codes, operation and repository names. No id, key or data is ever a label.
 * Process metrics and the webhook backlog come from prom-client; the per-request ones from {@link Family}.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Family('svc_http_requests_total', 'HTTP requests answered, by method, route pattern and status.', ['method', 'route', 'status']);
  private readonly latency = new Family('svc_http_request_duration_seconds', 'Time from a request arriving to its answer finishing, by method and route pattern.', ['method', 'route'], LATENCY_BUCKETS);
  private readonly tokenOperations = new Family('svc_token_operations_total', 'Token operations answered, by kind and outcome.', ['operation', 'outcome']);
  private readonly storeLatency = new Family(
    'svc_store_operation_duration_seconds',
    `Time of store operations, by repository and operation (one call in ${STORE_SAMPLE} of each is timed).`,
    ['repository', 'operation'],
    LATENCY_BUCKETS,
  );
  private readonly writerWait = new Family('svc_writer_queue_wait_seconds', 'Time the oldest write of a batch waited before the writer took the batch (SQLite).', [], LATENCY_BUCKETS);
  private readonly writerCommit = new Family('svc_writer_commit_seconds', 'Time from a batch reaching the writer to its commit (SQLite).', [], LATENCY_BUCKETS);
  private readonly writerBatch = new Family('svc_writer_batch_writes', 'Writes committed together in one transaction (SQLite).', [], BATCH_BUCKETS);
  private readonly loopRuns = new Family('svc_background_runs_total', 'Runs of the background loops (sweep, audit chain, webhook deliveries), by outcome.', ['loop', 'outcome']);
  private readonly loopLatency = new Family('svc_background_run_duration_seconds', 'Time of each background run.', ['loop'], LATENCY_BUCKETS);

  constructor(webhookBacklog?: () => Promise<number>) {
    collectDefaultMetrics({ register: this.registry });
    if (webhookBacklog) {
      new Gauge({
        name: 'svc_webhook_deliveries_pending',
        help: 'Webhook deliveries not yet delivered nor given up on.',
        registers: [this.registry],
        async collect() {
          this.set(await webhookBacklog());
        },
      });
    }
  }

  /** The whole exposition: prom-client's metrics, then svc's own. */
  async text(): Promise<string> {
    const families = [this.requests, this.latency, this.tokenOperations, this.storeLatency, this.writerWait, this.writerCommit, this.writerBatch, this.loopRuns, this.loopLatency];
    return `${await this.registry.metrics()}\n${families.map((f) => f.render()).join('')}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * The recorder of one method on one route pattern (`/tokens/:id`, or `unmatched`): `record(status, seconds)` per
   * answered request, counting a token operation too when `tokenOperation` names one. Callers keep it per route, so
   * a request pays two small map look-ups and no string building.
   */
  requestRecorder(method: string, route: string, tokenOperation?: string): (status: number, seconds: number) => void {
    const m = KNOWN_METHODS.has(method) ? method : 'OTHER';
    const latency = this.latency.child(m, route);
    const byStatus = new Map<number, { readonly count: (value?: number) => void; readonly token: ((value?: number) => void) | undefined }>();
    return (status, seconds) => {
      let child = byStatus.get(status);
      if (!child) {
        child = {
          count: this.requests.child(m, route, String(status)),
          token: tokenOperation === undefined ? undefined : this.tokenOperations.child(tokenOperation, status < 400 ? 'success' : 'failure'),
        };
        byStatus.set(status, child);
      }
      child.count();
      child.token?.();
      latency(seconds);
    };
  }

  /** A timer of one repository operation's calls: `record(seconds)` per call, its labels resolved once. */
  storeTimer(repository: string, operation: string): (seconds: number) => void {
    return this.storeLatency.child(repository, operation);
  }

  writerBatchCommitted(writes: number, waitSeconds: number, commitSeconds: number): void {
    this.writerBatch.child()(writes);
    this.writerWait.child()(waitSeconds);
    this.writerCommit.child()(commitSeconds);
  }

  backgroundRun(loop: string, ok: boolean, seconds: number): void {
    this.loopRuns.child(loop, ok ? 'success' : 'failure')();
    this.loopLatency.child(loop)(seconds);
  }
}

/**
 * Store operations are timed one call in this many (per repository method): timing every call (a clock read and a
 * promise more) cost the fastest routes 5-9% with metrics on. The histogram's counts are of sampled calls.
 */
export const STORE_SAMPLE = 8;

/** Every repository of a store (typed: a repository added to Store and not here fails to compile). */
const REPOSITORIES: Record<Exclude<keyof Store, 'ping' | 'close' | 'fault'>, true> = {
  tenants: true,
  users: true,
  members: true,
  applications: true,
  system: true,
  dataKeys: true,
  tokens: true,
  sessions: true,
  invitations: true,
  tokenIntents: true,
  idempotency: true,
  webhooks: true,
  webhookDeliveries: true,
  auditLog: true,
  proxies: true,
};

/** The names of `target`'s methods, its own and those of its classes (not Object's). */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(o, name)?.value === 'function') names.add(name);
    }
  }
  return [...names];
}

/**
 * An object reading through to `target` whose methods call `target`'s as `wrap` makes them: built once, so a call
 * costs an own-property read (a Proxy's trap on every property read cost the fastest routes a few percent more).
 */
function overlay<T extends object>(target: T, wrap: (name: string, method: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown): T {
  const view = Object.create(target) as T;
  for (const name of methodNames(target)) {
    const method = (target as Record<string, (...args: unknown[]) => unknown>)[name]!;
    Object.defineProperty(view, name, { value: wrap(name, method), enumerable: false });
  }
  return view;
}

/** `method` on `target`, one call in STORE_SAMPLE timed into `record`. */
function sampled(target: object, method: (...args: unknown[]) => unknown, record: (seconds: number) => void): (...args: unknown[]) => unknown {
  let calls = 0;
  return (...args: unknown[]) => {
    // One call in STORE_SAMPLE is timed: the rest go straight through, as they would with metrics off.
    if (++calls % STORE_SAMPLE !== 0) return method.apply(target, args);
    const started = performance.now();
    const result = method.apply(target, args);
    if (!(result instanceof Promise)) {
      record((performance.now() - started) / 1000);
      return result;
    }
    return result.then(
      (value: unknown) => {
        record((performance.now() - started) / 1000);
        return value;
      },
      (error: unknown) => {
        record((performance.now() - started) / 1000);
        throw error;
      },
    );
  };
}

/**
 * The store with each repository method timed. Only used with metrics on. Repository and method names come from the
 * store's own shape, so the label values form a fixed set. The store's own methods (ping, close, and a store's
 * extras) run on the store itself.
 */
export function instrumentStore<S extends Store>(store: S, metrics: Metrics): S {
  const view = overlay(store, (_name, method) => method.bind(store));
  for (const name of Object.keys(REPOSITORIES) as Array<keyof typeof REPOSITORIES>) {
    const repository = store[name] as object;
    const timed = overlay(repository, (operation, method) => sampled(repository, method, metrics.storeTimer(name, operation)));
    Object.defineProperty(view, name, { value: timed, enumerable: true });
  }
  return view;
}
