import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection';
import { SqliteTokenRepository } from './sqlite-token.repository';
import { TokenCommits } from './token-commits';
import type { ReaderRequest } from './search-readers';
import type { TokenWriter } from './write-queue';

/**
 * A search reader: its own connection to the file (WAL lets it read while others write), answering the searches the
 * main thread posts, so a count over thousands of rows never holds the event loop.
 */
const { file, broadLeaf, commits: counted, snapshotMs = 200 } = workerData as { file: string; broadLeaf: number; commits: SharedArrayBuffer; snapshotMs?: number };
const db = openConnection(file);
db.exec('ANALYZE sqlite_schema');
const noWrites: TokenWriter = {
  run: () => Promise.reject(new Error('search readers do not write')),
  close: async () => {},
};
const tokens = new SqliteTokenRepository(db, noWrites, broadLeaf);
const commits = new TokenCommits(counted);

/**
 * The longest a snapshot is kept, in ms (200 unless a test says otherwise), whatever the count says. A reader inside
 * the WAL keeps it from restarting (the writer waits at most 250 ms for readers when it truncates it, see
 * token-write-worker.ts), and a token written by another process (the SQLite store serves one, but the sqlite3 shell
 * can write) is seen within this time.
 */
const SNAPSHOT_MS = snapshotMs;

/** The read transaction kept open between searches: the token commits counted when it began, and when. */
let snapshot: { readonly commits: number; readonly since: number } | undefined;

/**
 * Keeps the open snapshot while no token commit has been counted since it began (see TokenCommits), and it is young
 * and still open; otherwise ends it and begins another. The count is read before BEGIN, and SQLite takes the snapshot
 * at the first read after it: a commit counted later than that read may already be in the snapshot (the next search
 * then begins another, needlessly but safely), and one counted before it always is.
 */
function readSnapshot(): void {
  const count = commits.current();
  const now = performance.now();
  if (snapshot && db.inTransaction && snapshot.commits === count && now - snapshot.since < SNAPSHOT_MS) return;
  if (db.inTransaction) db.exec('COMMIT');
  db.exec('BEGIN');
  const begun = { commits: count, since: now };
  snapshot = begun;
  // An idle reader lets go of its snapshot once it is old, so it never holds the WAL back for long.
  setTimeout(() => {
    if (snapshot !== begun) return;
    snapshot = undefined;
    if (db.inTransaction) db.exec('COMMIT');
  }, SNAPSHOT_MS).unref();
}

parentPort!.on('message', (message: ReaderRequest & { seq: number }) => {
  const answer = new Promise<unknown>((resolve) => {
    readSnapshot();
    resolve(
      message.op === 'searchAfter'
        ? tokens.searchAfter(message.tenantId, message.query, message.request, message.now)
        : tokens.search(message.tenantId, message.query, message.page, message.now),
    );
  });
  answer.then(
    (page) => parentPort!.postMessage({ seq: message.seq, page }),
    (error: unknown) => parentPort!.postMessage({ seq: message.seq, error: error instanceof Error ? error.message : String(error) }),
  );
});
