import type { ApplicationRepository } from '../applications/application.repository';
import type { MemberRepository } from '../members/member';
import type { SystemRepository } from '../tenants/system.repository';
import type { TenantRepository } from '../tenants/tenant';
import type { UserRepository } from '../users/user';
import type { DataKeyRepository } from '../crypto/data-key';
import type { TokenRepository } from '../tokens/token.repository';
import type { SessionRepository } from '../sessions/session';
import type { InvitationRepository } from '../invitations/invitation';
import type { TokenIntentRepository } from '../token-intents/token-intent';
import type { IdempotencyRepository } from '../idempotency/idempotency';
import type { WebhookRepository } from '../webhooks/webhook';
import type { WebhookDeliveryRepository } from '../webhooks/webhook-delivery';
import type { AuditLogRepository } from '../audit/audit-log';
import type { ProxyRepository } from '../proxies/proxy';

/**
 * What a store's own failure says about the store, as its adapter reads it: `full` (its disk has no room: the write
 * was not made) or `damaged` (its files are corrupt: an operator must restore them). Anything else is a plain failure.
 */
export type StoreFault = 'full' | 'damaged';

/** Every repository of one storage technology, opened together and closed together. */
export interface Store {
  readonly tenants: TenantRepository;
  readonly users: UserRepository;
  readonly members: MemberRepository;
  readonly applications: ApplicationRepository;
  readonly system: SystemRepository;
  readonly dataKeys: DataKeyRepository;
  readonly tokens: TokenRepository;
  readonly sessions: SessionRepository;
  readonly invitations: InvitationRepository;
  readonly tokenIntents: TokenIntentRepository;
  readonly idempotency: IdempotencyRepository;
  readonly webhooks: WebhookRepository;
  readonly webhookDeliveries: WebhookDeliveryRepository;
  readonly auditLog: AuditLogRepository;
  readonly proxies: ProxyRepository;
  /** Resolves when the store answers, reads and writes alike (GET /readyz); rejects when it does not. */
  ping(): Promise<void>;
  /** The fault an error this store threw shows, when it shows one (a store that cannot tell leaves this out). */
  fault?(error: unknown): StoreFault | undefined;
  close(): Promise<void>;
}
