import { createCipheriv, createDecipheriv } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with the associated data bound in: `[version][iv 12][tag 16][ciphertext]`. Opening with the wrong
 * key or the wrong associated data (another tenant, another token id) fails: ciphertexts cannot be moved.
 */
const VERSION_BYTE = Buffer.from([VERSION]);

export function seal(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array, aad: string): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const head = cipher.update(plaintext);
  const tail = cipher.final();
  // One copy into the result (a token write seals once per token: bulk creates showed the second concat).
  return Buffer.concat([VERSION_BYTE, iv, cipher.getAuthTag(), head, tail]);
}

export function open(key: Uint8Array, sealed: Uint8Array, aad: string): Buffer {
  const buffer = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (buffer.length < 1 + IV_BYTES + TAG_BYTES || buffer[0] !== VERSION) throw new Error('unsupported ciphertext');
  const iv = buffer.subarray(1, 1 + IV_BYTES);
  const tag = buffer.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(buffer.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
}

export const AEAD_IV_BYTES = IV_BYTES;
