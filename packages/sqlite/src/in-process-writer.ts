import type { Database } from 'better-sqlite3';
import { applyBatch, type TokenWrite, TokenWrites } from './token-writes';
import { BatchingWriter } from './write-queue';

/** Group commit on the main connection: simple, and the fsync blocks the event loop while it lasts. */
export class InProcessTokenWriter extends BatchingWriter {
  private readonly writes: TokenWrites;

  constructor(private readonly db: Database) {
    super();
    this.writes = new TokenWrites(db);
  }

  protected async commit(batch: readonly TokenWrite[]): Promise<Array<{ ok: boolean; value: unknown }>> {
    return applyBatch(this.db, this.writes, batch);
  }

  async close(): Promise<void> {
    await this.whenIdle();
  }
}
