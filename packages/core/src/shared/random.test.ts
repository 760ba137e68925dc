import { CryptoRandomSource } from './random';

describe('CryptoRandomSource', () => {
  it('hands out bytes of the asked length, never the same bytes twice, across pool refills', () => {
    const random = new CryptoRandomSource();
    const seen = new Set<string>();
    // 12-byte IVs: 4096 / 12 leaves a remainder, so refills happen mid-request boundaries too.
    for (let i = 0; i < 2_000; i++) {
      const iv = random.bytes(12);
      expect(iv).toHaveLength(12);
      seen.add(Buffer.from(iv).toString('hex'));
    }
    expect(seen.size).toBe(2_000);
    expect(random.bytes(64)).toHaveLength(64);
    expect(random.bytes(65)).toHaveLength(65);
    expect(random.bytes(1_000)).toHaveLength(1_000);
  });

  it('returns copies, and wipes what it handed out from its pool', () => {
    const random = new CryptoRandomSource();
    const first = random.bytes(32);
    const kept = Buffer.from(first);
    random.bytes(32);
    expect(Buffer.from(first)).toEqual(kept);
    const pool = (random as unknown as { pool: Buffer }).pool;
    expect(pool.subarray(0, 64).every((b) => b === 0)).toBe(true);
  });

  it('draws integers below the bound', () => {
    const random = new CryptoRandomSource();
    for (let i = 0; i < 100; i++) expect(random.int(10)).toBeLessThan(10);
  });
});
