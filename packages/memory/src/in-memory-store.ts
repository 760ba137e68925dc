import type { Store, Webhook } from '@svc/core';
import { InMemoryApplicationRepository } from './in-memory-application.repository';
import { InMemoryDataKeyRepository, InMemoryTokenRepository } from './in-memory-token.repository';
import { InMemorySessionRepository } from './in-memory-session.repository';
import { InMemoryInvitationRepository } from './in-memory-invitation.repository';
import { InMemoryTokenIntentRepository } from './in-memory-token-intent.repository';
import { InMemoryIdempotencyRepository } from './in-memory-idempotency.repository';
import { InMemoryWebhookRepository } from './in-memory-webhook.repository';
import { InMemoryProxyRepository } from './in-memory-proxy.repository';
import { InMemoryAuditLogRepository } from './in-memory-audit-log';
import { InMemoryWebhookDeliveryRepository } from './in-memory-webhook-delivery.repository';
import { InMemoryEffects } from './in-memory-effects';
import {
  InMemoryMemberRepository,
  InMemorySystemRepository,
  InMemoryTenantRepository,
  InMemoryUserRepository,
} from './in-memory-directory';

/** A complete store held in this process's memory: for tests and for embedding the vault. Nothing persists. */
export class InMemoryStore implements Store {
  readonly auditLog = new InMemoryAuditLogRepository();
  readonly webhookDeliveries = new InMemoryWebhookDeliveryRepository();
  /** Each write's effects, in the write's own step; messages fan out to the webhooks below. */
  readonly idempotency = new InMemoryIdempotencyRepository();
  private readonly effects: InMemoryEffects = new InMemoryEffects(
    this.auditLog,
    this.webhookDeliveries,
    (tenantId): Webhook[] => this.webhooks.ofTenant(tenantId),
    this.idempotency,
  );
  readonly tenants = new InMemoryTenantRepository();
  readonly users = new InMemoryUserRepository();
  readonly members = new InMemoryMemberRepository(this.effects);
  readonly applications = new InMemoryApplicationRepository(this.effects);
  readonly system = new InMemorySystemRepository();
  readonly dataKeys = new InMemoryDataKeyRepository();
  readonly tokenIntents = new InMemoryTokenIntentRepository(this.effects);
  readonly tokens = new InMemoryTokenRepository(this.effects, this.tokenIntents);
  readonly sessions = new InMemorySessionRepository(this.effects);
  readonly invitations = new InMemoryInvitationRepository(this.effects);
  readonly webhooks: InMemoryWebhookRepository = new InMemoryWebhookRepository(this.effects, this.webhookDeliveries);
  readonly proxies = new InMemoryProxyRepository(this.effects);

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

export function createMemoryStore(): InMemoryStore {
  return new InMemoryStore();
}
