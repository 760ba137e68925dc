import { createServer, type AddressInfo } from 'node:net';
import { OutboundError, OutboundPolicy } from '@svc/core';
import { makeTestCertificates, type TestCertificates } from '../testing/test-ca';
import { type Handler, startTestServer, type TestServer } from '../testing/test-server';
import { UndiciOutboundHttp, type UndiciOutboundHttpOptions } from './undici-outbound-http';

const ok: Handler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'x-answer': 'yes' });
  response.end('{"ok":true}');
};

describe('UndiciOutboundHttp against local servers', () => {
  let certs: TestCertificates;
  const servers: TestServer[] = [];
  const clients: UndiciOutboundHttp[] = [];

  beforeAll(() => {
    certs = makeTestCertificates();
  });
  afterAll(() => certs.dispose());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function https(handler: Handler = ok): Promise<TestServer> {
    const server = await startTestServer(handler, certs);
    servers.push(server);
    return server;
  }

  function client(allow: string | undefined, options: Partial<UndiciOutboundHttpOptions> = {}): UndiciOutboundHttp {
    const made = new UndiciOutboundHttp({ policy: OutboundPolicy.fromAllowList(allow), extraCa: certs.caPem, ...options });
    clients.push(made);
    return made;
  }

  async function failure(promise: Promise<unknown>): Promise<OutboundError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    return error as OutboundError;
  }

  const get = (url: string, timeoutMs = 5000) => ({ method: 'GET', url, headers: {}, timeoutMs });

  /** Resolves once `done` holds, polling every 10 ms. */
  async function until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it('sends method, headers and body to an allowed destination and returns its answer', async () => {
    const server = await https();
    const response = await client(`127.0.0.1:${server.port}`).send({
      method: 'POST',
      url: `https://127.0.0.1:${server.port}/hooks/in?x=1`,
      headers: { 'content-type': 'application/json', 'x-signature': 't=1,v1=ab' },
      body: '{"event":"token.created"}',
      timeoutMs: 5000,
    });

    expect(response.status).toBe(200);
    expect(response.headers['x-answer']).toBe('yes');
    expect(Buffer.from(response.body).toString()).toBe('{"ok":true}');
    expect(server.received).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/hooks/in?x=1',
        body: '{"event":"token.created"}',
        headers: expect.objectContaining({ 'content-type': 'application/json', 'x-signature': 't=1,v1=ab' }),
      }),
    ]);
  });

  it('reuses one pooled connection for successive requests', async () => {
    const server = await https();
    const http = client(`127.0.0.1:${server.port}`);
    for (let i = 0; i < 6; i++) await http.send(get(`https://127.0.0.1:${server.port}/`));
    expect(server.received).toHaveLength(6);
    // A request sent as the previous answer ends may open a second connection; most reuse one.
    expect(new Set(server.received.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });

  it('refuses the same destination without the allowance before opening any connection', async () => {
    const server = await https();
    const error = await failure(client(`127.0.0.1:${server.port + 1}`).send(get(`https://127.0.0.1:${server.port}/`)));
    expect(error.kind).toBe('refused');
    expect(error.message).toMatch(/loopback/);
    expect(server.connections()).toBe(0);
  });

  it('refuses a host name that resolves to 127.0.0.1, checking the address it would connect to', async () => {
    const server = await https();
    const resolved: string[] = [];
    const resolve = async (hostname: string) => {
      resolved.push(hostname);
      return ['127.0.0.1'];
    };
    const error = await failure(client(undefined, { resolve }).send(get(`https://svc-test.example:${server.port}/`)));
    expect(error.kind).toBe('refused');
    expect(resolved).toEqual(['svc-test.example']);
    expect(server.connections()).toBe(0);
  });

  it('refuses a name whose answer holds one private address among public ones', async () => {
    const server = await https();
    const resolve = async () => ['93.184.216.34', '::ffff:10.0.0.1'];
    const error = await failure(client(undefined, { resolve }).send(get(`https://svc-test.example:${server.port}/`)));
    expect(error.kind).toBe('refused');
  });

  it('refuses localhost through the system resolver', async () => {
    const server = await https();
    const error = await failure(client(undefined).send(get(`https://localhost:${server.port}/`)));
    expect(error.kind).toBe('refused');
    expect(server.connections()).toBe(0);
  });

  it('connects a listed host name to the address it resolves to, verifying the certificate for the name', async () => {
    const server = await https();
    const response = await client(`svc-test.example:${server.port}`, { resolve: async () => ['127.0.0.1'] }).send(
      get(`https://svc-test.example:${server.port}/named`),
    );
    expect(response.status).toBe(200);
    expect(server.received[0]!.headers.host).toBe(`svc-test.example:${server.port}`);
  });

  it('refuses a certificate of the trusted CA that does not name the host, on every new connection', async () => {
    const server = await https();
    const http = client(`svc-other.example:${server.port}`, { resolve: async () => ['127.0.0.1'] });
    // Twice: the second connection is made with the same (kept) secure context, and is checked as the first was.
    for (let i = 0; i < 2; i++) expect((await failure(http.send(get(`https://svc-other.example:${server.port}/`)))).kind).toBe('unreachable');
    expect(server.received).toHaveLength(0);
  });

  it('refuses plain http unless the destination is listed', async () => {
    const server = await startTestServer(ok);
    servers.push(server);
    const refused = await failure(client(undefined).send(get(`http://127.0.0.1:${server.port}/`)));
    expect(refused.kind).toBe('refused');
    expect(refused.message).toMatch(/https/);
    expect(server.connections()).toBe(0);

    const response = await client(`127.0.0.1:${server.port}`).send(get(`http://127.0.0.1:${server.port}/`));
    expect(response.status).toBe(200);
  });

  it('returns a redirect as the answer instead of following it', async () => {
    const server = await https((_request, response) => {
      response.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data/' });
      response.end();
    });
    const response = await client(`127.0.0.1:${server.port}`).send(get(`https://127.0.0.1:${server.port}/`));
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('https://169.254.169.254/latest/meta-data/');
    expect(server.received).toHaveLength(1);
  });

  it('gives up on a destination that never answers with a timeout, within the bound', async () => {
    const server = await https(() => undefined);
    const started = Date.now();
    const error = await failure(client(`127.0.0.1:${server.port}`).send(get(`https://127.0.0.1:${server.port}/`, 300)));
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out on a server that accepts the connection but never completes TLS', async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const error = await failure(client(`127.0.0.1:${port}`).send(get(`https://127.0.0.1:${port}/`, 300)));
      expect(error.kind).toBe('timeout');
    } finally {
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    }
  });

  it('reports a closed port as unreachable', async () => {
    const server = await https();
    const port = server.port;
    await server.close();
    servers.splice(0);
    const error = await failure(client(`127.0.0.1:${port}`).send(get(`https://127.0.0.1:${port}/`)));
    expect(error.kind).toBe('unreachable');
  });

  it('reports an untrusted certificate as unreachable when SVC_OUTBOUND_CA is not given', async () => {
    const server = await https();
    const error = await failure(client(`127.0.0.1:${server.port}`, { extraCa: undefined }).send(get(`https://127.0.0.1:${server.port}/`)));
    expect(error.kind).toBe('unreachable');
    expect(server.received).toHaveLength(0);
  });

  it('refuses an answer larger than the bound, declared or streamed', async () => {
    const big = Buffer.alloc(64 * 1024, 'a');
    const declared = await https((_request, response) => {
      response.writeHead(200, { 'content-length': String(big.length) });
      response.end(big);
    });
    const streamed = await https((_request, response) => {
      response.writeHead(200);
      response.write(big);
      response.end(big);
    });
    const http = client(`127.0.0.1`, { maxResponseBytes: 32 * 1024 });
    expect((await failure(http.send(get(`https://127.0.0.1:${declared.port}/`)))).kind).toBe('response_too_large');
    expect((await failure(http.send(get(`https://127.0.0.1:${streamed.port}/`)))).kind).toBe('response_too_large');
  });

  describe('open: answers handed over as they arrive', () => {
    async function read(body: AsyncIterable<Uint8Array>): Promise<{ text: string; chunks: number }> {
      let text = '';
      let chunks = 0;
      for await (const chunk of body) {
        text += Buffer.from(chunk).toString();
        chunks++;
      }
      return { text, chunks };
    }

    it('gives the status and headers first, then the body chunk by chunk, under the same policy', async () => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const server = await https((_request, response) => {
        response.writeHead(202, { 'x-answer': 'streamed' });
        response.write('first,');
        void released.then(() => response.end('second'));
      });
      const http = client(`127.0.0.1:${server.port}`);
      const stream = await http.open({ ...get(`https://127.0.0.1:${server.port}/s`), maxBodyBytes: 1024 });
      // The answer's head arrived while its body is still held back by the server.
      expect(stream.status).toBe(202);
      expect(stream.headers['x-answer']).toBe('streamed');
      release();
      expect((await read(stream.body)).text).toBe('first,second');
      expect((await failure(client(undefined).open({ ...get(`https://127.0.0.1:${server.port}/`), maxBodyBytes: 1024 }))).kind).toBe('refused');
    });

    it('refuses a body larger than maxBodyBytes, declared before reading or found while reading', async () => {
      const big = Buffer.alloc(64 * 1024, 'a');
      const declared = await https((_request, response) => {
        response.writeHead(200, { 'content-length': String(big.length) });
        response.end(big);
      });
      const streamed = await https((_request, response) => {
        response.writeHead(200);
        response.write(big);
        response.end(big);
      });
      const http = client('127.0.0.1');
      expect((await failure(http.open({ ...get(`https://127.0.0.1:${declared.port}/`), maxBodyBytes: 32 * 1024 }))).kind).toBe('response_too_large');
      const stream = await http.open({ ...get(`https://127.0.0.1:${streamed.port}/`), maxBodyBytes: 96 * 1024 });
      expect((await failure(read(stream.body))).kind).toBe('response_too_large');
    });

    it('times out waiting for the head, and on a body that stalls midway', async () => {
      const silent = await https(() => undefined);
      const stalling = await https((_request, response) => {
        response.writeHead(200);
        response.write('partial');
      });
      const http = client('127.0.0.1');
      expect((await failure(http.open({ ...get(`https://127.0.0.1:${silent.port}/`, 300), maxBodyBytes: 1024 }))).kind).toBe('timeout');
      const stream = await http.open({ ...get(`https://127.0.0.1:${stalling.port}/`, 300), maxBodyBytes: 1024 });
      expect((await failure(read(stream.body))).kind).toBe('timeout');
    });

    it('ends the exchange and closes its socket when the signal aborts, waiting for the head or reading the body', async () => {
      const closed: Array<Promise<void>> = [];
      const hanging = await https((_request, response) => {
        closed.push(new Promise((resolve) => response.once('close', () => resolve())));
        // The head never comes.
      });
      const trickling = await https((_request, response) => {
        closed.push(new Promise((resolve) => response.once('close', () => resolve())));
        response.writeHead(200);
        response.write('partial');
      });
      const http = client('127.0.0.1');
      // A timeout far past the test's own: only the abort can end these exchanges in time.
      const waiting = new AbortController();
      const opened = http.open({ ...get(`https://127.0.0.1:${hanging.port}/`, 60_000), maxBodyBytes: 1024, signal: waiting.signal });
      await until(() => closed.length === 1);
      waiting.abort();
      expect((await failure(opened)).kind).toBe('unreachable');
      await closed[0];
      const reading = new AbortController();
      const stream = await http.open({ ...get(`https://127.0.0.1:${trickling.port}/`, 60_000), maxBodyBytes: 1024, signal: reading.signal });
      const body = read(stream.body);
      reading.abort();
      await failure(body);
      await closed[1];
      // Aborted before it began, nothing is sent.
      const early = new AbortController();
      early.abort();
      expect((await failure(http.open({ ...get(`https://127.0.0.1:${trickling.port}/`), maxBodyBytes: 1024, signal: early.signal }))).kind).toBe('unreachable');
      expect(trickling.received).toHaveLength(1);
    });

    it('cancel releases an answer not read to the end', async () => {
      const server = await https((_request, response) => {
        response.writeHead(200);
        response.write('never finished');
      });
      const http = client('127.0.0.1');
      const stream = await http.open({ ...get(`https://127.0.0.1:${server.port}/`), maxBodyBytes: 1024 });
      stream.cancel();
      // The next request is answered: cancelling broke nothing in the pool.
      const again = await http.open({ ...get(`https://127.0.0.1:${server.port}/`, 2000), maxBodyBytes: 1024 });
      expect(again.status).toBe(200);
      again.cancel();
    });
  });
});
