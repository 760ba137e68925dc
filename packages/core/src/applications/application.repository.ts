import type { WriteEffects } from '../audit/write-effects';
import type { Page, PageRequest } from '../shared/pagination';
import type { ApplicationType } from '../access/permissions';
import type { Application } from './application';
import type { ApplicationKey } from './application-key';

export interface ApplicationFilter {
  readonly ids?: readonly string[];
  /** Any of these types (GET /applications?type=private&type=public). */
  readonly types?: readonly ApplicationType[];
  /** Leave out applications whose expiresAt is at or before this instant. */
  readonly liveAt?: Date;
}

/** What {@link ApplicationRepository.addKey} did: added the key, refused it (the application holds `limit`), or found no application. */
export type AddKeyOutcome = 'added' | 'limit' | 'absent';

/**
 * Stores applications and their keys. Every read is scoped by tenant except the key lookup, which finds the tenant.
 * A key belongs to one application of one tenant: key reads and writes name both, and a key of another application
 * (or another tenant's) is absent. A deleted application takes its keys with it.
 */
/**
 * Every write takes optional WriteEffects, stored in the same transaction when (and only when) the write changed
 * something; see ADR 4.
 */
export interface ApplicationRepository {
  /** Stores a new application together with its first key. */
  create(application: Application, key: ApplicationKey | undefined, effects?: WriteEffects): Promise<void>;
  findById(tenantId: string, id: string): Promise<Application | undefined>;
  /** Finds the application holding the key that hashes to `keyHash`, in any tenant. */
  findByKeyHash(keyHash: string): Promise<Application | undefined>;
  /** Ordered by created_at descending, then id. */
  list(tenantId: string, filter: ApplicationFilter, page: PageRequest): Promise<Page<Application>>;
  /** Replaces a stored application's fields (its keys stay); false when it no longer exists. */
  update(application: Application, effects?: WriteEffects): Promise<boolean>;
  /** Deletes the application and its keys; false when there was nothing to delete. */
  delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean>;
  /** Deletes every application whose expiresAt is at or before `now`, with its keys; returns how many applications. */
  deleteExpired(now: Date): Promise<number>;
  /**
   * Adds a key to its application unless the application already holds `limit` keys. Atomic: concurrent adds,
   * from this process or another, never leave more than `limit`, and a key is never added to a deleted application.
   */
  addKey(key: ApplicationKey, limit: number, effects?: WriteEffects): Promise<AddKeyOutcome>;
  /** The keys of one application, newest first (created_at descending, then id); empty when it does not exist. */
  listKeys(tenantId: string, applicationId: string): Promise<ApplicationKey[]>;
  findKey(tenantId: string, applicationId: string, keyId: string): Promise<ApplicationKey | undefined>;
  /** Revokes one key: from then on its hash finds nothing. False when there was no such key. */
  deleteKey(tenantId: string, applicationId: string, keyId: string, effects?: WriteEffects): Promise<boolean>;
  /**
   * Stores `application` (as {@link update}) and makes `key` its only key, atomically: every other key of it stops
   * working. False, changing nothing, when the application no longer exists.
   */
  replaceKeys(application: Application, key: ApplicationKey, effects?: WriteEffects): Promise<boolean>;
}
