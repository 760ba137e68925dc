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
 * Time-ordered UUIDs (version 7, RFC 9562): the creation millisecond in the first 48 bits, then 74 random bits.
 * The production ids. New rows land at the end of every index on an id instead of at a random place in it: with
 * version 4 ids each token insert dirtied a page of the id index of its own, so a commit of 200 tokens wrote about
 * twice the pages and took twice as long once the store outgrew its cache. An id reveals when it was made, which the
 * object's `created_at` shows anyway; 74 random bits keep ids unguessable.
 */
export class TimeOrderedUuidGenerator implements IdGenerator {
  constructor(private readonly now: () => number = Date.now) {}

  next(): string {
    // A version 4 UUID's random bits (its variant bits are already RFC 9562's), under the time and version 7.
    const random = randomUUID();
    const ms = this.now().toString(16).padStart(12, '0').slice(-12);
    return `${ms.slice(0, 8)}-${ms.slice(8)}-7${random.slice(15)}`;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
