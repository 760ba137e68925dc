import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** The client's port: one per connection. */
  readonly remotePort: number;
}

export interface TestServer {
  readonly port: number;
  readonly received: ReceivedRequest[];
  /** TCP connections accepted, whether or not a request followed. */
  readonly connections: () => number;
  readonly close: () => Promise<void>;
}

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void;

/** An HTTPS (with a certificate) or HTTP server on 127.0.0.1 that records what reaches it. */
export async function startTestServer(handler: Handler, tls?: { cert: string; key: string }): Promise<TestServer> {
  const received: ReceivedRequest[] = [];
  let connections = 0;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), remotePort: req.socket.remotePort! };
      received.push(request);
      handler(request, res);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, onRequest) : createHttpServer(onRequest);
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
