import { createHash } from 'node:crypto';

/**
 * SHA-256 hex digest. Used for high-entropy secrets only (API keys, session keys, nonces, invitation secrets):
 * their entropy makes a fast unsalted hash safe, and a deterministic hash lets stores find a key by an index.
 */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
