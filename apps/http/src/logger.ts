import type { LogLevel } from './config/config';

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Structured fields of a log line. Never put token data, keys, nonces, secrets or request bodies here. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** A JSON-lines logger on stdout: one object per line, with time, level and message. */
export class Logger {
  constructor(
    private readonly level: LogLevel,
    private readonly write: (line: string) => void = (line) => process.stdout.write(line),
  ) {}

  debug(msg: string, fields?: LogFields): void {
    this.log('debug', msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.log('info', msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.log('warn', msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.log('error', msg, fields);
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] >= RANK[this.level];
  }

  private log(level: LogLevel, msg: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    this.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  }
}
