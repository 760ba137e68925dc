import type { Page, PageRequest } from '../shared/pagination';
import type { ApplicationType } from '../access/permissions';
import type { Application } from './application';

export interface ApplicationFilter {
  readonly ids?: readonly string[];
  readonly type?: ApplicationType;
  /** Leave out applications whose expiresAt is at or before this instant. */
  readonly liveAt?: Date;
}

/** Stores applications. Every read is scoped by tenant except the key lookup, which finds the tenant. */
export interface ApplicationRepository {
  create(application: Application): Promise<void>;
  findById(tenantId: string, id: string): Promise<Application | undefined>;
  /** Finds the application whose key hashes to `keyHash`, in any tenant. */
  findByKeyHash(keyHash: string): Promise<Application | undefined>;
  /** Ordered by created_at descending, then id. */
  list(tenantId: string, filter: ApplicationFilter, page: PageRequest): Promise<Page<Application>>;
  /** Replaces a stored application; false when it no longer exists. */
  update(application: Application): Promise<boolean>;
  /** False when there was nothing to delete. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /** Deletes every application whose expiresAt is at or before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}
