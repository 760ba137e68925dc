import { randomUUID } from 'node:crypto';

/** Generates entity ids (UUID strings). A port so tests can produce predictable ids. */
export interface IdGenerator {
  next(): string;
}

/** Random UUIDs (version 4). */
export class UuidGenerator implements IdGenerator {
  next(): string {
    return randomUUID();
  }
}

/**
 * Time-ordered UUIDs (version 7, RFC 9562): the creation millisecond in the first 48 bits, a 12-bit counter, then 62
 * random bits. The production ids. New rows land at the end of every index on an id instead of at a random place in
 * it: with version 4 ids each token insert dirtied a page of the id index of its own, so a commit of 200 tokens wrote
 * about twice the pages and took twice as long once the store outgrew its cache.
 *
 * Within one millisecond the counter (RFC 9562 §6.2, method 1) makes this generator's ids strictly increasing, so
 * objects made in one millisecond list in the order they were made (audit events of one request and the next, most
 * of all); each millisecond's counter starts at a random value below 2,048. An id reveals when it was made, which the
 * object's `created_at` shows anyway; 62 random bits keep ids unguessable.
 */
export class TimeOrderedUuidGenerator implements IdGenerator {
  private lastMs = -1;
  private counter = 0;

  constructor(private readonly now: () => number = Date.now) {}

  next(): string {
    // A version 4 UUID's random bits (its variant bits are already RFC 9562's), under the time, version and counter.
    const random = randomUUID();
    let now = this.now();
    if (now <= this.lastMs) {
      // The same millisecond (or a clock that stepped back): count on from the last id; past 4,095, borrow the next
      // millisecond rather than wrap, so the order holds.
      now = this.lastMs;
      if (++this.counter > 0xfff) {
        now = ++this.lastMs;
        this.counter = 0;
      }
    } else {
      this.lastMs = now;
      this.counter = parseInt(random.slice(15, 18), 16) & 0x7ff;
    }
    const ms = now.toString(16).padStart(12, '0').slice(-12);
    return `${ms.slice(0, 8)}-${ms.slice(8)}-7${this.counter.toString(16).padStart(3, '0')}${random.slice(18)}`;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
