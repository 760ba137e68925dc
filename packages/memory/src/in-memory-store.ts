import type { Store } from '@svc/core';
import { InMemoryApplicationRepository } from './in-memory-application.repository';
import { InMemoryDataKeyRepository, InMemoryTokenRepository } from './in-memory-token.repository';
import { InMemorySessionRepository } from './in-memory-session.repository';
import { InMemoryInvitationRepository } from './in-memory-invitation.repository';
import { InMemoryTokenIntentRepository } from './in-memory-token-intent.repository';
import { InMemoryIdempotencyRepository } from './in-memory-idempotency.repository';
import { InMemoryWebhookRepository } from './in-memory-webhook.repository';
import {
  InMemoryMemberRepository,
  InMemorySystemRepository,
  InMemoryTenantRepository,
  InMemoryUserRepository,
} from './in-memory-directory';

/** A complete store held in this process's memory: for tests and for embedding the vault. Nothing persists. */
export class InMemoryStore implements Store {
  readonly tenants = new InMemoryTenantRepository();
  readonly users = new InMemoryUserRepository();
  readonly members = new InMemoryMemberRepository();
  readonly applications = new InMemoryApplicationRepository();
  readonly system = new InMemorySystemRepository();
  readonly dataKeys = new InMemoryDataKeyRepository();
  readonly tokens = new InMemoryTokenRepository();
  readonly sessions = new InMemorySessionRepository();
  readonly invitations = new InMemoryInvitationRepository();
  readonly tokenIntents = new InMemoryTokenIntentRepository();
  readonly idempotency = new InMemoryIdempotencyRepository();
  readonly webhooks = new InMemoryWebhookRepository();

  async close(): Promise<void> {}
}

export function createMemoryStore(): InMemoryStore {
  return new InMemoryStore();
}
