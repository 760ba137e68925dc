/**
 * A bounded least-recently-used cache. Parsed templates are keyed by their text, so a busy tenant
 * reusing the same masks parses each one once, while an attacker sending endless distinct templates
 * cannot grow memory without bound.
 */
export class TemplateCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly capacity = 1000) {}

  get(key: string): T | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-insert so the Map's insertion order doubles as recency order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: T): void {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}
