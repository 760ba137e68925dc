import type { WriteEffects } from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import { isTokenIntentExpired, type StoredTokenIntent, type TokenIntentRepository } from '@svc/core';

/** Token intents in a Map keyed by tenant and id. Each operation runs without yielding, so a take is atomic. */
export class InMemoryTokenIntentRepository implements TokenIntentRepository {
  private readonly intents = new Map<string, StoredTokenIntent>();

  constructor(private readonly effects?: InMemoryEffects) {}

  async create(intent: StoredTokenIntent, effects?: WriteEffects): Promise<void> {
    const key = keyOf(intent.tenantId, intent.id);
    if (this.intents.has(key)) throw new Error('a token intent with this id exists');
    this.intents.set(key, intent);
    this.effects?.write(effects);
  }

  async findById(tenantId: string, id: string, now: Date): Promise<StoredTokenIntent | undefined> {
    return this.live(tenantId, id, now);
  }

  async take(tenantId: string, id: string, now: Date, effects?: WriteEffects): Promise<StoredTokenIntent | undefined> {
    // The look-up and the delete with no await between them: no other take can run in the middle.
    const intent = this.live(tenantId, id, now);
    if (intent) {
      this.intents.delete(keyOf(tenantId, id));
      this.effects?.write(effects);
    }
    return intent;
  }

  /** Whether the intent is live at `now`; with {@link useUp}, how a token create uses one up in its own turn. */
  isLive(tenantId: string, id: string, now: Date): boolean {
    return this.live(tenantId, id, now) !== undefined;
  }

  /** Removes the intent, live or not, without yielding (a token create's step, after {@link isLive}). */
  useUp(tenantId: string, id: string): void {
    this.intents.delete(keyOf(tenantId, id));
  }

  async deleteExpired(now: Date): Promise<number> {
    let count = 0;
    for (const [key, intent] of this.intents) {
      if (isTokenIntentExpired(intent, now)) {
        this.intents.delete(key);
        count++;
      }
    }
    return count;
  }

  private live(tenantId: string, id: string, now: Date): StoredTokenIntent | undefined {
    const intent = this.intents.get(keyOf(tenantId, id));
    return intent && !isTokenIntentExpired(intent, now) ? intent : undefined;
  }
}

const keyOf = (tenantId: string, id: string): string => `${tenantId}\u0000${id}`;
