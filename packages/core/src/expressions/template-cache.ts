/**
 * A bounded least-recently-used cache. Parsed templates are keyed by their text, so a busy tenant
 * reusing the same masks parses each one once, while an attacker sending endless distinct templates
 * cannot grow memory without bound: it holds at most `capacity` entries and at most `maxWeight` of their
 * weights together (a parsed template's memory grows with its length). An entry heavier than a quarter of
 * `maxWeight` is not kept at all.
 */
export class TemplateCache<T> {
  private readonly entries = new Map<string, { readonly value: T; readonly weight: number }>();
  private weight = 0;

  constructor(
    private readonly capacity = 1000,
    private readonly maxWeight = Number.POSITIVE_INFINITY,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      // Re-insert so the Map's insertion order doubles as recency order.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry?.value;
  }

  set(key: string, value: T, weight = 1): void {
    this.remove(key);
    if (weight > this.maxWeight / 4) return;
    while (this.entries.size > 0 && (this.entries.size >= this.capacity || this.weight + weight > this.maxWeight)) {
      this.remove(this.entries.keys().next().value!);
    }
    this.entries.set(key, { value, weight });
    this.weight += weight;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The weights of the entries kept, together. */
  get totalWeight(): number {
    return this.weight;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}
