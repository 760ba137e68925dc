import type { TokenWrite } from './token-writes';

/** One committed batch: how many writes, how long its oldest write waited to be sent, how long the commit took. */
export type BatchObserver = (batch: { readonly writes: number; readonly waitMs: number; readonly commitMs: number }) => void;

/** Where token writes run: this thread (`InProcessTokenWriter`) or the writer thread (`ThreadTokenWriter`). */
export interface TokenWriter {
  run(write: TokenWrite): Promise<unknown>;
  close(): Promise<void>;
}

interface Job {
  readonly write: TokenWrite;
  /** performance.now() when queued, only while batches are observed. */
  readonly queuedAt: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit. Writes that arrive while a batch is committing (or in the same turn of the event loop) are committed
 * together in one transaction and share one fsync. A write's promise settles only after its transaction commits:
 * nothing is acknowledged before it is durable. Up to `maxInFlight` batches may be handed over at once: the writer
 * thread then finds the next batch waiting when it finishes a commit, instead of idling until this thread (often
 * busy preparing other requests) hears of the commit and sends more. Batches commit in the order they were sent.
 */
export abstract class BatchingWriter implements TokenWriter {
  private queued: Job[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idleWaiters: Array<() => void> = [];
  private observer: BatchObserver | undefined;

  constructor(private readonly maxInFlight = 1) {}

  /** Reports each committed batch (metrics); off by default, and then nothing is timed. */
  observeBatches(observer: BatchObserver): void {
    this.observer = observer;
  }

  run(write: TokenWrite): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queued.push({ write, queuedAt: this.observer ? performance.now() : 0, resolve, reject });
      this.schedule();
    });
  }

  abstract close(): Promise<void>;

  /** Resolves once every write queued so far has committed (or failed): a close waits for it, so no write is cut off. */
  protected whenIdle(): Promise<void> {
    return this.idle() ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Commits one batch; per-write outcomes in order, or throws when the whole transaction failed. */
  protected abstract commit(batch: readonly TokenWrite[]): Promise<Array<{ ok: boolean; value: unknown }>>;

  private idle(): boolean {
    return this.queued.length === 0 && this.inFlight === 0 && !this.scheduled;
  }

  /** Sends what is queued at the end of this turn of the event loop, so writes of the same turn share a batch. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queued.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sendBatch();
    });
  }

  private sendBatch(): void {
    if (this.inFlight >= this.maxInFlight || this.queued.length === 0) return this.settleIdle();
    const jobs = this.queued;
    this.queued = [];
    this.inFlight++;
    // The next batch goes before this one's callers hear back: answering them (their responses written to sockets)
    // would otherwise keep the writer idle meanwhile. A close waits for those answers too.
    const next = (): void => {
      this.inFlight--;
      // What queued meanwhile goes at once: it has already waited for a batch to finish.
      if (this.queued.length > 0) this.sendBatch();
    };
    const sentAt = this.observer ? performance.now() : 0;
    void this.commit(jobs.map((j) => j.write)).then(
      (outcomes) => {
        next();
        if (this.observer) {
          const now = performance.now();
          this.observer({ writes: jobs.length, waitMs: sentAt - jobs[0]!.queuedAt, commitMs: now - sentAt });
        }
        jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)));
        this.settleIdle();
      },
      (error: unknown) => {
        next();
        jobs.forEach((job) => job.reject(error));
        this.settleIdle();
      },
    );
    this.schedule();
  }

  private settleIdle(): void {
    if (this.idle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
