import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection';
import { SqliteTokenRepository } from './sqlite-token.repository';
import type { TokenWriter } from './write-queue';

/**
 * A search reader: its own connection to the file (WAL lets it read while others write), answering the searches the
 * main thread posts, so a count over thousands of rows never holds the event loop.
 */
const { file, broadLeaf } = workerData as { file: string; broadLeaf: number };
const db = openConnection(file);
db.exec('ANALYZE sqlite_schema');
const noWrites: TokenWriter = {
  run: () => Promise.reject(new Error('search readers do not write')),
  close: async () => {},
};
const tokens = new SqliteTokenRepository(db, noWrites, broadLeaf);

parentPort!.on('message', (message: { seq: number; tenantId: string; query: never; page: never; now: Date }) => {
  tokens.search(message.tenantId, message.query, message.page, message.now).then(
    (page) => parentPort!.postMessage({ seq: message.seq, page }),
    (error: unknown) => parentPort!.postMessage({ seq: message.seq, error: error instanceof Error ? error.message : String(error) }),
  );
});
