import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isEmail, OutboundAllowListError, type OutboundAllowPattern, parseOutboundAllowList } from '@svc/core';
import { type Config, ConfigError, type LogLevel, type StoreKind } from './config';

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
const STORES: readonly StoreKind[] = ['sqlite', 'memory', 'mongo'];

function value(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer between ${min} and ${max}, got '${raw}'`);
  }
  return Number(raw);
}

const UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** SVC_OUTBOUND_ALLOW: comma-separated `host[:port]` patterns (`*.example.com` for the names below a domain). */
function outboundAllow(env: Env): readonly OutboundAllowPattern[] {
  try {
    return parseOutboundAllowList(value(env, 'SVC_OUTBOUND_ALLOW'));
  } catch (error) {
    if (error instanceof OutboundAllowListError) throw new ConfigError('SVC_OUTBOUND_ALLOW', error.message);
    throw error;
  }
}

/** SVC_OUTBOUND_CA: the path of a PEM file of one or more CA certificates, each of which must parse. */
function outboundCa(env: Env): string | undefined {
  const path = value(env, 'SVC_OUTBOUND_CA');
  if (path === undefined) return undefined;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError('SVC_OUTBOUND_CA', `cannot read '${path}'`);
  }
  const certificates = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) throw new ConfigError('SVC_OUTBOUND_CA', `'${path}' holds no PEM certificate`);
  for (const certificate of certificates) {
    try {
      new X509Certificate(certificate);
    } catch {
      throw new ConfigError('SVC_OUTBOUND_CA', `'${path}' holds a certificate that does not parse`);
    }
  }
  return pem;
}

/** `3600` (seconds), `90s`, `30m`, `1h`, `250ms`. */
export function duration(env: Env, name: string, fallbackMs: number): number {
  const raw = value(env, name);
  if (raw === undefined) return fallbackMs;
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(raw);
  if (!match) throw new ConfigError(name, `must be a duration such as 3600, 90s, 30m or 1h, got '${raw}'`);
  return Number(match[1]) * UNITS_MS[match[2] ?? 's']!;
}

/** A duration that must not be zero: an intent that expires as it is made could never become a token. */
function positiveDuration(env: Env, name: string, fallbackMs: number): number {
  const ms = duration(env, name, fallbackMs);
  if (ms === 0) throw new ConfigError(name, 'must be longer than 0, such as 3600, 30m or 24h');
  return ms;
}

/** At most a century: beyond it the cut-off date is before any date a store can hold. */
const MAX_LOG_RETENTION_MS = 36_500 * 24 * 3_600_000;

/** SVC_LOG_RETENTION: how long audit events are kept (default 365 days, PCI DSS 10.5.1), from 1s to 36500d. */
function logRetention(env: Env): number {
  const ms = positiveDuration(env, 'SVC_LOG_RETENTION', 365 * 24 * 3_600_000);
  if (ms < 1000 || ms > MAX_LOG_RETENTION_MS) throw new ConfigError('SVC_LOG_RETENTION', 'must be from 1s to 36500d (a century)');
  return ms;
}

/**
 * SVC_SWEEP_INTERVAL: from 1s to 24h. Shorter would keep the sweeper scanning the store without pause; timers longer
 * than about 24.8 days overflow, and Node then fires them every millisecond.
 */
function sweepInterval(env: Env): number {
  const ms = duration(env, 'SVC_SWEEP_INTERVAL', 60_000);
  if (ms < 1000 || ms > 24 * 3_600_000) throw new ConfigError('SVC_SWEEP_INTERVAL', 'must be from 1s to 24h, such as 30s, 60s or 5m');
  return ms;
}

/** An hour: the longest a request or a drain may take. Timers past about 24.8 days overflow and fire every 1 ms. */
const MAX_WAIT_MS = 3_600_000;

/** A duration that arms a timer: at most an hour (and longer than 0 unless `zero` is allowed). */
function waitDuration(env: Env, name: string, fallbackMs: number, zero: boolean): number {
  const ms = zero ? duration(env, name, fallbackMs) : positiveDuration(env, name, fallbackMs);
  if (ms > MAX_WAIT_MS) throw new ConfigError(name, 'must be at most 1h, such as 10s or 30s');
  return ms;
}

/**
 * SVC_HOST: an IPv4 or IPv6 literal, or a host name (letters, digits and hyphens in dot-separated labels). A name
 * ending in a number (`999.1.1.1`) would be read as an IPv4 address, so it must be one.
 */
function host(env: Env): string {
  const raw = value(env, 'SVC_HOST') ?? '127.0.0.1';
  if (isIP(raw) !== 0) return raw;
  const labels = raw.split('.');
  const name = raw.length <= 253 && labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(label));
  if (!name || /^\d+$/.test(labels[labels.length - 1]!)) {
    throw new ConfigError('SVC_HOST', `must be an IPv4 or IPv6 address or a host name, such as 127.0.0.1, 0.0.0.0, :: or localhost, got '${raw}'`);
  }
  return raw;
}

const SIZE_UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2 };

/** `1048576`, `512kb`, `1mb`. */
function bytes(env: Env, name: string, fallback: number): number {
  const raw = value(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  const match = /^(\d+)(b|kb|mb)?$/.exec(raw);
  const size = match ? Number(match[1]) * SIZE_UNITS[match[2] ?? 'b']! : NaN;
  if (!(size >= 1024 && size <= 64 * 1024 ** 2)) throw new ConfigError(name, `must be a size between 1kb and 64mb, got '${raw}'`);
  return size;
}

function masterKey(env: Env): Buffer | undefined {
  const raw = value(env, 'SVC_MASTER_KEY');
  if (raw === undefined) return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== raw.replace(/=+$/, '')) {
    throw new ConfigError('SVC_MASTER_KEY', 'must be 32 bytes encoded in base64 (openssl rand -base64 32)');
  }
  return key;
}

function parsedUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/**
 * SVC_PUBLIC_URL: the base of the links the vault sends (invitations), so an absolute http or https URL, with a path
 * at most: no credentials, query or fragment. The value is not repeated in the message (it could hold a password).
 */
function publicUrl(env: Env): string | undefined {
  const raw = value(env, 'SVC_PUBLIC_URL');
  if (raw === undefined) return undefined;
  const url = parsedUrl(raw);
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.hostname === '' || url.username !== '' || url.password !== '' || /[?#]/.test(raw)) {
    throw new ConfigError('SVC_PUBLIC_URL', 'must be an absolute http:// or https:// URL without credentials, query or fragment, such as https://vault.example.com');
  }
  return raw.replace(/\/+$/, '');
}

/** SVC_SMTP_URL: an smtp:// or smtps:// URL with a host (it may hold the password, so it is never repeated). */
function smtpUrl(env: Env): string | undefined {
  const raw = value(env, 'SVC_SMTP_URL');
  if (raw === undefined) return undefined;
  const url = parsedUrl(raw);
  if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || url.hostname === '') {
    throw new ConfigError('SVC_SMTP_URL', 'must be an smtp:// or smtps:// URL, such as smtps://user:password@smtp.example.com:465');
  }
  return raw;
}

/** `Name <address>` or a bare address; no line breaks or other control characters (it becomes a mail header). */
const MAIL_FROM = /^(?:([^<>\x00-\x1f\x7f]*?)\s*<([^<>\s]+)>|([^<>\s]+))$/;

/** SVC_MAIL_FROM: the sender of invitation e-mails. */
function mailFrom(env: Env): string {
  const raw = value(env, 'SVC_MAIL_FROM');
  if (raw === undefined) return 'svc <no-reply@localhost>';
  const match = MAIL_FROM.exec(raw);
  if (!match || !isEmail(match[2] ?? match[3]!)) {
    throw new ConfigError('SVC_MAIL_FROM', `must be an e-mail address, or a name and an address as in 'svc <no-reply@example.com>', got '${raw}'`);
  }
  return raw;
}

function store(env: Env, mongoUri: string | undefined): StoreKind {
  const raw = value(env, 'SVC_STORE');
  if (raw === undefined) return mongoUri ? 'mongo' : 'sqlite';
  if (!(STORES as readonly string[]).includes(raw)) throw new ConfigError('SVC_STORE', `must be one of ${STORES.join(', ')}, got '${raw}'`);
  return raw as StoreKind;
}

function corsOrigins(env: Env): readonly string[] | '*' {
  const raw = value(env, 'SVC_CORS_ORIGINS') ?? '*';
  if (raw === '*') return '*';
  const origins = raw.split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of origins) {
    let ok = false;
    try {
      ok = new URL(origin).origin === origin;
    } catch {
      ok = false;
    }
    if (!ok) throw new ConfigError('SVC_CORS_ORIGINS', `must be * or a comma-separated list of origins like https://app.example.com, got '${origin}'`);
  }
  return origins;
}

/** Reads and validates the configuration; throws a ConfigError naming the first wrong variable. */
/** SVC_METRICS (`1` or `0`, default off) and SVC_METRICS_TOKEN (a bearer token of at least 16 characters). */
function metrics(env: Env): Config['metrics'] {
  const flag = value(env, 'SVC_METRICS') ?? '0';
  if (flag !== '0' && flag !== '1') throw new ConfigError('SVC_METRICS', `must be 1 (serve GET /metrics) or 0, got '${flag}'`);
  const token = value(env, 'SVC_METRICS_TOKEN');
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) throw new ConfigError('SVC_METRICS_TOKEN', 'must be at least 16 characters with no spaces');
  return { enabled: flag === '1', token };
}

/** SVC_RATE_LIMIT: `<requests>/<window>` per API key, the window a duration (`100/1s`, `6000/1m`); unset or `off`: none. */
function rateLimit(env: Env): Config['rateLimit'] {
  const raw = value(env, 'SVC_RATE_LIMIT');
  if (raw === undefined || raw === 'off') return undefined;
  const match = /^(\d{1,9})\/(.+)$/.exec(raw);
  const bad = () => new ConfigError('SVC_RATE_LIMIT', `must be <requests>/<window> such as 100/1s or 6000/1m, or off, got '${raw}'`);
  if (!match) throw bad();
  const points = Number(match[1]);
  let windowMs: number;
  try {
    windowMs = duration({ SVC_RATE_LIMIT_WINDOW: match[2] }, 'SVC_RATE_LIMIT_WINDOW', 0);
  } catch {
    throw bad();
  }
  if (points < 1 || windowMs < 1000 || windowMs > 24 * 3_600_000) throw bad();
  return { points, windowMs };
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'SVC_PORT', 8080, 0, 65535);
  const listenHost = host(env);
  const mongoUri = value(env, 'MONGODB_URI');
  if (mongoUri !== undefined && !/^mongodb(\+srv)?:\/\/\S+$/.test(mongoUri)) {
    throw new ConfigError('MONGODB_URI', 'must be a mongodb:// or mongodb+srv:// connection string');
  }
  const kind = store(env, mongoUri);
  const key = masterKey(env);
  if (kind === 'mongo' && !mongoUri) throw new ConfigError('MONGODB_URI', 'is required with SVC_STORE=mongo');
  if (kind === 'mongo' && !key) {
    throw new ConfigError('SVC_MASTER_KEY', 'is required with the mongo store (several processes must share it): openssl rand -base64 32');
  }
  const logLevel = value(env, 'SVC_LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('SVC_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const ownerEmail = value(env, 'SVC_OWNER_EMAIL') ?? 'owner@localhost';
  if (!isEmail(ownerEmail)) throw new ConfigError('SVC_OWNER_EMAIL', 'must be a well-formed e-mail address');
  const bootstrapApiKey = value(env, 'SVC_BOOTSTRAP_API_KEY');
  // key_ses_ is the prefix of session keys: authentication looks such a key up among sessions, so it would never work,
  // and the bootstrap runs once.
  if (bootstrapApiKey !== undefined && (/\s/.test(bootstrapApiKey) || bootstrapApiKey.length < 16 || bootstrapApiKey.startsWith('key_ses_'))) {
    throw new ConfigError('SVC_BOOTSTRAP_API_KEY', 'must be at least 16 characters with no spaces, and not start with key_ses_ (the prefix of session keys)');
  }
  return {
    port,
    host: listenHost,
    dataDir: value(env, 'SVC_DATA_DIR') ?? './data',
    store: kind,
    mongoUri,
    masterKey: key,
    smtpUrl: smtpUrl(env),
    mailFrom: mailFrom(env),
    publicUrl: publicUrl(env) ?? `http://${listenHost.includes(':') ? `[${listenHost}]` : listenHost}:${port}`,
    bootstrapApiKey,
    ownerEmail,
    logLevel: logLevel as LogLevel,
    cvcRetentionMs: duration(env, 'SVC_CVC_RETENTION', 3_600_000),
    tokenIntentTtlMs: positiveDuration(env, 'SVC_TOKEN_INTENT_TTL', 24 * 3_600_000),
    idempotencyTtlMs: positiveDuration(env, 'SVC_IDEMPOTENCY_TTL', 24 * 3_600_000),
    logRetentionMs: logRetention(env),
    bodyLimitBytes: bytes(env, 'SVC_BODY_LIMIT', 1024 * 1024),
    sweepIntervalMs: sweepInterval(env),
    shutdownTimeoutMs: waitDuration(env, 'SVC_SHUTDOWN_TIMEOUT', 10_000, true),
    proxyTimeoutMs: waitDuration(env, 'SVC_PROXY_TIMEOUT', 25_000, false),
    metrics: metrics(env),
    rateLimit: rateLimit(env),
    corsOrigins: corsOrigins(env),
    searchReaders: integer(env, 'SVC_SEARCH_READERS', 2, 0, 16),
    outboundAllow: outboundAllow(env),
    outboundCaPem: outboundCa(env),
    tokenizeLimit: integer(env, 'SVC_TOKENIZE_LIMIT', 100, 1, 10_000),
    detokenizeLimit: integer(env, 'SVC_DETOKENIZE_LIMIT', 100, 1, 10_000),
    maxConnections: integer(env, 'SVC_MAX_CONNECTIONS', defaultMaxConnections(), 1, 1_000_000),
  };
}

/**
 * Half the process's open-file limit less 256 for its own files and the webhooks' calls, between 64 and 10,000; 1,000
 * where the limit cannot be read (no /proc). Half: each connection may hold a proxy call's socket to its destination
 * besides its own. Held idle, 20,000 sockets took every descriptor of a server allowed 20,000; with the limit less
 * 256, proxy calls to a slow destination took every descriptor too.
 */
function defaultMaxConnections(): number {
  return maxConnectionsFor(readProcLimits());
}

/** The default of SVC_MAX_CONNECTIONS for a `/proc/self/limits` text (undefined: none could be read). */
export function maxConnectionsFor(limits: string | undefined): number {
  const soft = /^Max open files\s+(\d+|unlimited)\s/m.exec(limits ?? '')?.[1];
  if (soft === undefined) return 1_000;
  if (soft === 'unlimited') return 10_000;
  return Math.min(10_000, Math.max(64, Math.floor((Number(soft) - 256) / 2)));
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}
