import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TokenWrite } from './token-writes';
import { BatchingWriter } from './write-queue';

interface Reply {
  readonly seq: number;
  readonly outcomes?: Array<{ ok: boolean; value: unknown }>;
  readonly failed?: { message: string; code?: string };
  readonly closed?: boolean;
}

const toError = (e: { message: string; code?: string }): Error => Object.assign(new Error(e.message), e.code ? { code: e.code } : {});

/**
 * The compiled worker script. Under ts-jest this module runs from `src/*.ts`, so the worker comes from the build
 * (`npm test` builds first); undefined when there is none, and the store then writes in-process.
 */
export function workerScript(): string | undefined {
  const compiled = __filename.endsWith('.ts') ? join(__dirname, '..', 'dist', 'src', 'token-write-worker.js') : join(__dirname, 'token-write-worker.js');
  return existsSync(compiled) ? compiled : undefined;
}

/** Group commit on a writer thread with its own connection: the event loop never waits for fsync. */
export class ThreadTokenWriter extends BatchingWriter {
  private readonly worker: Worker;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: unknown) => void }>();
  /** Set once the thread has exited: nothing posted after that would ever be answered. */
  private exited: Error | undefined;

  /** `autocheckpoint`: WAL pages after which a commit checkpoints (SQLite's default 1,000 when a checkpointer is absent). */
  constructor(file: string, script: string, autocheckpoint?: number) {
    // One batch in flight (ADR 2, amended): what queues meanwhile goes as one larger batch, sharing one commit.
    super(1);
    this.worker = new Worker(script, { workerData: { file, autocheckpoint } });
    // An idle writer must not keep the process alive (a store someone forgot to close); a busy one must.
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => {
      const waiter = this.pending.get(reply.seq);
      this.pending.delete(reply.seq);
      if (this.pending.size === 0) this.worker.unref();
      waiter?.resolve(reply);
    });
    const failAll = (error: unknown): void => {
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', failAll);
    this.worker.on('exit', (code) => {
      this.exited = new Error(`the SQLite writer thread exited (${code})`);
      failAll(this.exited);
    });
  }

  protected async commit(batch: readonly TokenWrite[]): Promise<Array<{ ok: boolean; value: unknown }>> {
    const reply = await this.send({ batch });
    if (reply.failed) throw toError(reply.failed);
    return reply.outcomes!.map((o) => (o.ok ? o : { ok: false, value: toError(o.value as { message: string; code?: string }) }));
  }

  async close(): Promise<void> {
    await this.whenIdle();
    await this.send({ close: true }).catch(() => undefined);
    await this.worker.terminate();
  }

  private send(message: { batch?: readonly TokenWrite[]; close?: boolean }): Promise<Reply> {
    // A thread that has exited drops what is posted to it: its writes fail at once rather than wait forever.
    if (this.exited) return Promise.reject(this.exited);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(seq, { resolve, reject });
      this.worker.postMessage({ seq, ...message });
    });
  }
}
