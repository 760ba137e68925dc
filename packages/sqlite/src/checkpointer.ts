import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * WAL pages the writer lets pile up before it checkpoints on its own (about 40 MB): a backstop for a checkpointer
 * that has stopped or cannot keep up. SQLite's default, 1,000, made the writer copy and fsync about 4 MB several
 * times a second under bulk writes: a quarter of its time, with every commit of the moment waiting behind it.
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 10_000;

/** The compiled checkpointer script (see thread-writer.ts for why it comes from the build under ts-jest). */
export function checkpointScript(): string | undefined {
  const compiled = __filename.endsWith('.ts') ? join(__dirname, '..', 'dist', 'src', 'checkpoint-worker.js') : join(__dirname, 'checkpoint-worker.js');
  return existsSync(compiled) ? compiled : undefined;
}

/** A thread that checkpoints the WAL in the background while the writer thread commits. */
export class Checkpointer {
  private readonly worker: Worker;
  private exited = false;

  constructor(file: string, script: string, intervalMs = 100) {
    this.worker = new Worker(script, { workerData: { file, intervalMs } });
    this.worker.unref();
    // A checkpointer that fails leaves the WAL to the writer's backstop: nothing is lost, writes go on.
    this.worker.on('error', () => undefined);
    this.worker.once('exit', () => (this.exited = true));
  }

  async close(): Promise<void> {
    // One that has exited would never answer: the close would wait out the timer below for nothing.
    if (this.exited) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      this.worker.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ close: true });
    });
    await this.worker.terminate();
  }
}
