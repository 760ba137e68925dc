import type { WriteEffects } from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import type { InMemoryTokenIntentRepository } from './in-memory-token-intent.repository';
import type {
  CreateManyOutcome,
  CreateTokenOptions,
  CreateTokenOutcome,
  EffectsIfOutcomes,
  DataKeyRepository,
  Page,
  PageRequest,
  StoredToken,
  TokenQuery,
  TokenRepository,
  TokenStored,
  TokenToCreate,
  UpdateTokenOutcome,
  WrappedDataKey,
} from '@svc/core';
import { newestFirst, paginate } from './paginate';
import { isAfterPosition, isTokenExpired, outcomesAsExpected, matchesQuery, tokenExpiryEffects, type KeysetPage, type KeysetRequest } from '@svc/core';

const keyOf = (tenantId: string, id: string): string => `${tenantId}\u0000${id}`;

/** Whether `stored` is still the token `read` was read from: the same creation, not rewritten since. */
const unchangedSince = (stored: StoredToken, read: StoredToken): boolean =>
  stored.version === read.version && stored.createdAt.getTime() === read.createdAt.getTime();

/** Tokens in memory. Every call completes in one turn of the event loop, which makes dedup atomic. */
export class InMemoryTokenRepository implements TokenRepository {
  private readonly tokens = new Map<string, StoredToken>();

  /** `intents`: where the intents a create names are used up (without it, a create naming one is `intent_gone`). */
  constructor(
    private readonly effects?: InMemoryEffects,
    private readonly intents?: InMemoryTokenIntentRepository,
  ) {}

  async create(token: StoredToken, options: CreateTokenOptions): Promise<CreateTokenOutcome> {
    const { intentId, now } = options;
    if (options.deduplicate) {
      // Nothing is written, and an intent is left for the caller to take with its answer.
      const existing = this.oldestWithFingerprint(token, now);
      if (existing) return { status: 'existing', token: existing };
    }
    const key = keyOf(token.tenantId, token.id);
    const current = this.tokens.get(key);
    if (current && !isTokenExpired(current, now)) return { status: 'duplicate_id' };
    if (intentId !== undefined && !this.intents?.isLive(token.tenantId, intentId, now)) return { status: 'intent_gone' };
    this.tokens.set(key, token);
    this.effects?.write(options.effects);
    if (intentId !== undefined) this.intents?.useUp(token.tenantId, intentId);
    return { status: 'created' };
  }

  /** Checks every id and intent first, then stores: nothing is written unless everything can be, all in one turn. */
  async createMany(tokens: readonly TokenToCreate[], now: Date, ifOutcomes?: EffectsIfOutcomes): Promise<CreateManyOutcome> {
    const taken = new Set<string>();
    const usedUp = new Set<string>();
    const created: TokenToCreate[] = [];
    const existing: TokenToCreate[] = [];
    const outcomes: TokenStored[] = [];
    for (const [index, { token, deduplicate, intentId }] of tokens.entries()) {
      if (intentId !== undefined) {
        const key = keyOf(token.tenantId, intentId);
        if (usedUp.has(key) || !this.intents?.isLive(token.tenantId, intentId, now)) return { status: 'intent_gone', index };
        usedUp.add(key);
      }
      if (deduplicate) {
        const found =
          this.oldestWithFingerprint(token, now) ??
          created.find(({ token: t }) => t.tenantId === token.tenantId && t.type === token.type && t.fingerprint === token.fingerprint)?.token;
        if (found) {
          outcomes.push({ status: 'existing', token: found });
          existing.push(tokens[index]!);
          continue;
        }
      }
      const key = keyOf(token.tenantId, token.id);
      const current = this.tokens.get(key);
      if (taken.has(key) || (current && !isTokenExpired(current, now))) return { status: 'duplicate_id', index };
      taken.add(key);
      created.push(tokens[index]!);
      outcomes.push({ status: 'created' });
    }
    for (const { token, effects } of created) {
      this.tokens.set(keyOf(token.tenantId, token.id), token);
      this.effects?.write(effects);
    }
    for (const { effectsIfExisting } of existing) this.effects?.write(effectsIfExisting);
    for (const { token, intentId } of tokens) if (intentId !== undefined) this.intents?.useUp(token.tenantId, intentId);
    if (ifOutcomes && outcomesAsExpected(outcomes, ifOutcomes.expected)) this.effects?.write(ifOutcomes.effects);
    return { status: 'created', outcomes };
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredToken | undefined> {
    const token = this.tokens.get(keyOf(tenantId, id));
    return token && !isTokenExpired(token, now) ? token : undefined;
  }

  async findMany(tenantId: string, ids: readonly string[], now: Date): Promise<ReadonlyMap<string, StoredToken>> {
    const found = new Map<string, StoredToken>();
    for (const id of ids) {
      const token = this.tokens.get(keyOf(tenantId, id));
      if (token && !isTokenExpired(token, now)) found.set(id, token);
    }
    return found;
  }

  /** The check and the write happen in one turn of the event loop: nothing can come between them. */
  async update(token: StoredToken, now: Date, effects?: WriteEffects): Promise<UpdateTokenOutcome> {
    const key = keyOf(token.tenantId, token.id);
    const current = this.tokens.get(key);
    if (!current || isTokenExpired(current, now)) return { status: 'gone' };
    if (!unchangedSince(current, token)) return { status: 'conflict' };
    this.tokens.set(key, { ...token, version: token.version + 1 });
    this.effects?.write(effects);
    return { status: 'updated' };
  }

  async delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean> {
    if (!this.tokens.delete(keyOf(tenantId, id))) return false;
    this.effects?.write(effects);
    return true;
  }

  async search(tenantId: string, query: TokenQuery, page: PageRequest, now: Date): Promise<Page<StoredToken>> {
    const matches = [...this.tokens.values()].filter(
      (t) => t.tenantId === tenantId && !isTokenExpired(t, now) && matchesQuery(t, query),
    );
    return paginate(matches, page);
  }

  async searchAfter(tenantId: string, query: TokenQuery, request: KeysetRequest, now: Date): Promise<KeysetPage<StoredToken>> {
    const { after, size } = request;
    const matches = [...this.tokens.values()].filter(
      (t) => t.tenantId === tenantId && (!after || isAfterPosition(t, after)) && !isTokenExpired(t, now) && matchesQuery(t, query),
    );
    const sorted = matches.sort(newestFirst);
    return { items: sorted.slice(0, size), hasMore: sorted.length > size };
  }

  async deleteExpired(now: Date): Promise<number> {
    let count = 0;
    for (const [key, token] of this.tokens) {
      if (isTokenExpired(token, now)) {
        this.tokens.delete(key);
        this.effects?.write(tokenExpiryEffects(token, now));
        count++;
      }
    }
    return count;
  }

  async eraseCvc(token: StoredToken, sealedData: Uint8Array): Promise<boolean> {
    const key = keyOf(token.tenantId, token.id);
    const current = this.tokens.get(key);
    if (!current?.cvcExpiresAt || !unchangedSince(current, token)) return false;
    this.tokens.set(key, { ...current, sealedData, cvcExpiresAt: undefined, version: current.version + 1 });
    return true;
  }

  async findCvcDue(now: Date, limit: number): Promise<readonly StoredToken[]> {
    return [...this.tokens.values()]
      .filter((t) => t.cvcExpiresAt !== undefined && t.cvcExpiresAt.getTime() <= now.getTime())
      .slice(0, limit);
  }

  /** Every stored token, for tests that inspect what a store holds. */
  all(): readonly StoredToken[] {
    return [...this.tokens.values()];
  }

  async findByFingerprint(tenantId: string, type: StoredToken['type'], fingerprint: string, now: Date): Promise<StoredToken | undefined> {
    return this.oldestWithFingerprint({ tenantId, type, fingerprint }, now);
  }

  private oldestWithFingerprint(token: Pick<StoredToken, 'tenantId' | 'type' | 'fingerprint'>, now: Date): StoredToken | undefined {
    let found: StoredToken | undefined;
    for (const t of this.tokens.values()) {
      if (t.tenantId !== token.tenantId || t.type !== token.type || t.fingerprint !== token.fingerprint || isTokenExpired(t, now)) continue;
      if (!found || t.createdAt.getTime() < found.createdAt.getTime()) found = t;
    }
    return found;
  }
}

export class InMemoryDataKeyRepository implements DataKeyRepository {
  private readonly keys = new Map<string, WrappedDataKey>();

  async find(tenantId: string): Promise<WrappedDataKey | undefined> {
    return this.keys.get(tenantId);
  }

  async createIfAbsent(key: WrappedDataKey): Promise<WrappedDataKey> {
    const existing = this.keys.get(key.tenantId);
    if (existing) return existing;
    this.keys.set(key.tenantId, key);
    return key;
  }

  async all(): Promise<readonly WrappedDataKey[]> {
    return [...this.keys.values()];
  }

  async replace(key: WrappedDataKey): Promise<void> {
    this.keys.set(key.tenantId, key);
  }
}
