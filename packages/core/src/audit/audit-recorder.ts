import type { AuditEvent } from './audit-event';
import type { AuditLogRepository } from './audit-log';
import type { AuditTrail } from './audit';

export interface AuditRecorderOptions {
  /** Longest an event waits in memory before its batch is written (ADR 4: at most 100 ms of read events lost). */
  readonly flushMs?: number;
  /** A batch this large is written at once. */
  readonly maxBatch?: number;
  /** A batch the store refused: the events are lost, and the operator must hear of it. */
  readonly onError?: (error: unknown, lost: number) => void;
}

/**
 * Batches the events of reads, refusals and failures and writes them in one store call at most every `flushMs`, so a
 * read stays a read: no write, no fsync on its path. A crash loses at most the unwritten batch.
 */
export class AuditRecorder implements AuditTrail {
  private pending: AuditEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly flushes = new Set<Promise<void>>();
  private readonly flushMs: number;
  private readonly maxBatch: number;

  constructor(
    private readonly log: AuditLogRepository,
    private readonly options: AuditRecorderOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 100;
    this.maxBatch = options.maxBatch ?? 500;
  }

  record(events: readonly AuditEvent[]): void {
    for (const event of events) this.pending.push(event);
    if (this.pending.length >= this.maxBatch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.flushMs);
      this.timer.unref?.();
    }
  }

  /** Writes what is buffered now; resolves when it and every earlier batch are stored (or failed). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) {
      const written = this.log.append(batch).catch((error: unknown) => this.options.onError?.(error, batch.length));
      this.flushes.add(written);
      void written.finally(() => this.flushes.delete(written));
    }
    await Promise.all([...this.flushes]);
  }
}
