import { type KeepAnswer, keptWith } from '../idempotency/keep-answer';
import { characterCount } from '../shared/text';
import type { WebhookDelivery, WebhookDeliveryRepository } from './webhook-delivery';
import { type Audit, auditOf } from '../audit/audit';
import { factsAbout } from '../audit/audit-effects';
import type { Actor } from '../auth/actor';
import { requirePermission } from '../auth/authorize';
import type { Keyring } from '../crypto/keyring';
import { checkDestination } from '../outbound/check-destination';
import type { HostResolver } from '../outbound/host-resolver';
import type { OutboundPolicy } from '../outbound/outbound-policy';
import { base58 } from '../shared/base58';
import type { Clock } from '../shared/clock';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors';
import type { IdGenerator } from '../shared/ids';
import { MAX_PAGE_SIZE, type Page, pageRequest } from '../shared/pagination';
import type { RandomSource } from '../shared/random';
import { isEmail } from '../users/email';
import {
  isWebhookEventType,
  MAX_WEBHOOK_NAME,
  MAX_WEBHOOK_URL,
  MAX_WEBHOOKS_PER_TENANT,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_STATUSES,
  type Webhook,
  type WebhookEventType,
  type WebhookRepository,
  type WebhookStatus,
} from './webhook';

/** An event about a webhook. */
export const webhookFact = factsAbout('webhook');

export interface WebhookDeps {
  readonly webhooks: WebhookRepository;
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly random: RandomSource;
  /** The outbound policy (SVC_OUTBOUND_ALLOW): a url it refuses is refused at create and update. */
  readonly policy: OutboundPolicy;
  /** Looks the url's host name up at create and update, so a name of a private address is refused then. */
  readonly resolver: HostResolver;
  /** Webhooks a tenant may hold (default {@link MAX_WEBHOOKS_PER_TENANT}). */
  readonly limit?: number;
  /** Records what callers do (ADR 4); absent in unit tests of other rules. */
  readonly audit?: Audit | undefined;
}

/** The body of a create or an update, as the edge parsed it. */
export interface WebhookInput {
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly status?: string | undefined;
  readonly notifyEmail?: string | null | undefined;
}

/** A new webhook together with its signing secret in plaintext: only create ever produces one. */
export interface WebhookWithSecret {
  readonly webhook: Webhook;
  readonly secret: string;
}

/** The prefix of a signing secret, so that one found in a log or a repository is recognisable. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

interface ValidWebhookInput {
  readonly name: string;
  readonly url: string;
  readonly events: WebhookEventType[];
  readonly status?: WebhookStatus;
  readonly notifyEmail?: string;
}

export const webhookNotFound = (): NotFoundError => new NotFoundError('webhook');

/**
 * The rules of a webhook's fields: a name of 1 to 200 characters; a url of at most 2,000 characters that the
 * outbound policy accepts (its scheme, port, credentials, host name and, for an IP literal, its address; a host
 * name is looked up and every address it has now must pass too: see {@link checkDestination}, and each delivery
 * checks again); events non-empty, known and without duplicates; a known status; a well-formed notify e-mail. Every
 * broken field is named.
 */
export async function validateWebhookInput(deps: Pick<WebhookDeps, 'policy' | 'resolver'>, input: WebhookInput): Promise<ValidWebhookInput> {
  const errors: Record<string, string[]> = {};
  const name = input.name.trim();
  if (name.length === 0) errors.name = ['Name is required.'];
  else if (characterCount(name) > MAX_WEBHOOK_NAME) errors.name = [`Name must be at most ${MAX_WEBHOOK_NAME} characters.`];
  const url = input.url.trim();
  if (url.length === 0) errors.url = ['Url is required.'];
  else if (url.length > MAX_WEBHOOK_URL) errors.url = [`Url must be at most ${MAX_WEBHOOK_URL} characters.`];
  else {
    const decision = await checkDestination(deps.policy, deps.resolver, url);
    if (!decision.allowed) errors.url = [`Url ${decision.reason}.`];
  }
  const events: WebhookEventType[] = [];
  if (input.events.length === 0) errors.events = ['At least one event type is required.'];
  input.events.forEach((event, i) => {
    if (!isWebhookEventType(event)) errors[`events[${i}]`] = [`Unknown event type; GET /webhooks/event-types lists them.`];
    else if (events.includes(event)) errors[`events[${i}]`] = [`Event type '${event}' is listed twice.`];
    else events.push(event);
  });
  const status = input.status;
  if (status !== undefined && !(WEBHOOK_STATUSES as readonly string[]).includes(status)) {
    errors.status = ['Status must be one of enabled, disabled.'];
  }
  const email = input.notifyEmail?.trim();
  if (email !== undefined && email !== '' && !isEmail(email)) errors.notify_email = ['Must be a well-formed e-mail address.'];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    name,
    url,
    events,
    ...(status !== undefined ? { status: status as WebhookStatus } : {}),
    ...(email ? { notifyEmail: email } : {}),
  };
}

async function loadWebhook(deps: WebhookDeps, actor: Actor, id: string): Promise<Webhook> {
  const webhook = await deps.webhooks.findById(actor.tenantId, id);
  if (!webhook) throw webhookNotFound();
  return webhook;
}

/** Creates a webhook with a new signing secret (`whsec_` and 32 random bytes in base58), stored sealed. */
export class CreateWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  /** `keep`: seals the answer for an idempotency key, kept in the webhook's own write. */
  async execute(actor: Actor, input: WebhookInput, keep?: KeepAnswer<WebhookWithSecret>): Promise<WebhookWithSecret> {
    requirePermission(actor, 'webhook:create');
    const valid = await validateWebhookInput(this.deps, input);
    const id = this.deps.ids.next();
    const secret = `${WEBHOOK_SECRET_PREFIX}${base58(this.deps.random.bytes(32))}`;
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    const webhook: Webhook = {
      id,
      tenantId: actor.tenantId,
      name: valid.name,
      url: valid.url,
      events: valid.events,
      status: valid.status ?? 'enabled',
      notifyEmail: valid.notifyEmail,
      sealedSecret: keys.sealWebhookSecret(id, secret),
      createdBy: actor.applicationId,
      createdAt: this.deps.clock.now(),
    };
    const limit = this.deps.limit ?? MAX_WEBHOOKS_PER_TENANT;
    const effects = auditOf(this.deps).write(actor, webhook.createdAt, webhookFact(id, 'create', 'Webhook created'));
    const created = { webhook, secret };
    if ((await this.deps.webhooks.create(webhook, limit, await keptWith(effects, keep, created))) === 'limit') {
      throw ValidationError.field('webhooks', `A tenant may have at most ${limit} webhooks.`);
    }
    return created;
  }
}

export class GetWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(actor: Actor, id: string): Promise<Webhook> {
    requirePermission(actor, 'webhook:read');
    return loadWebhook(this.deps, actor, id);
  }
}

export interface ListWebhooksInput {
  readonly page?: number | undefined;
  readonly size?: number | undefined;
}

/** A page of the tenant's webhooks; the default (and largest) page holds every webhook a tenant may have. */
export class ListWebhooks {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(actor: Actor, input: ListWebhooksInput): Promise<Page<Webhook>> {
    requirePermission(actor, 'webhook:read');
    // By default a page holds as many as a tenant may have (the SDK's list() sends no paging); any size up to the
    // lists' largest (decisions.md §3) is taken.
    const limit = this.deps.limit ?? MAX_WEBHOOKS_PER_TENANT;
    return this.deps.webhooks.list(actor.tenantId, pageRequest(input.page, input.size ?? limit, Math.max(limit, MAX_PAGE_SIZE)));
  }
}

/**
 * Replaces a webhook's name, url, events and notify e-mail (absent: removed); its status only when given (the node
 * SDK's update sends none, and must not re-enable a webhook a failing delivery disabled). The secret stays.
 */
export class UpdateWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  /**
   * `keep`: the answer is kept with the update (an idempotency key's, see KeepAnswer). The write holds only while the
   * webhook is as read (`asRead`): a change made meanwhile (a failing delivery disabling it) makes it read again.
   */
  async execute(actor: Actor, id: string, input: WebhookInput, keep?: KeepAnswer<Webhook>): Promise<Webhook> {
    requirePermission(actor, 'webhook:update');
    // An absent webhook is a 404 before its body is checked (and its URL looked up).
    let current = await loadWebhook(this.deps, actor, id);
    const valid = await validateWebhookInput(this.deps, input);
    for (let attempt = 0; attempt < WEBHOOK_UPDATE_ATTEMPTS; attempt++) {
      if (attempt > 0) current = await loadWebhook(this.deps, actor, id);
      const modifiedAt = nextModification(this.deps.clock.now(), current);
      const updated: Webhook = {
        ...current,
        name: valid.name,
        url: valid.url,
        events: valid.events,
        status: valid.status ?? current.status,
        notifyEmail: valid.notifyEmail,
        modifiedBy: actor.applicationId,
        modifiedAt,
      };
      const effects = auditOf(this.deps).write(actor, modifiedAt, webhookFact(id, 'update', 'Webhook updated'));
      if (await this.deps.webhooks.update(updated, await keptWith(effects, keep, updated), current)) return updated;
    }
    throw new ConflictError('WEBHOOK_CHANGED', 'The webhook kept changing while this update was applied; send it again.');
  }
}

/** Reads, changes and compare-and-sets before an update gives up on a webhook that keeps changing under it. */
const WEBHOOK_UPDATE_ATTEMPTS = 5;

/**
 * The `modifiedAt` of a change to `current`: now, and always past the one it replaces, so that every change moves it
 * and a write made on an older read finds it moved (two changes in one millisecond would otherwise look alike).
 */
export function nextModification(now: Date, current: Webhook): Date {
  const last = current.modifiedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
  return now.getTime() > last ? now : new Date(last + 1);
}

export class DeleteWebhook {
  constructor(private readonly deps: WebhookDeps) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requirePermission(actor, 'webhook:delete');
    const effects = auditOf(this.deps).write(actor, this.deps.clock.now(), webhookFact(id, 'delete', 'Webhook deleted'));
    if (!(await this.deps.webhooks.delete(actor.tenantId, id, effects))) throw webhookNotFound();
  }
}

/** The event types a webhook may subscribe to. */
export class ListWebhookEventTypes {
  execute(actor: Actor): readonly WebhookEventType[] {
    requirePermission(actor, 'webhook:read');
    return WEBHOOK_EVENT_TYPES;
  }
}

/** GET /webhooks/{id}/deliveries: the webhook's delivery attempts, newest first. */
export class ListWebhookDeliveries {
  constructor(private readonly deps: WebhookDeps & { readonly deliveries: WebhookDeliveryRepository }) {}

  async execute(actor: Actor, id: string, input: ListWebhooksInput): Promise<Page<WebhookDelivery>> {
    requirePermission(actor, 'webhook:read');
    await loadWebhook(this.deps, actor, id);
    return this.deps.deliveries.list(actor.tenantId, id, pageRequest(input.page, input.size));
  }
}
