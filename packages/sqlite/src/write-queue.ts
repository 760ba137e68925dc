import type { TokenWrite } from './token-writes';

/** Where token writes run: this thread (`InProcessTokenWriter`) or the writer thread (`ThreadTokenWriter`). */
export interface TokenWriter {
  run(write: TokenWrite): Promise<unknown>;
  close(): Promise<void>;
}

interface Job {
  readonly write: TokenWrite;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit. Writes that arrive while the previous batch is committing (or in the same turn of the event loop)
 * are committed together in one transaction and share one fsync. A write's promise settles only after its
 * transaction commits: nothing is acknowledged before it is durable.
 */
export abstract class BatchingWriter implements TokenWriter {
  private queued: Job[] = [];
  private busy = false;
  private idleWaiters: Array<() => void> = [];

  run(write: TokenWrite): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queued.push({ write, resolve, reject });
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  abstract close(): Promise<void>;

  /** Resolves once every write queued so far has committed (or failed): a close waits for it, so no write is cut off. */
  protected whenIdle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.idleWaiters.push(resolve)) : Promise.resolve();
  }

  /** Commits one batch; per-write outcomes in order, or throws when the whole transaction failed. */
  protected abstract commit(batch: readonly TokenWrite[]): Promise<Array<{ ok: boolean; value: unknown }>>;

  private async drain(): Promise<void> {
    while (this.queued.length > 0) {
      const jobs = this.queued;
      this.queued = [];
      try {
        const outcomes = await this.commit(jobs.map((j) => j.write));
        jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)));
      } catch (error) {
        jobs.forEach((job) => job.reject(error));
      }
    }
    this.busy = false;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
