import { createHmac } from 'node:crypto';
import { ExpressionError } from '../expression-error';
import { HmacBytes } from '../hmac-bytes';
import { requiredText } from './args';
import { charge, type FilterSet, type FilterThis } from './filter-set';

/** `hmac` (bytes out) and the encoders that turn bytes, or text as UTF-8, into `to_base64` / `to_base16` text. */

const ALGORITHMS: Readonly<Record<string, string>> = {
  'sha-1': 'sha1',
  'sha-256': 'sha256',
  'sha-512': 'sha512',
  sha1: 'sha1',
  sha256: 'sha256',
  sha512: 'sha512',
};
const DEFAULT_ALGORITHM = 'sha-256';

function algorithmOf(name: unknown): string | undefined {
  return typeof name === 'string' ? ALGORITHMS[name.trim().toLowerCase()] : undefined;
}

function bytesOf(filter: string, value: unknown): Buffer {
  if (value instanceof HmacBytes) return value.bytes;
  return Buffer.from(requiredText(filter, value), 'utf8');
}

/**
 * `hmac: algorithm, key`. With a single argument that is not an algorithm name, it is the key and the
 * algorithm is sha-256; a lone algorithm name is an error rather than a hash keyed with its own name.
 */
function hmac(this: FilterThis, value: unknown, first?: unknown, second?: unknown): HmacBytes {
  const [algorithmName, key] = second === undefined && algorithmOf(first) === undefined ? [DEFAULT_ALGORITHM, first] : [first, second];
  const algorithm = algorithmOf(algorithmName);
  if (!algorithm) throw new ExpressionError('hmac: algorithm must be one of sha-1, sha-256, sha-512.');
  if (typeof key !== 'string' || key === '') throw new ExpressionError('hmac: key is required and must be a non-empty string.');
  const data = bytesOf('hmac', value);
  charge(this, data.length);
  return new HmacBytes(createHmac(algorithm, key).update(data).digest());
}

function encoder(filter: string, encode: (bytes: Buffer) => string) {
  return function (this: FilterThis, value: unknown): string {
    const bytes = bytesOf(filter, value);
    charge(this, bytes.length * 2);
    return encode(bytes);
  };
}

export const encodingFilters: FilterSet = {
  hmac,
  to_base64: encoder('to_base64', (bytes) => bytes.toString('base64')),
  to_base16: encoder('to_base16', (bytes) => bytes.toString('hex').toUpperCase()),
};
