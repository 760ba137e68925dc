import type { TokenWrite } from './token-writes';
import { BatchingWriter } from './write-queue';

interface Pending {
  readonly batch: readonly TokenWrite[];
  readonly settle: (outcome: Error | Array<{ ok: boolean; value: unknown }>) => void;
}

/** A writer whose commits the test settles by hand, in any order it likes. */
class HandWriter extends BatchingWriter {
  readonly commits: Pending[] = [];

  constructor(inFlight = 2) {
    super(inFlight);
  }

  protected commit(batch: readonly TokenWrite[]): Promise<Array<{ ok: boolean; value: unknown }>> {
    return new Promise((resolve, reject) => {
      this.commits.push({ batch, settle: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)) });
    });
  }

  close(): Promise<void> {
    return this.whenIdle();
  }
}

const write = (id: string): TokenWrite => ({ op: 'delete', tenantId: 't1', id });
const ids = (pending: Pending | undefined): string[] => (pending?.batch ?? []).map((w) => (w as { id: string }).id);
const allOk = (pending: Pending) => pending.batch.map((w) => ({ ok: true, value: (w as { id: string }).id }));
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What each promise settled with so far: ok, failed, or pending. */
function track(promises: Record<string, Promise<unknown>>): Record<string, string> {
  const state: Record<string, string> = Object.fromEntries(Object.keys(promises).map((k) => [k, 'pending']));
  for (const [key, promise] of Object.entries(promises)) promise.then(() => (state[key] = 'ok'), (e: Error) => (state[key] = `failed: ${e.message}`));
  return state;
}

describe('group commit with two batches in flight', () => {
  it('hands over at most two batches, in the order the writes came, and sends what queued meanwhile as the next', async () => {
    const writer = new HandWriter();
    const state = track({ a: writer.run(write('a')), b: writer.run(write('b')) });
    await turn();
    const c = writer.run(write('c'));
    await turn();
    const d = writer.run(write('d'));
    const e = writer.run(write('e'));
    await turn();
    expect(writer.commits.map(ids)).toEqual([['a', 'b'], ['c']]);
    writer.commits[0]!.settle(allOk(writer.commits[0]!));
    await turn();
    expect(state).toEqual({ a: 'ok', b: 'ok' });
    expect(writer.commits.map(ids)).toEqual([['a', 'b'], ['c'], ['d', 'e']]);
    writer.commits[1]!.settle(allOk(writer.commits[1]!));
    writer.commits[2]!.settle(allOk(writer.commits[2]!));
    expect(await Promise.all([c, d, e])).toEqual(['c', 'd', 'e']);
  });

  it('fails only the writes of a batch whose transaction failed as a whole: the other batch in flight commits', async () => {
    const writer = new HandWriter();
    const writes: Record<string, Promise<unknown>> = { a: writer.run(write('a')), b: writer.run(write('b')) };
    await turn();
    writes.c = writer.run(write('c'));
    await turn();
    writes.d = writer.run(write('d'));
    const state = track(writes);
    await turn();
    expect(writer.commits.map(ids)).toEqual([['a', 'b'], ['c']]);
    writer.commits[0]!.settle(new Error('disk I/O error'));
    writer.commits[1]!.settle(allOk(writer.commits[1]!));
    await turn();
    await turn();
    writer.commits[2]!.settle(allOk(writer.commits[2]!));
    await writer.close();
    expect(state).toEqual({ a: 'failed: disk I/O error', b: 'failed: disk I/O error', c: 'ok', d: 'ok' });
  });

  it('fails one write of a batch alone when only its savepoint failed', async () => {
    const writer = new HandWriter();
    const state = track({ a: writer.run(write('a')), b: writer.run(write('b')) });
    await turn();
    writer.commits[0]!.settle([
      { ok: false, value: new Error('constraint') },
      { ok: true, value: 'b' },
    ]);
    await writer.close();
    expect(state).toEqual({ a: 'failed: constraint', b: 'ok' });
  });

  it('closes only once both batches in flight and everything queued behind them have settled', async () => {
    const writer = new HandWriter();
    const writes = [writer.run(write('a'))];
    await turn();
    writes.push(writer.run(write('b')));
    await turn();
    writes.push(writer.run(write('c')));
    let closed = false;
    const closing = writer.close().then(() => (closed = true));
    for (let i = 0; i < 3; i++) {
      await turn();
      expect(closed).toBe(false);
      writer.commits[i]!.settle(allOk(writer.commits[i]!));
    }
    await closing;
    expect(await Promise.all(writes)).toEqual(['a', 'b', 'c']);
  });
});

describe('group commit with one batch in flight', () => {
  it('hands the next batch over before the callers of the finished one hear back', async () => {
    const writer = new HandWriter(1);
    const a = writer.run(write('a'));
    await turn();
    const b = writer.run(write('b'));
    await turn();
    expect(writer.commits.map(ids)).toEqual([['a']]);
    let sentWhenAnswered: string[][] = [];
    const answered = a.then(() => (sentWhenAnswered = writer.commits.map(ids)));
    writer.commits[0]!.settle(allOk(writer.commits[0]!));
    await answered;
    expect(sentWhenAnswered).toEqual([['a'], ['b']]);
    writer.commits[1]!.settle(new Error('disk full'));
    await expect(b).rejects.toThrow('disk full');
    await writer.close();
  });
});
