import express from 'express';

/**
 * The baseline: a bare Express 5 server that parses JSON and echoes it, with no authentication, storage or
 * crypto. Each scenario's throughput is reported as a ratio to this on the same machine in the same run.
 */
const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '1mb' }));
app.get('/echo', (_req, res) => {
  res.json({ ok: true, at: new Date().toISOString() });
});
app.post('/echo', (req, res) => {
  res.status(201).json(req.body);
});

const port = Number(process.env.PORT ?? 0);
const server = app.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : port })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
