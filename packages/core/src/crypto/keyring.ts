import type { Clock } from '../shared/clock';
import type { RandomSource } from '../shared/random';
import { AEAD_IV_BYTES, open, seal } from './aead';
import type { DataKeyRepository } from './data-key';
import { TenantKeys } from './tenant-keys';

const wrapAad = (tenantId: string): string => `svc/data-key/v1\u0000${tenantId}`;

/**
 * Envelope encryption: each tenant has a random 32-byte data key, stored wrapped by the master key and
 * unwrapped into memory on first use. The master key never leaves this object.
 */
export class Keyring {
  private readonly cache = new Map<string, Promise<TenantKeys>>();

  constructor(
    private readonly deps: {
      readonly dataKeys: DataKeyRepository;
      readonly random: RandomSource;
      readonly clock: Clock;
      /** 32 bytes. Secret. */
      readonly masterKey: Uint8Array;
    },
  ) {
    if (deps.masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  forTenant(tenantId: string): Promise<TenantKeys> {
    let keys = this.cache.get(tenantId);
    if (!keys) {
      keys = this.load(tenantId);
      keys.catch(() => this.cache.delete(tenantId));
      this.cache.set(tenantId, keys);
    }
    return keys;
  }

  /**
   * Re-wraps every data key under `newMasterKey`; tokens are untouched. Returns how many keys were re-wrapped;
   * `onProgress` hears how many are done after each one (the CLI draws it on a terminal).
   */
  async rewrap(newMasterKey: Uint8Array, onProgress?: (done: number, total: number) => void): Promise<number> {
    const keys = await this.deps.dataKeys.all();
    let done = 0;
    onProgress?.(done, keys.length);
    for (const key of keys) {
      const plain = open(this.deps.masterKey, key.wrapped, wrapAad(key.tenantId));
      const wrapped = seal(newMasterKey, this.deps.random.bytes(AEAD_IV_BYTES), plain, wrapAad(key.tenantId));
      await this.deps.dataKeys.replace({ ...key, wrapped });
      onProgress?.(++done, keys.length);
    }
    return keys.length;
  }

  private async load(tenantId: string): Promise<TenantKeys> {
    const stored =
      (await this.deps.dataKeys.find(tenantId)) ??
      (await this.deps.dataKeys.createIfAbsent({
        tenantId,
        wrapped: seal(this.deps.masterKey, this.deps.random.bytes(AEAD_IV_BYTES), this.deps.random.bytes(32), wrapAad(tenantId)),
        createdAt: this.deps.clock.now(),
      }));
    const dataKey = open(this.deps.masterKey, stored.wrapped, wrapAad(tenantId));
    return new TenantKeys(tenantId, dataKey, this.deps.random);
  }
}
