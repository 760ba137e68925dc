import { connect } from 'node:net';
import { loadConfig } from '../src/config/load-config';
import { Logger } from '../src/logger';
import { type RunningServer, startServer } from '../src/server';

/** What came back on a raw connection, and whether the server closed it. */
interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly closed: boolean;
}

/** Sends bytes on a fresh connection and reads until the server closes it (or 3 s pass). */
function exchange(url: string, ...chunks: Array<string | Buffer>): Promise<Answer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let closed = false;
    const timer = setTimeout(() => socket.destroy(), 3_000);
    socket.on('connect', () => chunks.forEach((chunk) => socket.write(chunk)));
    socket.on('data', (data) => received.push(data));
    socket.on('error', () => undefined);
    socket.on('end', () => (closed = true));
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('latin1');
      const [head = '', body = ''] = text.split(/\r\n\r\n(.*)/s);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
      if (!status) return reject(new Error(`no response: ${JSON.stringify(text.slice(0, 200))}`));
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status, headers, body, closed });
    });
  });
}

const key = `key_${'k'.repeat(20_000)}`;
const BOOTSTRAP = 'key_mgt_client-errors-bootstrap-key-0000000001';
const head = (lines: string[]): string => `${lines.join('\r\n')}\r\n\r\n`;

describe("requests Node's HTTP parser refuses", () => {
  let server: RunningServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    const logger = new Logger('info', (line) => logLines.push(line));
    server = await startServer(loadConfig({ SVC_STORE: 'memory', SVC_PORT: '0', SVC_BOOTSTRAP_API_KEY: BOOTSTRAP }), { logger }, () => undefined);
  });
  afterAll(async () => {
    await server.close();
    // Logged by error code only: never the request's bytes, which may hold keys.
    expect(logLines.some((line) => line.includes('"msg":"client error"'))).toBe(true);
    expect(logLines.join('')).not.toMatch(/secret|kkkk|db\.internal/);
  });

  it.each([
    ['a 20 kB API key header', 431, 'headers-too-large', [head(['GET /tokens HTTP/1.1', 'Host: x', `SVC-API-KEY: ${key}`])]],
    ['bare LF line endings', 400, 'malformed-request', ['GET /tokens HTTP/1.1\nHost: x\nSVC-API-KEY: secret-value\n\n']],
    ['a NUL in a header value', 400, 'malformed-request', [head(['GET /tokens HTTP/1.1', 'Host: x', 'SVC-API-KEY: secret\0value'])]],
    ['an obs-fold header line', 400, 'malformed-request', [head(['GET /tokens HTTP/1.1', 'Host: x', 'SVC-API-KEY: secret', ' value'])]],
    ['method FOO', 400, 'malformed-request', [head(['FOO /tokens HTTP/1.1', 'Host: x'])]],
    ['a garbage request line', 400, 'malformed-request', ['hello there\r\n\r\n']],
    ['a space in the request target', 400, 'malformed-request', [head(['GET /tokens/a b HTTP/1.1', 'Host: x'])]],
    ['an invalid Content-Length', 400, 'malformed-request', [head(['POST /tokens HTTP/1.1', 'Host: x', 'Content-Length: 1x'])]],
    ['two Content-Lengths', 400, 'malformed-request', [head(['POST /tokens HTTP/1.1', 'Host: x', 'Content-Length: 1', 'Content-Length: 2']) + 'ab']],
    [
      'Transfer-Encoding with Content-Length',
      400,
      'malformed-request',
      [head(['POST /tokens HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked', 'Content-Length: 5']) + '0\r\n\r\n'],
    ],
    // One write: the body fails while the request's own handler is still authenticating, before it answers.
    ['a bad chunk size', 400, 'malformed-request', [head(['POST /tokens HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked']) + 'zz\r\n']],
    ['CONNECT', 501, 'not-implemented', [head(['CONNECT db.internal:5432 HTTP/1.1', 'Host: db.internal:5432'])]],
    ['an HTTP/1.1 request without Host', 400, 'malformed-request', [head(['GET /tokens HTTP/1.1', 'SVC-API-KEY: secret-value'])]],
  ])('answers %s with a %i problem+json and closes the connection', async (_name, status, type, chunks) => {
    const answer = await exchange(server.url, ...chunks);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers.connection).toBe('close');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
    const problem = JSON.parse(answer.body) as Record<string, unknown>;
    expect(problem).toMatchObject({ type: `https://svc.dev/errors/${type}`, status, title: expect.any(String), detail: expect.any(String) });
    expect(answer.closed).toBe(true);
    expect(answer.body).not.toMatch(/secret|kkkk/);
  });

  it('answers a declared Content-Length over the body limit with a 413 at once, without waiting for the body, and closes', async () => {
    const created = await fetch(`${server.url}/applications`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': BOOTSTRAP, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'writer', type: 'private', permissions: ['token:create', 'proxy:invoke'] }),
    });
    const writer = ((await created.json()) as { key: string }).key;
    for (const path of ['/tokens', '/tokenize', '/applications', '/proxy']) {
      const k = path === '/applications' ? BOOTSTRAP : writer;
      const started = performance.now();
      // The headers and the start of a body declared as 1 GB: nothing more is ever sent.
      const answer = await exchange(
        server.url,
        head([`POST ${path} HTTP/1.1`, 'Host: x', `SVC-API-KEY: ${k}`, 'SVC-PROXY-URL: https://processor.example.com/', 'Content-Type: application/json', 'Content-Length: 1000000000']) + '{"a":',
      );
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(answer.body)).toMatchObject({ type: 'https://svc.dev/errors/payload-too-large', status: 413 });
      expect(answer.closed).toBe(true);
      // Well before exchange's own 3 s give-up: the server closed the connection.
      expect(performance.now() - started).toBeLessThan(2_500);
    }
  });

  it('answers an Expect header other than 100-continue with a 417 problem+json', async () => {
    const answer = await exchange(server.url, head(['GET /tokens HTTP/1.1', 'Host: x', 'Expect: bogus', 'Connection: close']));
    expect(answer.status).toBe(417);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ type: 'https://svc.dev/errors/expectation-failed', status: 417 });
  });

  it('answers a header section still arriving after its limit, without echoing it', async () => {
    const answer = await exchange(server.url, 'GET /tokens HTTP/1.1\r\nSVC-API-KEY: ', 'k'.repeat(100_000), '\r\n\r\n');
    expect(answer.status).toBe(431);
    expect(answer.body).not.toContain('kkkk');
  });

  it('answers a method the parser knows but the resource does not serve with a 405 problem+json naming the ones it does', async () => {
    const answer = await exchange(server.url, head(['PROPFIND /tokens HTTP/1.1', 'Host: x', 'Connection: close']));
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD, POST');
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('still answers a request pipelined before a broken one, then closes without answering the broken one', async () => {
    const answer = await exchange(server.url, head(['GET /applications/key HTTP/1.1', 'Host: x']), 'BAD\0 / HTTP/1.1\r\n\r\n');
    expect(answer.status).toBe(401);
    expect(answer.body.match(/HTTP\/1\.1/g)).toBeNull();
    expect(answer.closed).toBe(true);
  });

  it('keeps serving other clients after refusing broken requests', async () => {
    await Promise.all(Array.from({ length: 20 }, () => exchange(server.url, 'hello\r\n\r\n')));
    const res = await fetch(`${server.url}/applications/key`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
