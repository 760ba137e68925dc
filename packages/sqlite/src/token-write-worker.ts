import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection';
import { applyBatch, type TokenWrite, TokenWrites } from './token-writes';

/**
 * The writer thread: its own connection to the file, committing the batches the main thread posts. The main thread
 * keeps serving requests while this one waits for fsync.
 */
const { file, autocheckpoint = 1000 } = workerData as { file: string; autocheckpoint?: number };
const db = openConnection(file);
db.exec('ANALYZE sqlite_schema');
// Each write runs in a savepoint, whose journal of the pages it changes spills to a temporary file past 64 KiB: a
// token with its audit event and index entries changes about that many, and creating, writing and deleting that
// file for each write took as long as the writes themselves. This connection only runs token writes (no large
// sorts), so its temporary storage stays small in memory.
db.pragma('temp_store = MEMORY');
// The checkpointer thread keeps the WAL short; this is only the backstop (see checkpointer.ts).
db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
const backstopBytes = autocheckpoint * (db.pragma('page_size', { simple: true }) as number);
// When the WAL restarts from its beginning, the file is cut back to the backstop's size: its size then tells whether
// the WAL has restarted since it last grew past that.
db.pragma(`journal_size_limit = ${backstopBytes}`);
const writes = new TokenWrites(db);

let nextTruncate = 0;

/**
 * Keeps the WAL bounded under readers that never all stop. The WAL restarts only when a write begins with every frame
 * checkpointed and no reader inside it; search readers under load overlap, each starting before the last ends, and
 * then neither the checkpointer's PASSIVE checkpoints nor the backstop ever let it restart: it grew by hundreds of
 * megabytes a minute. Past twice the backstop, this thread makes the moment itself, between two batches: a TRUNCATE
 * checkpoint copies what is left, waits (at most 250 ms) for the readers still inside the WAL to finish, those that
 * start meanwhile reading the database file, and empties it. Commits wait for it, only then. An attempt that failed
 * is retried after four times what it took, so failed waits take at most a fifth of this thread's time.
 */
function boundWal(): void {
  if (performance.now() < nextTruncate || walBytes() <= 2 * backstopBytes) return;
  const started = performance.now();
  const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 250');
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    if (result?.busy) nextTruncate = performance.now() + 4 * (performance.now() - started);
  } catch {
    nextTruncate = performance.now() + 1_000;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}

function walBytes(): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

const serializable = (error: unknown): { message: string; code?: string } => ({
  message: error instanceof Error ? error.message : String(error),
  ...(typeof (error as { code?: unknown }).code === 'string' ? { code: (error as { code: string }).code } : {}),
});

parentPort!.on('message', (message: { seq: number; batch?: TokenWrite[]; close?: boolean }) => {
  if (message.close) {
    db.close();
    parentPort!.postMessage({ seq: message.seq, closed: true });
    return;
  }
  try {
    const outcomes = applyBatch(db, writes, message.batch!).map((o) => (o.ok ? o : { ok: false, value: serializable(o.value) }));
    parentPort!.postMessage({ seq: message.seq, outcomes });
  } catch (error) {
    parentPort!.postMessage({ seq: message.seq, failed: serializable(error) });
  }
  // After the answer: the batch just committed is acknowledged without waiting for this.
  boundWal();
});
