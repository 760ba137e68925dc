import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { base58 } from '../shared/base58';
import type { RandomSource } from '../shared/random';
import { AEAD_IV_BYTES, open, seal } from './aead';

/**
 * One tenant's keys, derived from its data key: sealing token data, fingerprints and blind search indexes.
 * Separate derived keys keep a fingerprint from ever being usable as an index and vice versa.
 */
export class TenantKeys {
  // KeyObjects: an HMAC keyed by a KeyObject skips importing the raw key on every call (a third of its cost).
  private readonly fingerprintKey: KeyObject;
  private readonly indexKey: KeyObject;
  private readonly cursorKey: Buffer;
  private readonly requestKey: KeyObject;
  private readonly auditChainKey: Buffer;

  constructor(
    readonly tenantId: string,
    private readonly dataKey: Uint8Array,
    private readonly random: RandomSource,
  ) {
    this.fingerprintKey = createSecretKey(Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'svc/fingerprint/v1', 32)));
    this.indexKey = createSecretKey(Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'svc/search-index/v1', 32)));
    this.cursorKey = Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'svc/cursor/v1', 32));
    this.requestKey = createSecretKey(Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'svc/idempotency-request/v1', 32)));
    this.auditChainKey = Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), 'svc/audit/v1', 32));
  }

  /** The key of this tenant's audit chain (ADR 4): it serves nothing else. */
  auditKey(): Uint8Array {
    return this.auditChainKey;
  }

  /** Encrypts a token's data, bound to this tenant and `tokenId`. */
  seal(tokenId: string, data: unknown): Uint8Array {
    const plaintext = Buffer.from(JSON.stringify(data ?? null), 'utf8');
    return seal(this.dataKey, this.random.bytes(AEAD_IV_BYTES), plaintext, this.aad(tokenId));
  }

  open(tokenId: string, sealed: Uint8Array): unknown {
    return JSON.parse(open(this.dataKey, sealed, this.aad(tokenId)).toString('utf8')) as unknown;
  }

  /** A token's fingerprint: a keyed hash of the fingerprint expression's value, scoped to tenant and type. */
  fingerprint(type: string, value: string): string {
    return base58(createHmac('sha256', this.fingerprintKey).update(`${type}\u0000${value}`, 'utf8').digest());
  }

  /** A blind index: the keyed hash of a value's lower-cased form. Searching hashes the query value the same way. */
  indexHash(value: string): string {
    return createHmac('sha256', this.indexKey).update(value.toLowerCase(), 'utf8').digest('base64url');
  }

  /**
   * The keyed hash (HMAC-SHA256, 32 bytes) that makes a paging cursor tamper-evident. Its key serves nothing else, so
   * a cursor's tag can never stand for a fingerprint or an index, and another tenant's key never verifies it.
   */
  cursorTag(message: Uint8Array): Buffer {
    return createHmac('sha256', this.cursorKey).update(message).digest();
  }

  /**
   * The keyed hash (HMAC-SHA256, base64url) of an idempotent request's method, path and body hash: what a kept answer
   * is matched against, so the store never holds the request itself.
   */
  requestFingerprint(message: string): string {
    return createHmac('sha256', this.requestKey).update(message, 'utf8').digest('base64url');
  }

  /**
   * Encrypts a kept idempotent answer, bound to this tenant and `scope` (caller and key) under its own label
   * (`svc/idempotent/v1`): it can never be opened as a token, nor a token as an answer.
   */
  sealIdempotent(scope: string, plaintext: Uint8Array): Uint8Array {
    return seal(this.dataKey, this.random.bytes(AEAD_IV_BYTES), plaintext, `svc/idempotent/v1\u0000${this.tenantId}\u0000${scope}`);
  }

  openIdempotent(scope: string, sealed: Uint8Array): Buffer {
    return open(this.dataKey, sealed, `svc/idempotent/v1\u0000${this.tenantId}\u0000${scope}`);
  }

  /**
   * Encrypts a webhook's signing secret, bound to this tenant and `webhookId` under its own label
   * (`svc/webhook-secret/v1`): deliveries open it to sign; it can never be opened as a token or an idempotent answer.
   */
  sealWebhookSecret(webhookId: string, secret: string): Uint8Array {
    return seal(this.dataKey, this.random.bytes(AEAD_IV_BYTES), Buffer.from(secret, 'utf8'), `svc/webhook-secret/v1\u0000${this.tenantId}\u0000${webhookId}`);
  }

  openWebhookSecret(webhookId: string, sealed: Uint8Array): string {
    return open(this.dataKey, sealed, `svc/webhook-secret/v1\u0000${this.tenantId}\u0000${webhookId}`).toString('utf8');
  }

  /**
   * A proxy's configuration (destination credentials), under its own associated data (`svc/proxy-configuration/v1`):
   * it can never be opened as a token, an idempotent answer or a webhook secret, nor as another proxy's.
   */
  sealProxyConfiguration(proxyId: string, configuration: Readonly<Record<string, string>>): Uint8Array {
    const plaintext = Buffer.from(JSON.stringify(configuration), 'utf8');
    return seal(this.dataKey, this.random.bytes(AEAD_IV_BYTES), plaintext, `svc/proxy-configuration/v1\u0000${this.tenantId}\u0000${proxyId}`);
  }

  openProxyConfiguration(proxyId: string, sealed: Uint8Array): Record<string, string> {
    const text = open(this.dataKey, sealed, `svc/proxy-configuration/v1\u0000${this.tenantId}\u0000${proxyId}`).toString('utf8');
    return JSON.parse(text) as Record<string, string>;
  }

  private aad(tokenId: string): string {
    return `svc/token/v1\u0000${this.tenantId}\u0000${tokenId}`;
  }
}
