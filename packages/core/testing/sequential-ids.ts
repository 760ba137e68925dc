import type { IdGenerator } from '../src/shared/ids';

/** Predictable UUID-shaped ids: 00000000-0000-4000-8000-000000000001, …002, … */
export class SequentialIds implements IdGenerator {
  private counter = 0;

  next(): string {
    this.counter += 1;
    return `00000000-0000-4000-8000-${this.counter.toString(16).padStart(12, '0')}`;
  }
}
