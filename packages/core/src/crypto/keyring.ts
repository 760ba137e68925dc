import type { Clock } from '../shared/clock';
import type { RandomSource } from '../shared/random';
import { AEAD_IV_BYTES, open, seal } from './aead';
import type { DataKeyRepository } from './data-key';
import { TenantKeys } from './tenant-keys';

const wrapAad = (tenantId: string): string => `svc/data-key/v1\u0000${tenantId}`;

/** The master key does not open a stored data key: it is not the key the store was made with. */
export class MasterKeyMismatchError extends Error {
  override readonly name = 'MasterKeyMismatchError';

  constructor(readonly tenantId: string) {
    super(`the master key does not open the data key of tenant ${tenantId}`);
  }
}

/** A read-only keyring was asked for a tenant that has no data key (it never makes one). */
export class DataKeyNotFoundError extends Error {
  override readonly name = 'DataKeyNotFoundError';

  constructor(readonly tenantId: string) {
    super(`tenant ${tenantId} has no data key`);
  }
}

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
      /**
       * False for commands that only read (`svc audit verify`): a tenant without a data key is refused with
       * DataKeyNotFoundError instead of given one. Default true.
       */
      readonly createMissing?: boolean;
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
   * Opens every stored data key with the master key and returns how many there are; throws MasterKeyMismatchError
   * naming the first tenant whose key it does not open. Run before serving: a wrong master key must stop the start,
   * not fail every request. `rotatingTo` (`svc keys rotate`): a key that opens with the new master key passes too.
   */
  async openAll(rotatingTo?: Uint8Array): Promise<number> {
    const keys = await this.deps.dataKeys.all();
    for (const key of keys) {
      // `svc keys rotate` run again after it was cut short: the keys it re-wrapped open with the new master key.
      if (rotatingTo !== undefined && opensWith(rotatingTo, key.tenantId, key.wrapped)) continue;
      this.unwrap(key.tenantId, key.wrapped);
    }
    return keys.length;
  }

  /**
   * Re-wraps every data key under `newMasterKey`; tokens are untouched. Returns how many keys were re-wrapped;
   * `onProgress` hears how many are done after each one (the CLI draws it on a terminal). Each key is replaced on its
   * own, so a rotation cut short leaves some keys under each master key; run again with the same new key, it skips
   * those already under it and finishes.
   */
  async rewrap(newMasterKey: Uint8Array, onProgress?: (done: number, total: number) => void): Promise<number> {
    const keys = await this.deps.dataKeys.all();
    let done = 0;
    onProgress?.(done, keys.length);
    for (const key of keys) {
      // Re-wrapped by a rotation to the same key that was cut short (each key is replaced on its own): done already.
      if (opensWith(newMasterKey, key.tenantId, key.wrapped)) {
        onProgress?.(++done, keys.length);
        continue;
      }
      const plain = this.unwrap(key.tenantId, key.wrapped);
      const wrapped = seal(newMasterKey, this.deps.random.bytes(AEAD_IV_BYTES), plain, wrapAad(key.tenantId));
      await this.deps.dataKeys.replace({ ...key, wrapped });
      onProgress?.(++done, keys.length);
    }
    return keys.length;
  }

  private unwrap(tenantId: string, wrapped: Uint8Array): Buffer {
    try {
      return open(this.deps.masterKey, wrapped, wrapAad(tenantId));
    } catch {
      throw new MasterKeyMismatchError(tenantId);
    }
  }

  private async load(tenantId: string): Promise<TenantKeys> {
    const found = await this.deps.dataKeys.find(tenantId);
    if (!found && this.deps.createMissing === false) throw new DataKeyNotFoundError(tenantId);
    const stored =
      found ??
      (await this.deps.dataKeys.createIfAbsent({
        tenantId,
        wrapped: seal(this.deps.masterKey, this.deps.random.bytes(AEAD_IV_BYTES), this.deps.random.bytes(32), wrapAad(tenantId)),
        createdAt: this.deps.clock.now(),
      }));
    const dataKey = this.unwrap(tenantId, stored.wrapped);
    return new TenantKeys(tenantId, dataKey, this.deps.random);
  }
}

/** Whether `masterKey` opens a tenant's wrapped data key. */
function opensWith(masterKey: Uint8Array, tenantId: string, wrapped: Uint8Array): boolean {
  try {
    open(masterKey, wrapped, wrapAad(tenantId));
    return true;
  } catch {
    return false;
  }
}
