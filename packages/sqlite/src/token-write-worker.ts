import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection';
import { applyBatch, type TokenWrite, TokenWrites } from './token-writes';

/**
 * The writer thread: its own connection to the file, committing the batches the main thread posts. The main thread
 * keeps serving requests while this one waits for fsync.
 */
const db = openConnection((workerData as { file: string }).file);
db.exec('ANALYZE sqlite_schema');
// The checkpointer thread keeps the WAL short; this is only the backstop (see checkpointer.ts).
db.pragma(`wal_autocheckpoint = ${(workerData as { autocheckpoint?: number }).autocheckpoint ?? 1000}`);
const writes = new TokenWrites(db);

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
});
