import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { FLOOR_INSERT, type FloorRow } from './floor-schema';

/**
 * The floor's writer thread (floor-server.ts): group commit, as the vault's writer does. The rows that arrive in one
 * turn of this thread's event loop (those sent while the last commit ran among them) go in one transaction, durable
 * (synchronous=FULL) before they are answered.
 */
const db = new BetterSqlite3((workerData as { file: string }).file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
const insert = db.prepare(FLOOR_INSERT);
const insertAll = db.transaction((rows: readonly FloorRow[]) => {
  for (const row of rows) insert.run(row);
});

interface Write {
  readonly n: number;
  readonly row: FloorRow;
}

let queued: Write[] = [];
let committing = false;

function commit(): void {
  const batch = queued;
  queued = [];
  insertAll(batch.map((write) => write.row));
  parentPort!.postMessage(batch.map((write) => write.n));
  committing = false;
}

parentPort!.on('message', (write: Write) => {
  queued.push(write);
  if (!committing) {
    committing = true;
    setImmediate(commit);
  }
});
