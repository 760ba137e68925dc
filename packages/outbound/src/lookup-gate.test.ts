import fc from 'fast-check';
import { DnsHostResolver } from './dns-host-resolver';
import { gateLookups } from './lookup-gate';

/** A lookup whose answers the test gives by hand, recording how many run at once. */
function manualLookup() {
  const pending: Array<{ name: string; answer: (ok: boolean) => void }> = [];
  let running = 0;
  let most = 0;
  const lookup = (name: string): Promise<string[]> =>
    new Promise((resolve, reject) => {
      running++;
      most = Math.max(most, running);
      pending.push({
        name,
        answer: (ok) => {
          running--;
          if (ok) resolve([`answer-of-${name}`]);
          else reject(new Error('EAI_AGAIN'));
        },
      });
    });
  return { lookup, pending, most: () => most, running: () => running };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('gateLookups', () => {
  it('runs at most `limit` lookups at once, the rest in order as earlier ones end, answered or failed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), async (limit, outcomes) => {
        const m = manualLookup();
        const gated = gateLookups(m.lookup, limit);
        const results = outcomes.map((_, i) => gated(`n${i}`).then((a) => a[0], () => 'failed'));
        const started: string[] = [];
        for (let answered = 0; answered < outcomes.length; answered++) {
          await settle();
          expect(m.running()).toBeLessThanOrEqual(limit);
          const next = m.pending.shift()!;
          started.push(next.name);
          next.answer(outcomes[Number(next.name.slice(1))]!);
        }
        expect(m.most()).toBeLessThanOrEqual(limit);
        expect(started).toEqual(outcomes.map((_, i) => `n${i}`));
        expect(await Promise.all(results)).toEqual(outcomes.map((ok, i) => (ok ? `answer-of-n${i}` : 'failed')));
      }),
      { seed: 4242, numRuns: 100 },
    );
  });

  it('hands a slot that ends to the first waiter: a caller coming in meanwhile waits its turn', async () => {
    const m = manualLookup();
    const gated = gateLookups(m.lookup, 1);
    void gated('a');
    void gated('b');
    await settle();
    expect(m.pending.map((p) => p.name)).toEqual(['a']);
    const a = m.pending.shift()!;
    // 'a' ends, and 'c' comes in right after its slot is given up, before 'b' (woken by it) has resumed.
    a.answer(true);
    queueMicrotask(() => void gated('c'));
    await settle();
    await settle();
    expect(m.most()).toBe(1);
    expect(m.pending.map((p) => p.name)).toEqual(['b']);
    m.pending.shift()!.answer(true);
    await settle();
    await settle();
    expect(m.pending.map((p) => p.name)).toEqual(['c']);
    expect(m.most()).toBe(1);
  });

  it('keeps a slot taken while a lookup the caller gave up on still runs: the resolver waits for it within its timeout', async () => {
    const m = manualLookup();
    const resolver = new DnsHostResolver({ timeoutMs: 30, lookup: m.lookup, maxConcurrentLookups: 1 });
    // The first lookup never answers in time; the second waits behind it and is unresolved at its own timeout,
    // without a second lookup running beside the first.
    expect(await resolver.resolve('black-holed.example')).toEqual({ kind: 'unresolved' });
    expect(await resolver.resolve('other.example')).toEqual({ kind: 'unresolved' });
    expect(m.most()).toBe(1);
    // Once the first ends, the waiting one runs.
    m.pending.shift()!.answer(false);
    await settle();
    expect(m.pending.map((p) => p.name)).toEqual(['other.example']);
  });
});
