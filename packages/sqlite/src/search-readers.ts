import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { KeysetPage, KeysetRequest, Page, PageRequest, StoredToken, TokenQuery } from '@svc/core';

/** What a reader answers: a page of `search`, or of `searchAfter`. */
type ReaderPage = Page<StoredToken> | KeysetPage<StoredToken>;

/** What the main thread asks a reader (the worker adds nothing but the `seq` it answers with). */
export type ReaderRequest =
  | { readonly op: 'search'; readonly tenantId: string; readonly query: TokenQuery; readonly page: PageRequest; readonly now: Date }
  | { readonly op: 'searchAfter'; readonly tenantId: string; readonly query: TokenQuery; readonly request: KeysetRequest; readonly now: Date };

interface Waiter {
  readonly resolve: (page: ReaderPage) => void;
  readonly reject: (error: unknown) => void;
}

/** The compiled reader script (see thread-writer.ts for why it comes from the build under ts-jest). */
export function readerScript(): string | undefined {
  const compiled = __filename.endsWith('.ts') ? join(__dirname, '..', 'dist', 'src', 'search-reader-worker.js') : join(__dirname, 'search-reader-worker.js');
  return existsSync(compiled) ? compiled : undefined;
}

/** A small pool of search readers, each with its own connection; searches go to the least busy one. */
export class SearchReaders {
  private readonly workers: Array<{ worker: Worker; busy: number; dead?: true }> = [];
  private readonly waiters = new Map<number, Waiter & { slot: number }>();
  private seq = 0;

  constructor(file: string, script: string, size: number, broadLeaf: number) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(script, { workerData: { file, broadLeaf } });
      worker.unref();
      worker.on('message', (reply: { seq: number; page?: ReaderPage; error?: string }) => this.settle(reply));
      worker.on('error', (error) => this.failSlot(i, error));
      // A reader that stops answers nothing more: its searches fail, later ones go to the others (or to the caller).
      worker.on('exit', (code) => {
        this.workers[i]!.dead = true;
        this.failSlot(i, new Error(`a search reader thread exited (${code})`));
      });
      this.workers.push({ worker, busy: 0 });
    }
  }

  search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>> {
    return this.post({ op: 'search', tenantId, query, page, now }) as Promise<Page<StoredToken>>;
  }

  searchAfter(tenantId: string, query: TokenQuery, request: KeysetRequest, now: Date): Promise<KeysetPage<StoredToken>> {
    return this.post({ op: 'searchAfter', tenantId, query, request, now }) as Promise<KeysetPage<StoredToken>>;
  }

  /** Whether any reader still runs; without one, searches run on the caller's connection. */
  get alive(): boolean {
    return this.workers.some((w) => !w.dead);
  }

  private post(message: ReaderRequest): Promise<ReaderPage> {
    let slot = -1;
    for (let i = 0; i < this.workers.length; i++) {
      if (!this.workers[i]!.dead && (slot < 0 || this.workers[i]!.busy < this.workers[slot]!.busy)) slot = i;
    }
    if (slot < 0) return Promise.reject(new Error('no search reader thread is running'));
    const target = this.workers[slot]!;
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      if (target.busy++ === 0) target.worker.ref();
      this.waiters.set(seq, { resolve, reject, slot });
      target.worker.postMessage({ seq, ...message });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }

  private settle(reply: { seq: number; page?: ReaderPage; error?: string }): void {
    const waiter = this.waiters.get(reply.seq);
    if (!waiter) return;
    this.waiters.delete(reply.seq);
    const slot = this.workers[waiter.slot]!;
    if (--slot.busy === 0) slot.worker.unref();
    if (reply.page) waiter.resolve(reply.page);
    else waiter.reject(new Error(reply.error));
  }

  private failSlot(slot: number, error: unknown): void {
    for (const [seq, waiter] of this.waiters) {
      if (waiter.slot === slot) {
        this.waiters.delete(seq);
        waiter.reject(error);
      }
    }
    this.workers[slot]!.busy = 0;
  }
}
