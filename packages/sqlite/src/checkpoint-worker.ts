import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection';

/**
 * The checkpointer: its own connection, copying committed WAL frames into the database file (a PASSIVE checkpoint,
 * which never blocks a reader or the writer) every `intervalMs`. The writer thread leaves this work here, so its
 * commits never wait for a checkpoint's copy and fsync (see Checkpointer).
 */
const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = openConnection(file);

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or interrupted: the next tick tries again, and the writer's own backstop bounds the WAL meanwhile.
  }
}, intervalMs);

parentPort!.on('message', (message: { close?: boolean }) => {
  if (!message.close) return;
  clearInterval(timer);
  db.close();
  parentPort!.postMessage({ closed: true });
});
