import type { WriteEffects } from '@svc/core';
import type { InMemoryEffects } from './in-memory-effects';
import type { Session, SessionGrant, SessionRepository } from '@svc/core';

export class InMemorySessionRepository implements SessionRepository {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly effects?: InMemoryEffects) {}

  async create(session: Session, effects?: WriteEffects): Promise<void> {
    this.sessions.set(session.id, session);
    this.effects?.write(effects);
  }

  async findByKeyHash(keyHash: string): Promise<Session | undefined> {
    return [...this.sessions.values()].find((s) => s.keyHash === keyHash);
  }

  async findByNonceHash(nonceHash: string): Promise<Session | undefined> {
    return [...this.sessions.values()].find((s) => s.nonceHash === nonceHash);
  }

  async authorize(tenantId: string, id: string, grant: SessionGrant, effects?: WriteEffects): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session || session.tenantId !== tenantId || session.authorizedAt) return false;
    this.sessions.set(id, { ...session, ...grant });
    this.effects?.write(effects);
    return true;
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.deleteWhere((s) => s.expiresAt.getTime() <= now.getTime());
  }

  async deleteByApplication(tenantId: string, applicationId: string): Promise<number> {
    return this.deleteWhere((s) => s.tenantId === tenantId && s.applicationId === applicationId);
  }

  private deleteWhere(predicate: (s: Session) => boolean): number {
    let count = 0;
    for (const [id, session] of this.sessions) {
      if (predicate(session)) {
        this.sessions.delete(id);
        count++;
      }
    }
    return count;
  }
}
