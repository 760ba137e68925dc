import { createServer } from 'node:https';

/**
 * The proxy scenario's destination: a bare Node HTTPS server on 127.0.0.1 standing in for a payment processor, with a
 * certificate signed by a CA made for the run (DEST_CERT, DEST_KEY: PEM). `POST /charge` answers 200 and a small JSON
 * body when the JSON body carries an `amount` and a card number in plain digits, and 422 otherwise: a token the proxy
 * failed to detokenize counts as a non-2xx answer in the bench instead of passing unnoticed.
 */
const server = createServer({ cert: process.env.DEST_CERT, key: process.env.DEST_KEY }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let body: { amount?: unknown; card?: unknown } | undefined;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      body = undefined;
    }
    const card = body?.card;
    const ok = req.method === 'POST' && req.url === '/charge' && typeof body?.amount === 'number' && typeof card === 'string' && /^\d{12,19}$/.test(card);
    const answer = ok
      ? JSON.stringify({ id: 'ch_bench', status: 'succeeded', amount: body!.amount, last4: (card as string).slice(-4) })
      : JSON.stringify({ error: 'expected POST /charge with an amount and a card number' });
    res.writeHead(ok ? 200 : 422, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});

const port = Number(process.env.PORT ?? 0);
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : port })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
