import { join } from 'node:path';
import { type DataKeyRepository, Keyring, MasterKeyMismatchError, type RandomSource, SystemClock } from '@svc/core';
import { type Config, ConfigError } from './config';
import { createMasterKeyFile, MASTER_KEY_FILE, readMasterKeyFile } from './master-key';

/**
 * The master key as configured, read before the store opens (so a master.key that is not a key stops a command
 * before it creates anything): SVC_MASTER_KEY, else master.key in the data dir of the SQLite store. Undefined when
 * neither is there; nothing is generated here.
 */
export function configuredMasterKey(config: Config): Buffer | undefined {
  if (config.masterKey) return config.masterKey;
  return config.store === 'sqlite' ? readMasterKeyFile(config.dataDir) : undefined;
}

export interface OpenMasterKeyOptions {
  /**
   * May generate master.key (SQLite without SVC_MASTER_KEY) when the store has no data keys yet: `svc serve` and
   * `svc tenants create` on a fresh store. Otherwise a store without data keys and without a key gets a throwaway
   * key, which a read-only keyring never wraps anything under.
   */
  readonly create: boolean;
  readonly random: RandomSource;
  /** `svc keys rotate`'s new key: data keys it opens pass the check (a rotation cut short, run again). */
  readonly rotatingTo?: Buffer | undefined;
}

/**
 * The master key the store will be used with, checked against it before anything else touches the store: a store
 * that has data keys needs the key that opens every one of them. Without a key it is refused (a generated one would
 * open none of its tokens, and new tenants would get data keys the right key cannot open); with another key it is
 * refused, naming it. A key is generated only for a store with no data keys (a fresh store).
 */
export async function openMasterKey(
  config: Config,
  configured: Buffer | undefined,
  dataKeys: DataKeyRepository,
  options: OpenMasterKeyOptions,
): Promise<Buffer> {
  if (!configured) {
    if ((await dataKeys.all()).length > 0) {
      throw new ConfigError(
        'SVC_MASTER_KEY',
        `this store has data keys but no master key: set SVC_MASTER_KEY, or put the store's ${MASTER_KEY_FILE} in ${config.dataDir} (a new key would open none of its tokens)`,
      );
    }
    if (config.store === 'sqlite' && options.create) return createMasterKeyFile(config.dataDir);
    return Buffer.from(options.random.bytes(32));
  }
  const keyring = new Keyring({ dataKeys, random: options.random, clock: new SystemClock(), masterKey: configured, createMissing: false });
  try {
    await keyring.openAll(options.rotatingTo);
  } catch (error) {
    if (!(error instanceof MasterKeyMismatchError)) throw error;
    const name = config.masterKey ? 'SVC_MASTER_KEY' : join(config.dataDir, MASTER_KEY_FILE);
    throw new ConfigError(
      'SVC_MASTER_KEY',
      `the master key does not open this store's data keys (${name} does not open the data key of tenant ${error.tenantId}): use the key the store was made with, or, if \`svc keys rotate\` was cut short, run it again with the same SVC_NEW_MASTER_KEY`,
    );
  }
  return configured;
}
