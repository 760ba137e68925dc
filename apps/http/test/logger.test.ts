import type { LogLevel } from '../src/config/config';
import { Logger, maskKeyLike } from '../src/logger';

/** A logger at `level` and the lines it wrote, parsed. */
function collecting(level: LogLevel): { logger: Logger; lines: string[]; parsed: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const logger = new Logger(level, (line) => lines.push(line));
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const PRIVATE_KEY = 'key_pvt_4vJ9nKk2cWQzr8XyTg5hB1mPqLsD3eFu7aRtYxZwEo6';
const WEBHOOK_SECRET = 'whsec_9zYx8WvU7tSr6QpOnMlKjIhGfEdCbA5432';

describe('log lines', () => {
  it('are one JSON object a line: time, level, msg, then the fields in order, with no pid or hostname', () => {
    const { logger, lines } = collecting('debug');
    logger.info('listening', { url: 'http://127.0.0.1:8080', store: 'sqlite', port: 8080, forced: false, gone: undefined });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","level":"info","msg":"listening","url":"http:\/\/127\.0\.0\.1:8080","store":"sqlite","port":8080,"forced":false\}\n$/,
    );
    const time = (JSON.parse(lines[0]!) as { time: string }).time;
    expect(Math.abs(Date.parse(time) - Date.now())).toBeLessThan(5_000);
  });

  it('carry the message alone when there are no fields, and escape what JSON must', () => {
    const { logger, lines, parsed } = collecting('debug');
    logger.warn('no fields');
    logger.error('quote " and\nnewline', { path: 'C:\\dir' });
    expect(lines[0]).toMatch(/^\{"time":"[^"]+","level":"warn","msg":"no fields"\}\n$/);
    expect(lines[1]!.split('\n')).toHaveLength(2);
    expect(parsed()[1]).toMatchObject({ level: 'error', msg: 'quote " and\nnewline', path: 'C:\\dir' });
  });

  it.each<[LogLevel, string[]]>([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
    ['silent', []],
  ])('at level %s are written for %j', (level, written) => {
    const { logger, parsed } = collecting(level);
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(parsed().map((line) => line.level)).toEqual(written);
    expect((['debug', 'info', 'warn', 'error'] as const).filter((l) => logger.enabled(l))).toEqual(written);
  });
});

describe('redaction, a second guard behind never logging secrets', () => {
  const names = [
    'key', 'api_key', 'apiKey', 'secret', 'secret_key', 'private_key', 'master_key', 'data_key', 'plaintext', 'token',
    'access_token', 'session_key', 'sessionKey', 'nonce', 'password', 'passphrase', 'data', 'body', 'configuration',
    'authorization', 'Authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'svc-api-key', 'bt-api-key',
    'svc-proxy-key', 'bt-proxy-key', 'x-api-key',
  ];

  it.each(names)('hides a field named %s, at the top and one object down', (name) => {
    const { logger, lines, parsed } = collecting('info');
    logger.info('request', { [name]: 'hunter2', status: 200 });
    logger.debug('ignored');
    const headers = { [name]: 'hunter2', accept: 'json' };
    (logger.info as (msg: string, fields: object) => void)('report', { headers });
    expect(lines.join('')).not.toContain('hunter2');
    expect(headers[name]).toBe('hunter2');
    expect(parsed()[0]).toMatchObject({ [name]: '[redacted]', status: 200 });
    expect(parsed()[1]).toMatchObject({ headers: { [name]: '[redacted]', accept: 'json' } });
  });

  it('hides objects and numbers under those names too', () => {
    const { logger, parsed } = collecting('info');
    (logger.info as (msg: string, fields: object) => void)('x', { data: { number: '4242424242424242' }, nonce: 12345 });
    expect(parsed()[0]).toMatchObject({ data: '[redacted]', nonce: '[redacted]' });
  });

  it('keeps the fields svc logs that only look alike', () => {
    const fields = {
      token_id: 't-1', key_id: 'k-1', tokens: 3, keys: 2, status: 401, route: '/tokens/:id', trace_id: 'abc',
      method: 'POST', duration_ms: 1.5, error: 'TypeError', code: 'HPE_INVALID_HEADER_TOKEN', signal: 'SIGTERM',
      deadline_ms: 300, events: 4, store: 'sqlite', url: 'http://127.0.0.1:1',
    };
    const { logger, parsed } = collecting('info');
    logger.info('request', fields);
    expect(parsed()[0]).toEqual({ time: expect.any(String), level: 'info', msg: 'request', ...fields });
  });

  it('masks svc keys and webhook secrets inside any string: fields, nested values and the message', () => {
    const { logger, lines, parsed } = collecting('info');
    logger.error('unhandled error', { error: 'Error', stack: `Error: bad key ${PRIVATE_KEY}\n    at f (x.js:1:2)` });
    logger.info(`sent with ${WEBHOOK_SECRET}`, { url: `https://h.example/?k=${PRIVATE_KEY}&x=1` });
    (logger.info as (msg: string, fields: object) => void)('report', { list: ['a', `key_ses_abc`], inner: { note: 'key_prx_def,key_mgt_g' } });
    for (const secret of [PRIVATE_KEY, WEBHOOK_SECRET, 'key_ses_abc', 'key_prx_def', 'key_mgt_g']) expect(lines.join('')).not.toContain(secret);
    const [crash, sent, report] = parsed();
    expect(crash!.stack).toBe('Error: bad key key_pvt_[redacted]\n    at f (x.js:1:2)');
    expect(sent).toMatchObject({ msg: 'sent with whsec_[redacted]', url: 'https://h.example/?k=key_pvt_[redacted]&x=1' });
    expect(report).toMatchObject({ list: ['a', 'key_ses_[redacted]'], inner: { note: 'key_prx_[redacted],key_mgt_[redacted]' } });
  });

  it('leaves a line with nothing key-like as it came (no copy), and never changes the caller’s objects', () => {
    const plain = { level: 'info', msg: 'request', route: '/keys/:id', status: 200, nested: { a: 'key_id' } };
    expect(maskKeyLike(plain)).toBe(plain);
    const nested = { note: PRIVATE_KEY };
    const fields = { level: 'info', msg: 'x', nested };
    const masked = maskKeyLike(fields);
    expect(masked).toEqual({ level: 'info', msg: 'x', nested: { note: 'key_pvt_[redacted]' } });
    expect(Object.keys(masked)).toEqual(['level', 'msg', 'nested']);
    expect(nested.note).toBe(PRIVATE_KEY);
  });

  it('stops at a cycle', () => {
    const cyclic: Record<string, unknown> = { note: PRIVATE_KEY };
    cyclic.self = cyclic;
    expect(() => maskKeyLike({ cyclic })).not.toThrow();
  });
});
