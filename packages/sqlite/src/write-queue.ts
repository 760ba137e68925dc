import type { Database } from 'better-sqlite3';

interface Job {
  readonly run: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit. Writes that arrive in the same turn of the event loop run in one IMMEDIATE transaction, each inside
 * its own savepoint so one failure does not undo the others, and share a single fsync. A write's promise settles
 * only after the transaction commits: nothing is acknowledged before it is durable.
 */
export class WriteQueue {
  private jobs: Job[] = [];
  private scheduled = false;

  constructor(private readonly db: Database) {}

  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ run: write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const jobs = this.jobs;
    this.jobs = [];
    this.scheduled = false;
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const job of jobs) {
            try {
              outcomes.push({ ok: true, value: this.db.transaction(job.run)() });
            } catch (error) {
              outcomes.push({ ok: false, value: error });
            }
          }
        })
        .immediate();
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    });
  }
}
