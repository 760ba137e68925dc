import type { WriteEffects } from '../audit/write-effects';
import type { Page, PageRequest } from '../shared/pagination';

/** Every event a webhook may subscribe to (beyond.md §6), in the order `GET /webhooks/event-types` lists them. */
export const WEBHOOK_EVENT_TYPES = [
  'token.created',
  'token.updated',
  'token.deleted',
  'token.expired',
  'application.created',
  'application.updated',
  'application.deleted',
  'application.key.created',
  'application.key.deleted',
  'tenant.invitation.created',
  'tenant.invitation.accepted',
  'tenant.member.created',
  'tenant.member.deleted',
  'proxy.created',
  'proxy.updated',
  'proxy.deleted',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** Limits of docs/webhooks.md. */
export const MAX_WEBHOOK_NAME = 200;
export const MAX_WEBHOOK_URL = 2_000;
export const MAX_WEBHOOKS_PER_TENANT = 50;

/**
 * A destination for a tenant's events. `sealedSecret` is the signing secret sealed with the tenant's keys under
 * `svc/webhook-secret/v1` (see TenantKeys.sealWebhookSecret): the store never holds it in the clear, and no read
 * answer shows it; only the create answer carries the plaintext.
 */
export interface Webhook {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly status: WebhookStatus;
  readonly notifyEmail?: string | undefined;
  readonly sealedSecret: Uint8Array;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly modifiedBy?: string | undefined;
  readonly modifiedAt?: Date | undefined;
}

/** What {@link WebhookRepository.create} did: stored the webhook, or refused it (the tenant holds `limit`). */
export type CreateWebhookOutcome = 'created' | 'limit';

/** Stores webhooks; every read and write is scoped by tenant, and another tenant's webhook is absent. */
export interface WebhookRepository {
  /**
   * Stores a new webhook unless its tenant already holds `limit`. Atomic: concurrent creates, from this process or
   * another, never leave a tenant with more than `limit`.
   */
  create(webhook: Webhook, limit: number, effects?: WriteEffects): Promise<CreateWebhookOutcome>;
  findById(tenantId: string, id: string): Promise<Webhook | undefined>;
  /** Ordered by created_at descending, then id descending. */
  list(tenantId: string, page: PageRequest): Promise<Page<Webhook>>;
  /**
   * Replaces a stored webhook's name, url, events, status, notify e-mail and modification fields; the sealed secret
   * and the creation fields stay as stored. False when it no longer exists, and, given `asRead` (the webhook as the
   * caller read it), when it was changed since (its `modifiedAt` moved): a change made meanwhile is never written over
   * with fields read before it, such as the status a failing delivery set.
   */
  update(webhook: Webhook, effects?: WriteEffects, asRead?: Webhook): Promise<boolean>;
  /** False when there was nothing to delete. Removes the webhook's deliveries with it. */
  delete(tenantId: string, id: string, effects?: WriteEffects): Promise<boolean>;
}
