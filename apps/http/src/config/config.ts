import type { OutboundAllowPattern } from '@svc/core';

/** Process configuration, read once from the environment and validated before anything starts. */
export type StoreKind = 'sqlite' | 'memory' | 'mongo';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly store: StoreKind;
  readonly mongoUri?: string | undefined;
  /** 32 bytes; from SVC_MASTER_KEY, or generated into the data dir for the SQLite store. Secret. */
  readonly masterKey?: Buffer | undefined;
  readonly smtpUrl?: string | undefined;
  readonly mailFrom: string;
  readonly publicUrl: string;
  /** Installed as the bootstrap management key on first start. Secret. */
  readonly bootstrapApiKey?: string | undefined;
  readonly ownerEmail: string;
  readonly logLevel: LogLevel;
  /** Milliseconds a card cvc is kept after creation. */
  readonly cvcRetentionMs: number;
  /** Milliseconds a token intent is kept after creation, unless it becomes a token first. */
  readonly tokenIntentTtlMs: number;
  /** How long a 2xx answer to a request with an idempotency key is kept for replay (SVC_IDEMPOTENCY_TTL). */
  readonly idempotencyTtlMs: number;
  /** How long audit events and finished webhook deliveries are kept (SVC_LOG_RETENTION, default 365 days). */
  readonly logRetentionMs: number;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimitBytes: number;
  /** Reader threads answering searches on the SQLite store (0: on the event loop). */
  readonly searchReaders: number;
  /** Origins allowed to call the API from a browser: `*` or a list. */
  readonly corsOrigins: readonly string[] | '*';
  /** Milliseconds between sweeps of expired objects. */
  readonly sweepIntervalMs: number;
  /** Destinations outbound requests may reach although private or plain http (SVC_OUTBOUND_ALLOW). */
  readonly outboundAllow: readonly OutboundAllowPattern[];
  /** PEM certificates trusted for outbound TLS besides the system roots (the file SVC_OUTBOUND_CA names). */
  readonly outboundCaPem?: string | undefined;
  /** The most tokens one POST /tokenize may create. */
  readonly tokenizeLimit: number;
  /** The most distinct tokens one POST /detokenize may name. */
  readonly detokenizeLimit: number;
  /**
   * The most connections served at once (SVC_MAX_CONNECTIONS); past it a new one is closed at once, so idle sockets
   * held open by anyone cannot take every file descriptor the process has (its store, its outbound calls).
   */
  readonly maxConnections: number;
  /** Milliseconds a shutdown waits for responses in progress before it cuts their connections. */
  readonly shutdownTimeoutMs: number;
  /** How long the proxy waits for a destination's answer (SVC_PROXY_TIMEOUT) unless a proxy sets its own. */
  readonly proxyTimeoutMs: number;
  /** GET /metrics is served (SVC_METRICS=1), behind this bearer token when one is set (SVC_METRICS_TOKEN). */
  readonly metrics: { readonly enabled: boolean; readonly token?: string | undefined };
  /** Requests each API key may make per window (SVC_RATE_LIMIT=<n>/<window>); undefined: no limit. */
  readonly rateLimit?: { readonly points: number; readonly windowMs: number } | undefined;
}

/** A configuration value that cannot start the vault; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}
