import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, bannerKey, killServed, type Served, serveBin } from './served-bin';

/** `svc serve` on `dataDir`, with more of the environment when given. */
const serve = (dataDir: string, env: Record<string, string> = {}): Promise<Served> => serveBin({ SVC_DATA_DIR: dataDir, ...env }, 15_000);

async function logged(served: Served, msg: string): Promise<void> {
  for (let i = 0; i < 200 && !served.output().includes(`"msg":"${msg}"`); i++) await new Promise((r) => setTimeout(r, 10));
  if (!served.output().includes(`"msg":"${msg}"`)) throw new Error(`no "${msg}" log line:\n${served.output()}`);
}

/** Sends a signal; resolves with the exit code and the milliseconds from the signal to the exit. */
async function stop(served: Served, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; ms: number }> {
  const sent = performance.now();
  served.child.kill(signal);
  const { code, at } = await served.exited;
  return { code, ms: at - sent };
}

interface Reply {
  readonly status: number;
  readonly connection: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** One request on the agent; rejects on a connection error, and marks a response cut short before its end. */
function send(url: string, agent: Agent | false, method: string, path: string, key: string, body?: object): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, agent, headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', () => reject(Object.assign(new Error('response cut short'), { code: `CUT ${res.statusCode}` })));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, contentType: res.headers['content-type'], body: text }),
      );
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}


async function tokenKey(served: Served): Promise<string> {
  const created = await send(served.url, false, 'POST', '/applications', bannerKey(served.output()), {
    name: 'load',
    type: 'private',
    permissions: ['token:create', 'token:read'],
  });
  return (JSON.parse(created.body) as { key: string }).key;
}

/** A raw connection that reads responses one at a time (Content-Length bodies) and notices when the server closes. */
class RawConnection {
  private buffered = '';
  private waiting: (() => void) | undefined;
  closed = false;
  readonly socket: Socket;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = connect(Number(port), hostname);
    this.socket.setEncoding('latin1');
    this.socket.on('data', (data: string) => {
      this.buffered += data;
      this.waiting?.();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  async response(): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    for (let i = 0; i < 300; i++) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end !== -1) {
        const [statusLine = '', ...lines] = this.buffered.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffered.length >= end + 4 + length) {
          const body = this.buffered.slice(end + 4, end + 4 + length);
          this.buffered = this.buffered.slice(end + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) break;
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 20);
      });
    }
    throw new Error(`no complete response: ${JSON.stringify(this.buffered.slice(0, 200))}`);
  }

  async whenClosed(ms: number): Promise<boolean> {
    for (let i = 0; i < ms / 10 && !this.closed; i++) await new Promise((r) => setTimeout(r, 10));
    return this.closed;
  }
}

/** The WAL is checkpointed into svc.db and removed when the store closes. */
function walLeft(dataDir: string): number {
  const wal = join(dataDir, 'svc.db-wal');
  return existsSync(wal) ? statSync(wal).size : 0;
}

function attempt(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

/** The server stops listening one turn of its event loop after the signal; allow it 500 ms. */
async function refused(url: string): Promise<string> {
  let outcome = await attempt(url);
  for (let i = 0; i < 50 && outcome === 'connected'; i++) {
    await new Promise((r) => setTimeout(r, 10));
    outcome = await attempt(url);
  }
  return outcome;
}

interface LoadReport {
  readonly acknowledged: string[];
  readonly replies: Reply[][];
  readonly failures: string[];
}

/** Clients creating tokens, one kept-alive connection each, each until a request fails or after `max` requests. */
async function load(url: string, key: string, clients: number, max: number): Promise<LoadReport> {
  const report: LoadReport = { acknowledged: [], replies: [], failures: [] };
  await Promise.all(
    Array.from({ length: clients }, async (_, n) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const replies: Reply[] = (report.replies[n] = []);
      try {
        for (let i = 0; i < max; i++) {
          const reply = await send(url, agent, 'POST', '/tokens', key, { type: 'token', data: `client ${n} token ${i}` });
          replies.push(reply);
          if (reply.status === 201) report.acknowledged.push((JSON.parse(reply.body) as { id: string }).id);
        }
      } catch (error) {
        report.failures.push((error as NodeJS.ErrnoException).code ?? String(error));
      } finally {
        agent.destroy();
      }
    }),
  );
  return report;
}

describe('svc serve on SIGTERM and SIGINT', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run the build first (npm test does)`);
  });
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'svc-shutdown-'))));
  afterEach(() => {
    killServed();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('drains under load: responses in flight finish with Connection: close, new requests are refused, every acknowledged token is kept, and it exits 0 at once', async () => {
    const served = await serve(dataDir);
    const key = await tokenKey(served);

    // A request whose body is still arriving at the signal: its handler is running.
    const slow = new RawConnection(served.url);
    const slowBody = JSON.stringify({ type: 'token', data: 'slow' });
    slow.write(`POST /tokens HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${slowBody.length}\r\n\r\n`);
    slow.write(slowBody.slice(0, 10));
    // A kept-alive connection with the head of its next request half sent at the signal.
    const next = new RawConnection(served.url);
    next.write(`GET /tokens?size=1 HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: ${key}\r\n\r\n`);
    expect((await next.response()).headers.connection).toBe('keep-alive');
    next.write('POST /tokens HTTP/1.1\r\nHost: x\r\n');

    // Eight clients on kept-alive connections, each until its connection fails or 400 tokens (a few seconds at most).
    const running = load(served.url, key, 8, 400);
    await new Promise((r) => setTimeout(r, 400));
    const stopped = stop(served);
    await logged(served, 'shutting down');

    expect(await refused(served.url)).toBe('ECONNREFUSED');
    slow.write(slowBody.slice(10));
    const slowReply = await slow.response();
    expect(slowReply.status).toBe(201);
    expect(slowReply.headers.connection).toBe('close');
    expect(await slow.whenClosed(1_000)).toBe(true);
    next.write(`SVC-API-KEY: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${slowBody.length}\r\n\r\n${slowBody}`);
    const nextReply = await next.response();
    expect(nextReply.status).toBe(503);
    expect(nextReply.headers).toMatchObject({ connection: 'close', 'content-type': 'application/problem+json' });
    expect(JSON.parse(nextReply.body)).toMatchObject({ type: 'https://svc.dev/errors/unavailable', status: 503 });
    expect(await next.whenClosed(1_000)).toBe(true);

    const { code, ms } = await stopped;
    const report = await running;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(2_000);
    expect(served.output()).toContain('"msg":"shut down"');
    expect(walLeft(dataDir)).toBe(0);

    // No 201 was cut short, and no client got a response after one that said Connection: close (its next connection
    // was refused). A request sent on a connection the server had just closed as idle fails: it was never read.
    expect(report.failures.filter((f) => !['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(f))).toEqual([]);
    expect(report.acknowledged.length).toBeGreaterThan(50);
    for (const replies of report.replies) {
      const closing = replies.findIndex((r) => r.connection === 'close');
      expect(closing === -1 || closing === replies.length - 1).toBe(true);
      for (const r of replies) expect(r.status === 201 || (r.status === 503 && r.contentType === 'application/problem+json')).toBe(true);
    }

    // Every acknowledged token is there after a restart, and nothing else was written: no committed request was reset.
    const acknowledged = [...report.acknowledged, (JSON.parse(slowReply.body) as { id: string }).id];
    const again = await serve(dataDir);
    try {
      const listed = await send(again.url, false, 'GET', '/tokens?size=1', key);
      expect((JSON.parse(listed.body) as { pagination: { total_items: number } }).pagination.total_items).toBe(acknowledged.length);
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const statuses = await Promise.all(acknowledged.map(async (id) => (await send(again.url, agent, 'GET', `/tokens/${id}`, key)).status));
      agent.destroy();
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
    } finally {
      expect((await stop(again)).code).toBe(0);
    }
  }, 30_000);

  it.each(['SIGTERM', 'SIGINT'] as const)('closes an idle keep-alive connection at once on %s and exits 0', async (signal) => {
    const served = await serve(dataDir);
    const idle = new RawConnection(served.url);
    idle.write('GET /applications/key HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await idle.response()).headers.connection).toBe('keep-alive');
    const { code, ms } = await stop(served, signal);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(2_000);
    expect(await idle.whenClosed(500)).toBe(true);
    expect(served.output()).toContain(`"msg":"shutting down","signal":"${signal}"`);
    expect(walLeft(dataDir)).toBe(0);
  }, 20_000);

  it('cuts a client that never finishes its request at SVC_SHUTDOWN_TIMEOUT, says why, closes the store and exits 1', async () => {
    const served = await serve(dataDir, { SVC_SHUTDOWN_TIMEOUT: '300ms' });
    const key = await tokenKey(served);
    const stuck = new RawConnection(served.url);
    stuck.write(`POST /tokens HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ty`);
    await new Promise((r) => setTimeout(r, 100));
    const { code, ms } = await stop(served);
    expect(code).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(2_000);
    expect(served.output()).toMatch(/"msg":"shutdown deadline passed[^"]*","deadline_ms":300,"connections":1,"responses_cut_short":1/);
    expect(served.output()).not.toContain(key);
    expect(await stuck.whenClosed(500)).toBe(true);
    expect(walLeft(dataDir)).toBe(0);
  }, 20_000);

  it('waits for the work of clients that hung up before their answer, so the store never closes under a write', async () => {
    const served = await serve(dataDir);
    const key = await tokenKey(served);
    const body = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ type: 'token', data: `value ${i}` })));
    const sent = Array.from({ length: 20 }, () => {
      const socket = connect(Number(new URL(served.url).port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /tokenize HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        () => socket.destroy(),
      );
      return new Promise((resolve) => socket.once('close', resolve));
    });
    await Promise.all(sent);
    const { code } = await stop(served);
    expect(code).toBe(0);
    expect(served.output()).not.toMatch(/"level":"error"/);
    expect(walLeft(dataDir)).toBe(0);
  }, 20_000);

  it('does not wait for a webhook receiver that hangs: the attempt is left to its lease, the store closes, and it exits 0 at once', async () => {
    const received: string[] = [];
    const receiver = createServer((req) => received.push(String(req.headers['svc-event-type']))); // never answers
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    try {
      const served = await serve(dataDir, { SVC_OUTBOUND_ALLOW: `127.0.0.1:${port}` });
      const hook = await send(served.url, false, 'POST', '/webhooks', bannerKey(served.output()), {
        name: 'hangs',
        url: `http://127.0.0.1:${port}/in`,
        events: ['token.created'],
      });
      expect(hook.status).toBe(201);
      expect((await send(served.url, false, 'POST', '/tokens', await tokenKey(served), { type: 'token', data: 'x' })).status).toBe(201);
      for (let i = 0; i < 300 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(received).toEqual(['token.created']);
      const { code, ms } = await stop(served);
      expect(code).toBe(0);
      // The receiver's 10 s timeout is not waited for: at most the 2 s of patience, and the store's close.
      expect(ms).toBeLessThan(4_500);
      expect(served.output()).not.toMatch(/"level":"error"/);
      expect(walLeft(dataDir)).toBe(0);
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  }, 30_000);

  it('closes a connection whose request was answered before its body arrived, once the body is in', async () => {
    const served = await serve(dataDir);
    const early = new RawConnection(served.url);
    early.write('POST /tokens HTTP/1.1\r\nHost: x\r\nSVC-API-KEY: key_unknown\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"ty');
    expect((await early.response()).status).toBe(401);
    const stopped = stop(served);
    await logged(served, 'shutting down');
    early.write('pe":"token","data":"late"}');
    expect(await early.whenClosed(1_000)).toBe(true);
    const { code, ms } = await stopped;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(2_000);
  }, 20_000);

  it('exits 1 at once on a second signal during the drain', async () => {
    const served = await serve(dataDir);
    const stuck = new RawConnection(served.url);
    stuck.write('POST /tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ty');
    await new Promise((r) => setTimeout(r, 100));
    served.child.kill('SIGTERM');
    await logged(served, 'shutting down');
    const { code, ms } = await stop(served, 'SIGINT');
    expect(code).toBe(1);
    expect(ms).toBeLessThan(1_000);
    expect(served.output()).toContain('second signal during shutdown');
    stuck.socket.destroy();
  }, 20_000);

  it('refuses to start with a malformed SVC_SHUTDOWN_TIMEOUT and names it', async () => {
    await expect(serve(dataDir, { SVC_SHUTDOWN_TIMEOUT: 'soon' })).rejects.toThrow(/exited with 78[\s\S]*SVC_SHUTDOWN_TIMEOUT/);
  });
});
