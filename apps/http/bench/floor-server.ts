import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import express, { type NextFunction, type Request, type Response } from 'express';
import { FLOOR_INSERT, FLOOR_SCHEMA, type FloorRow } from './floor-schema';

/**
 * The floor: a bare Express server doing only what a vault's single-token request cannot skip, on a SQLite file of
 * its own, so the bench can show how close to the echo a vault can get on this machine at all. Every request pays the
 * edge headers (trace id, no-store, nosniff), the API key's SHA-256 and the read of the key-change counter (a key
 * revoked by another connection stops working at once). Then:
 * - `GET /tokens/:id`: the row by tenant and id, live only; AES-256-GCM open; the token as JSON.
 * - `POST /tokens/search`: the JSON body; `id:X` read as above; a page of it as JSON.
 * - `POST /tokens`: the JSON body; an HMAC fingerprint; AES-256-GCM seal; the row and the vault's four token indexes
 *   committed durably (WAL, synchronous=FULL) by a writer thread that commits whatever arrived during its last commit;
 *   then the token as JSON.
 * Left out, and all paid by the vault: access rules, masks, validation, deduplication, search indexes, metadata, the
 * audit log (an event per read, chained events per write), idempotency, metrics. FLOOR_DB names the file, FLOOR_TOKEN_ID
 * the token it starts with.
 */
const file = process.env.FLOOR_DB ?? join(process.cwd(), 'floor.db');
const tenantId = randomUUID();
const tokenId = process.env.FLOOR_TOKEN_ID ?? randomUUID();
const dataKey = randomBytes(32);
const fingerprintKey = randomBytes(32);

function seal(id: string, data: unknown): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(Buffer.from(id));
  const body = Buffer.concat([cipher.update(JSON.stringify(data)), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function open(id: string, sealed: Buffer): unknown {
  const decipher = createDecipheriv('aes-256-gcm', dataKey, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(id));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return JSON.parse(Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString());
}

const db = new BetterSqlite3(file);
db.pragma('journal_mode = WAL');
db.exec(FLOOR_SCHEMA);
const changes = db.prepare('SELECT n FROM key_changes WHERE id = 1').pluck();
const byId = db.prepare('SELECT * FROM tokens WHERE tenant_id = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)');
const first: FloorRow = [tenantId, tokenId, 'card_number', seal(tokenId, '4242424242424242'), 'floor', '/pci/high/', Date.now()];
db.prepare(FLOOR_INSERT).run(first);

const writer = new Worker(join(__dirname, 'floor-writer.js'), { workerData: { file } });
const waiting = new Map<number, () => void>();
let sent = 0;
writer.on('message', (done: number[]) => {
  for (const n of done) {
    waiting.get(n)?.();
    waiting.delete(n);
  }
});

interface StoredToken {
  readonly tenant_id: string;
  readonly id: string;
  readonly type: string;
  readonly sealed_data: Buffer;
  readonly fingerprint: string;
  readonly container: string;
  readonly created_at: number;
}

const keys = new Map<string, number>();
let keysSeen = -1;

/** The key's digest looked up in a cache that the change counter clears, as the vault's key cache does. */
function authenticate(req: Request, res: Response, next: NextFunction): void {
  const digest = createHash('sha256').update(req.get('svc-api-key') ?? '').digest('hex');
  const seen = changes.get() as number;
  if (seen !== keysSeen) {
    keys.clear();
    keysSeen = seen;
  }
  if (!keys.has(digest)) keys.set(digest, seen);
  res.setHeader('SVC-TRACE-ID', randomUUID());
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}

function present(row: StoredToken, data: unknown): object {
  return {
    id: row.id,
    type: row.type,
    tenant_id: row.tenant_id,
    data,
    fingerprint: row.fingerprint,
    containers: [row.container],
    metadata: {},
    created_at: new Date(row.created_at).toISOString(),
  };
}

function send(res: Response, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(authenticate);
app.get('/tokens/:id', (req, res) => {
  const row = byId.get(tenantId, req.params.id, Date.now()) as StoredToken | undefined;
  if (!row) send(res, 404, { status: 404 });
  else send(res, 200, present(row, open(row.id, row.sealed_data)));
});
app.post('/tokens/search', express.json(), (req, res) => {
  const query = (req.body as { query?: unknown } | undefined)?.query;
  const id = typeof query === 'string' && query.startsWith('id:') ? query.slice(3) : '';
  const row = byId.get(tenantId, id, Date.now()) as StoredToken | undefined;
  const data = row ? [present(row, open(row.id, row.sealed_data))] : [];
  send(res, 200, { pagination: { total_items: data.length, page_number: 1, page_size: 20, total_pages: 1 }, data });
});
app.post('/tokens', express.json(), (req, res) => {
  const { type, data } = req.body as { type: string; data: unknown };
  const now = Date.now();
  const n = ++sent;
  // Time-ordered ids, as the vault's: each insert lands at the end of every index.
  const id = `${now.toString(16).padStart(12, '0')}-${n.toString(16).padStart(8, '0')}-${randomUUID().slice(19)}`;
  const fingerprint = createHmac('sha256', fingerprintKey).update(JSON.stringify(data)).digest('base64url');
  const row: FloorRow = [tenantId, id, type, seal(id, data), fingerprint, '/pci/high/', now];
  waiting.set(n, () => send(res, 201, present({ tenant_id: tenantId, id, type, sealed_data: row[3], fingerprint, container: row[5], created_at: now }, undefined)));
  writer.postMessage({ n, row });
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.once('SIGTERM', () =>
  server.close(() => {
    void writer.terminate().then(() => {
      db.close();
      process.exit(0);
    });
  }),
);
