import type { Clock } from '../shared/clock';
import type { IdGenerator } from '../shared/ids';
import type { RandomSource } from '../shared/random';
import { generateKey, hashKey, KEY_KIND_BY_TYPE } from '../auth/api-key';
import type { Application } from './application';

/**
 * Keys one application may hold at once, the one it was created with included. Enough for a key per deployment
 * or region plus one being rotated in; beyond it a forgotten key is more likely than a needed one.
 */
export const MAX_APPLICATION_KEYS = 10;

/**
 * One of an application's API keys; each works on its own and is revoked on its own. The key itself is never
 * stored: only `keyHash` (SHA-256), which is unique across every tenant.
 */
export interface ApplicationKey {
  readonly id: string;
  readonly tenantId: string;
  readonly applicationId: string;
  /** SHA-256 of the key, hex: what authentication looks keys up by. */
  readonly keyHash: string;
  /** The application that created the key; absent for keys made by provisioning (tenant create, bootstrap). */
  readonly createdBy?: string | undefined;
  readonly createdAt: Date;
}

/** A key just issued, with its plaintext: shown to the caller once, never stored. */
export interface IssuedApplicationKey {
  readonly key: ApplicationKey;
  readonly plaintext: string;
}

export interface KeyIssuingDeps {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: RandomSource;
}

/**
 * Issues a new key for `application`, of its type's kind (`key_pvt_…`, `key_pub_…`, `key_mgt_…`). `preset` installs
 * an operator-chosen key (the bootstrap key) instead of a generated one.
 */
export function issueApplicationKey(
  deps: KeyIssuingDeps,
  application: Application,
  createdBy: string | undefined,
  preset?: string,
): IssuedApplicationKey {
  const generated = preset ? { plaintext: preset, hash: hashKey(preset) } : generateKey(KEY_KIND_BY_TYPE[application.type], deps.random);
  return {
    key: {
      id: deps.ids.next(),
      tenantId: application.tenantId,
      applicationId: application.id,
      keyHash: generated.hash,
      createdBy,
      createdAt: deps.clock.now(),
    },
    plaintext: generated.plaintext,
  };
}
