import { isUuid, TimeOrderedUuidGenerator } from './ids';

describe('TimeOrderedUuidGenerator', () => {
  it('makes version 7 UUIDs (RFC 9562) with the creation millisecond in the first 48 bits', () => {
    const at = Date.parse('2026-11-23T12:34:56.789Z');
    const id = new TimeOrderedUuidGenerator(() => at).next();
    expect(isUuid(id)).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('orders ids by time, and within one millisecond by the order they were made', () => {
    let now = 1_700_000_000_000;
    const ids = new TimeOrderedUuidGenerator(() => now);
    // More than the counter holds: past it the generator borrows the next millisecond rather than wrap.
    const sameMs = Array.from({ length: 10_000 }, () => ids.next());
    expect(new Set(sameMs).size).toBe(10_000);
    expect([...sameMs].sort()).toEqual(sameMs);
    for (const id of sameMs) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const earlier = ids.next();
    now += 10;
    expect(ids.next() > earlier).toBe(true);
    // A clock that steps back does not break the order either.
    const before = ids.next();
    now -= 1_000;
    expect(ids.next() > before).toBe(true);
  });

  it('keeps the ids of separate generators apart: the counter starts at random, the tail is random', () => {
    const at = 1_700_000_000_000;
    const made = new Set(Array.from({ length: 2_000 }, () => new TimeOrderedUuidGenerator(() => at).next()));
    expect(made.size).toBe(2_000);
  });
});
