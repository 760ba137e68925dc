/**
 * How many commits have changed the token tables (tokens, their index hashes and metadata pairs), counted in memory
 * that the writer and the search readers share. A reader keeps one read snapshot, and with it its page cache, for as
 * long as this count stays where it was when the snapshot began: SQLite empties a connection's page cache at the start
 * of every read transaction after any commit, and most commits (the audit event of each read and search) change no
 * token. The writer counts a commit before it acknowledges the commit's writes, so a search that starts after a write
 * was acknowledged always reads a snapshot that holds it.
 */
export class TokenCommits {
  private readonly count: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.count = new Int32Array(buffer);
  }

  /** The number of token commits so far (wraps around; only compared for equality). */
  current(): number {
    return Atomics.load(this.count, 0);
  }

  committed(): void {
    Atomics.add(this.count, 0, 1);
  }
}

/** Writes that change no token table: every other write, including any added later, counts as a token commit. */
const TOKENLESS: ReadonlySet<string> = new Set(['appendEvents', 'chainEvents', 'chainPending', 'ping']);

export const changesTokens = (write: { readonly op: string }): boolean => !TOKENLESS.has(write.op);
