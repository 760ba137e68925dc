import { isUuid, TimeOrderedUuidGenerator } from './ids';

describe('TimeOrderedUuidGenerator', () => {
  it('makes version 7 UUIDs (RFC 9562) with the creation millisecond in the first 48 bits', () => {
    const at = Date.parse('2026-11-23T12:34:56.789Z');
    const id = new TimeOrderedUuidGenerator(() => at).next();
    expect(isUuid(id)).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('orders ids by time and keeps 74 random bits: ids of one millisecond differ', () => {
    let now = 1_700_000_000_000;
    const ids = new TimeOrderedUuidGenerator(() => now);
    const sameMs = new Set(Array.from({ length: 10_000 }, () => ids.next()));
    expect(sameMs.size).toBe(10_000);
    const earlier = ids.next();
    now += 1;
    expect(ids.next() > earlier).toBe(true);
  });
});
