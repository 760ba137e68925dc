// With the `u` flag a surrogate pair is one code point, so this matches only a surrogate that has no partner.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * True when `text` is well-formed UTF-16: no lone surrogate. Ill-formed text cannot be stored as UTF-8 faithfully
 * (it comes back as U+FFFD), so anything a store keeps, hashes or binds to a ciphertext must pass this first.
 */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** `text` with each lone surrogate replaced by U+FFFD, as a UTF-8 encoder would: safe to echo in a message. */
export function toWellFormedText(text: string): string {
  return text.replace(/\p{Surrogate}/gu, '\uFFFD');
}

/**
 * How many characters a text has, as people count them and as the spec's limits mean them ("max length 200"): code
 * points, so an emoji (two UTF-16 units) counts once, as it does in the UTF-8 the stores keep.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
