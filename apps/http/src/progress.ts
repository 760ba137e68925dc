/** Where a progress line is drawn: standard error, or a stand-in in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** How the amounts read: pages and keys as counts, bytes in MB. */
export type ProgressUnit = 'pages' | 'bytes' | 'keys' | 'tokens';

const CLEAR_LINE = '\r\u001b[2K';
const INTERVAL_MS = 100;

const amount = (n: number, unit: ProgressUnit): string => (unit === 'bytes' ? (n / 1024 ** 2).toFixed(1) : n.toLocaleString('en-US'));

/**
 * One line of progress for long CLI work (`svc: backup  42%  1,234/2,940 pages`), redrawn in place at most ten times a
 * second on a terminal. Where standard error is not a terminal (a pipe, a log file, a test) it writes nothing at all,
 * so logs and captured output stay as they were; {@link active} tells the caller which case it is in.
 */
export class ProgressLine {
  private lastDrawn = 0;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly unit: ProgressUnit,
    private readonly stream: ProgressStream = process.stderr,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True when a line is being drawn (standard error is a terminal). */
  get active(): boolean {
    return this.stream.isTTY === true;
  }

  /** Records `done` of `total`; redraws when the last drawing is 100 ms old, or when the work is complete. */
  update(done: number, total: number): void {
    if (!this.active) return;
    const now = this.now();
    if (this.drawn && done < total && now - this.lastDrawn < INTERVAL_MS) return;
    this.lastDrawn = now;
    this.drawn = true;
    const percent = total > 0 ? Math.floor((Math.min(done, total) / total) * 100) : 100;
    const unit = this.unit === 'bytes' ? 'MB' : this.unit;
    this.stream.write(`${CLEAR_LINE}svc: ${this.label} ${String(percent).padStart(3)}%  ${amount(done, this.unit)}/${amount(total, this.unit)} ${unit}`);
  }

  /** Replaces the line with a note for a step whose progress cannot be measured (`checking the copy…`). */
  status(text: string): void {
    if (!this.active) return;
    this.drawn = true;
    this.stream.write(`${CLEAR_LINE}svc: ${this.label}: ${text}`);
  }

  /** Clears the line, so what is written next starts on a clean one. */
  done(): void {
    if (this.drawn) this.stream.write(CLEAR_LINE);
    this.drawn = false;
  }
}
