import { base58 } from '../shared/base58';
import { sha256Hex } from '../shared/hashing';
import type { RandomSource } from '../shared/random';
import type { ApplicationType } from '../access/permissions';

/** The kind segment of a key: `key_<kind>_<secret>`. */
export type KeyKind = 'pvt' | 'pub' | 'mgt' | 'ses';

export const KEY_KIND_BY_TYPE: Readonly<Record<ApplicationType, KeyKind>> = {
  private: 'pvt',
  public: 'pub',
  management: 'mgt',
};

/** Bytes of entropy in a key secret: 32 bytes give a base58 secret of 43–44 characters. */
const SECRET_BYTES = 32;

/**
 * A freshly generated API key. `plaintext` is shown to the caller exactly once (create or regenerate) and is
 * never stored; `hash` is what the store keeps and looks keys up by.
 */
export interface GeneratedKey {
  readonly plaintext: string;
  readonly hash: string;
}

export function generateKey(kind: KeyKind, random: RandomSource): GeneratedKey {
  const plaintext = `key_${kind}_${base58(random.bytes(SECRET_BYTES))}`;
  return { plaintext, hash: hashKey(plaintext) };
}

/** The stored form of a key (also of session keys and nonces): a SHA-256 digest, never the key itself. */
export function hashKey(plaintext: string): string {
  return sha256Hex(plaintext);
}

/** A secret of the same strength as a key's, for nonces and invitation links. */
export function generateSecret(random: RandomSource): string {
  return base58(random.bytes(SECRET_BYTES));
}
