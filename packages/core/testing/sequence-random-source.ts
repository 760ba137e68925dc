import type { RandomSource } from '../src/shared/random';

/**
 * A deterministic {@link RandomSource} for tests: replays `values` in a loop (each reduced modulo the
 * requested bound). Not random at all; never wire it in production.
 */
export class SequenceRandomSource implements RandomSource {
  private next = 0;

  constructor(private readonly values: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) {
    if (values.length === 0) throw new Error('SequenceRandomSource needs at least one value.');
  }

  int(maxExclusive: number): number {
    return this.take() % maxExclusive;
  }

  bytes(length: number): Uint8Array {
    return Uint8Array.from({ length }, () => this.take() % 256);
  }

  private take(): number {
    const value = this.values[this.next % this.values.length];
    this.next++;
    return value;
  }
}
