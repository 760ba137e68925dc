import { timingSafeEqual } from 'node:crypto';
import type { TenantKeys } from '../crypto/tenant-keys';
import { ValidationError } from '../shared/errors';
import type { KeysetPosition } from '../shared/keyset';

const VERSION = 1;
const TIME_BYTES = 8;
const TAG_BYTES = 32;
const HEADER_BYTES = 1 + TIME_BYTES;
/** Room for the longest id (400 characters, up to 1,200 bytes of UTF-8) and more, in base64url. */
const MAX_CURSOR_CHARS = 2_048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * What a cursor is bound to besides its tenant: the operation (`list` for GET /v2/tokens, `search` for POST
 * /v2/tokens/search) and the query as the caller wrote it, in a canonical form (the parsed query tree, before the
 * access scope and blinding). Token data in `data:` terms goes into the tag only, never into the cursor.
 */
export interface CursorBinding {
  readonly operation: 'list' | 'search';
  readonly query: string;
}

const invalid = (): ValidationError =>
  ValidationError.field('start', 'Not a cursor this query issued: pass the pagination.next of the previous page of the same query, or leave start out.');

function tagOf(keys: TenantKeys, binding: CursorBinding, body: Uint8Array): Buffer {
  const context = Buffer.from(`svc/token-cursor/v1\u0000${keys.tenantId}\u0000${binding.operation}\u0000${binding.query}\u0000`, 'utf8');
  return keys.cursorTag(Buffer.concat([context, body]));
}

/**
 * An opaque cursor for the page after `position`: `base64url([version][created_at ms, int64][id, UTF-8][tag])`,
 * the tag an HMAC under a key of the tenant's own, over the tenant, the binding and the body. The position is no
 * secret (the caller has just been shown that token); the tag makes a cursor unforgeable and unusable with another
 * query or tenant.
 */
export function encodeTokenCursor(keys: TenantKeys, binding: CursorBinding, position: KeysetPosition): string {
  const id = Buffer.from(position.id, 'utf8');
  const body = Buffer.alloc(HEADER_BYTES + id.length);
  body[0] = VERSION;
  body.writeBigInt64BE(BigInt(position.createdAt.getTime()), 1);
  id.copy(body, HEADER_BYTES);
  return Buffer.concat([body, tagOf(keys, binding, body)]).toString('base64url');
}

/** The position a cursor stands for; a 400 on `start` when it is garbled, altered, or from another query or tenant. */
export function decodeTokenCursor(keys: TenantKeys, binding: CursorBinding, text: string): KeysetPosition {
  if (text.length > MAX_CURSOR_CHARS || !BASE64URL.test(text)) throw invalid();
  const bytes = Buffer.from(text, 'base64url');
  // Only the canonical spelling: otherwise a changed last character may decode to the same bytes.
  if (bytes.toString('base64url') !== text || bytes.length <= HEADER_BYTES + TAG_BYTES || bytes[0] !== VERSION) throw invalid();
  const body = bytes.subarray(0, bytes.length - TAG_BYTES);
  if (!timingSafeEqual(bytes.subarray(bytes.length - TAG_BYTES), tagOf(keys, binding, body))) throw invalid();
  const ms = Number(body.readBigInt64BE(1));
  const createdAt = new Date(ms);
  let id: string;
  try {
    id = strictUtf8.decode(body.subarray(HEADER_BYTES));
  } catch {
    throw invalid();
  }
  if (Number.isNaN(createdAt.getTime())) throw invalid();
  return { createdAt, id };
}
