import type { Metadata } from '@svc/core';

const SEPARATOR = '\u0001';
const PAIR = '\u0000';

/** One metadata pair, lower-cased, as it appears inside a token's metadata index. */
export function metadataNeedle(key: string, value: string): string {
  return `${SEPARATOR}${JSON.stringify(key.toLowerCase())}${PAIR}${JSON.stringify(value.toLowerCase())}${SEPARATOR}`;
}

/**
 * A token's metadata as one string of lower-cased, JSON-quoted pairs between control characters. JSON quoting never
 * emits a raw control character, so a needle can only match a whole pair: `instr(metadata_index, needle) > 0` checks
 * a pair on the row the query already reads, where a side-table look-up would cost a random seek.
 */
export function metadataIndex(metadata: Metadata): string {
  const pairs = Object.entries(metadata).map(([k, v]) => metadataNeedle(k, v).slice(1, -1));
  return pairs.length === 0 ? '' : `${SEPARATOR}${pairs.join(SEPARATOR)}${SEPARATOR}`;
}
