import type { WriteEffects } from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import type { AddKeyOutcome, Application, ApplicationFilter, ApplicationKey, ApplicationRepository, Page, PageRequest } from '@svc/core';
import { paginate } from './paginate';

const newestFirst = (a: ApplicationKey, b: ApplicationKey): number =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** Every method runs to completion without awaiting, so each is atomic as the contract requires. */
export class InMemoryApplicationRepository implements ApplicationRepository {
  private readonly byId = new Map<string, Application>();
  /** Key hash → the key; the key names its application. */
  private readonly byKeyHash = new Map<string, ApplicationKey>();
  /** Application id → its keys by key id. */
  private readonly keysOf = new Map<string, Map<string, ApplicationKey>>();

  constructor(private readonly effects?: InMemoryEffects) {}

  async create(application: Application, key: ApplicationKey | undefined, effects?: WriteEffects): Promise<void> {
    if (this.byId.has(application.id)) throw new Error('duplicate application id');
    if (key && this.byKeyHash.has(key.keyHash)) throw new Error('duplicate key hash');
    this.byId.set(application.id, application);
    this.keysOf.set(application.id, new Map());
    if (key) this.store(key);
    this.effects?.write(effects);
  }

  async findById(tenantId: string, id: string): Promise<Application | undefined> {
    return this.owned(tenantId, id);
  }

  async findByKeyHash(keyHash: string): Promise<Application | undefined> {
    const key = this.byKeyHash.get(keyHash);
    return key && this.byId.get(key.applicationId);
  }

  async list(tenantId: string, filter: ApplicationFilter, page: PageRequest): Promise<Page<Application>> {
    const matches = [...this.byId.values()].filter(
      (a) =>
        a.tenantId === tenantId &&
        (!filter.ids || filter.ids.includes(a.id)) &&
        (!filter.types || filter.types.includes(a.type)) &&
        (!filter.liveAt || !a.expiresAt || a.expiresAt.getTime() > filter.liveAt.getTime()),
    );
    return paginate(matches, page);
  }

  async update(application: Application, effects?: WriteEffects): Promise<boolean> {
    if (!this.owned(application.tenantId, application.id)) return false;
    this.byId.set(application.id, application);
    this.effects?.write(effects);
    return true;
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    if (!this.owned(tenantId, id)) return false;
    this.dropKeys(id);
    this.keysOf.delete(id);
    this.byId.delete(id);
    this.effects?.write(effects);
    return true;
  }

  async deleteExpired(now: Date): Promise<number> {
    let count = 0;
    for (const app of [...this.byId.values()]) {
      if (app.expiresAt && app.expiresAt.getTime() <= now.getTime() && (await this.delete(app.tenantId, app.id))) count++;
    }
    return count;
  }

  async addKey(key: ApplicationKey, limit: number, effects?: WriteEffects): Promise<AddKeyOutcome> {
    if (!this.owned(key.tenantId, key.applicationId)) return 'absent';
    if (this.keysOf.get(key.applicationId)!.size >= limit) return 'limit';
    if (this.byKeyHash.has(key.keyHash)) throw new Error('duplicate key hash');
    this.store(key);
    this.effects?.write(effects);
    return 'added';
  }

  async listKeys(tenantId: string, applicationId: string): Promise<ApplicationKey[]> {
    if (!this.owned(tenantId, applicationId)) return [];
    return [...this.keysOf.get(applicationId)!.values()].sort(newestFirst);
  }

  async findKey(tenantId: string, applicationId: string, keyId: string): Promise<ApplicationKey | undefined> {
    return this.ownedKey(tenantId, applicationId, keyId);
  }

  async deleteKey(tenantId: string, applicationId: string, keyId: string, effects?: WriteEffects): Promise<boolean> {
    const key = this.ownedKey(tenantId, applicationId, keyId);
    if (!key) return false;
    this.keysOf.get(applicationId)!.delete(keyId);
    this.byKeyHash.delete(key.keyHash);
    this.effects?.write(effects);
    return true;
  }

  async replaceKeys(application: Application, key: ApplicationKey, effects?: WriteEffects): Promise<boolean> {
    if (!this.owned(application.tenantId, application.id)) return false;
    if (this.byKeyHash.has(key.keyHash)) throw new Error('duplicate key hash');
    this.byId.set(application.id, application);
    this.dropKeys(application.id);
    this.store(key);
    this.effects?.write(effects);
    return true;
  }

  /** The application `id` when it belongs to `tenantId`. */
  private owned(tenantId: string, id: string): Application | undefined {
    const app = this.byId.get(id);
    return app?.tenantId === tenantId ? app : undefined;
  }

  private ownedKey(tenantId: string, applicationId: string, keyId: string): ApplicationKey | undefined {
    return this.owned(tenantId, applicationId) ? this.keysOf.get(applicationId)!.get(keyId) : undefined;
  }

  private store(key: ApplicationKey): void {
    this.keysOf.get(key.applicationId)!.set(key.id, key);
    this.byKeyHash.set(key.keyHash, key);
  }

  private dropKeys(applicationId: string): void {
    const keys = this.keysOf.get(applicationId)!;
    for (const key of keys.values()) this.byKeyHash.delete(key.keyHash);
    keys.clear();
  }
}
