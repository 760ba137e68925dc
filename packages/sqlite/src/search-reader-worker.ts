import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection';
import { SqliteTokenRepository } from './sqlite-token.repository';
import type { ReaderRequest } from './search-readers';
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

parentPort!.on('message', (message: ReaderRequest & { seq: number }) => {
  const answer =
    message.op === 'searchAfter'
      ? tokens.searchAfter(message.tenantId, message.query, message.request, message.now)
      : tokens.search(message.tenantId, message.query, message.page, message.now);
  answer.then(
    (page) => parentPort!.postMessage({ seq: message.seq, page }),
    (error: unknown) => parentPort!.postMessage({ seq: message.seq, error: error instanceof Error ? error.message : String(error) }),
  );
});
