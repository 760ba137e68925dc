import { type DestinationStream, type Logger as Pino, pino } from 'pino';
import type { LogLevel } from './config/config';

/** Structured fields of a log line. Never put token data, keys, nonces, secrets or request bodies here. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * Field names whose value is replaced by `[redacted]`, at the top level and one object down (`*.key`): a second
 * guard behind the rule above. Exact names only, so `token_id`, `key_id` or `status` stay readable.
 */
const SECRET_FIELDS = [
  'key', 'api_key', 'apiKey', 'secret', 'secret_key', 'private_key', 'master_key', 'data_key', 'plaintext',
  'token', 'access_token', 'session_key', 'sessionKey', 'nonce', 'password', 'passphrase', 'data', 'body',
  'configuration', 'authorization', 'Authorization', 'proxy-authorization', 'cookie', 'set-cookie',
  'svc-api-key', 'bt-api-key', 'svc-proxy-key', 'bt-proxy-key', 'x-api-key',
];

const REDACTED_PATHS: readonly string[] = SECRET_FIELDS.flatMap((name) => {
  const path = /^[A-Za-z_$][\w$]*$/.test(name) ? name : `["${name}"]`;
  return [path, path.startsWith('[') ? `*${path}` : `*.${path}`];
});

/** An svc API key (private, public, management, session, proxy) or a webhook signing secret, wherever it appears. */
const KEY_LIKE = /(key_(?:pvt|pub|mgt|ses|prx)_|whsec_)[^\s"'&,;]*/g;
const HAS_KEY_LIKE = /key_(?:pvt|pub|mgt|ses|prx)_|whsec_/;

/** Whether `text` holds what looks like an svc key or a webhook secret (see KEY_LIKE). */
export const hasKeyLike = (text: string): boolean => HAS_KEY_LIKE.test(text);
/** How deep masking follows nested objects and arrays (log fields are flat; this only bounds a cycle). */
const MASK_DEPTH = 4;

/**
 * A JSON-lines logger (pino): one object per line, `{"time":"<ISO>","level":"info","msg":"…",…fields}`, no pid or
 * hostname. Lines go to stdout with synchronous writes, so a line logged right before `process.exit` is not lost;
 * `write` replaces the destination (tests collect lines with it).
 */
export class Logger {
  private readonly pino: Pino<never, boolean>;

  constructor(level: LogLevel, write?: (line: string) => void) {
    this.pino = pino(
      {
        level,
        base: undefined,
        // Pino starts a line with the level formatter's object, then appends the timestamp string: an empty level
        // object and a timestamp without its leading comma start the line with the time, and the methods below put
        // level and msg first among the fields, so lines keep svc's order (logger.test.ts pins it).
        formatters: { level: () => ({}), log: maskKeyLike },
        timestamp: () => `"time":"${new Date().toISOString()}"`,
        redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
      },
      write ? { write } : stdout(),
    );
  }

  debug(msg: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('debug')) this.pino.debug({ level: 'debug', msg, ...fields });
  }

  info(msg: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('info')) this.pino.info({ level: 'info', msg, ...fields });
  }

  warn(msg: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('warn')) this.pino.warn({ level: 'warn', msg, ...fields });
  }

  error(msg: string, fields?: LogFields): void {
    if (this.pino.isLevelEnabled('error')) this.pino.error({ level: 'error', msg, ...fields });
  }

  enabled(level: LogLevel): boolean {
    return this.pino.isLevelEnabled(level);
  }
}

let destination: DestinationStream | undefined;

/** One synchronous stdout destination for every logger of the process (pino ignores EPIPE on it). */
function stdout(): DestinationStream {
  return (destination ??= pino.destination({ dest: 1, sync: true }));
}

/**
 * Masks key-like substrings in every string of a line (`key_pvt_[redacted]`). A line with none is returned as it
 * came, so the cost is one regular-expression test per string field.
 */
export function maskKeyLike(fields: Record<string, unknown>): Record<string, unknown> {
  return mask(fields, 0) as Record<string, unknown>;
}

function mask(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return HAS_KEY_LIKE.test(value) ? value.replace(KEY_LIKE, '$1[redacted]') : value;
  if (value === null || typeof value !== 'object' || depth > MASK_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const masked = mask(item, depth + 1);
      if (masked !== item) (copy ??= [...value])[i] = masked;
    });
    return copy ?? value;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const name in record) {
    if (!Object.hasOwn(record, name)) continue;
    const masked = mask(record[name], depth + 1);
    if (masked !== record[name]) (copy ??= { ...record })[name] = masked;
  }
  return copy ?? value;
}
