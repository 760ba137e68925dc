import type { Actor } from '../auth/actor';
import type { IdGenerator } from '../shared/ids';
import { TimeOrderedUuidGenerator } from '../shared/ids';
import type { StoredToken, TokenAttributes } from '../tokens/token';
import type { Application } from '../applications/application';
import type { Member } from '../members/member';
import type { Invitation } from '../invitations/invitation';
import type { WebhookEventType } from '../webhooks/webhook';
import type { AuditActorType, AuditEntityType, AuditEvent, AuditOutcome } from './audit-event';
import type { OutboxMessage, WriteEffects } from './write-effects';

/** Who an event names: an application or session, or svc itself (the sweeper). */
export interface AuditActor {
  readonly tenantId: string;
  readonly id: string;
  readonly type: AuditActorType;
  readonly traceId?: string | undefined;
}

/** The application or session an actor stands for. */
export function auditActor(actor: Actor): AuditActor {
  return actor.kind === 'session'
    ? { tenantId: actor.tenantId, id: actor.sessionId ?? actor.applicationId, type: 'session', traceId: actor.traceId }
    : { tenantId: actor.tenantId, id: actor.applicationId, type: 'application', traceId: actor.traceId };
}

export const systemActor = (tenantId: string): AuditActor => ({ tenantId, id: 'svc', type: 'system' });

/** What happened, to what: the parts of an event its author chooses. Messages are fixed texts naming ids only. */
export interface AuditFact {
  readonly entityType: AuditEntityType;
  readonly entityId?: string | undefined;
  readonly operation: string;
  readonly outcome?: AuditOutcome | undefined;
  readonly message: string;
}

/** A maker of facts about one kind of entity, named by id: `webhookFact(id, 'delete', 'Webhook deleted')`. */
export function factsAbout(entityType: AuditEntityType): (id: string, operation: string, message: string) => AuditFact {
  return (id, operation, message) => ({ entityType, entityId: id, operation, message });
}

/** A webhook event to report: its type and the object's own fields (never token data). */
export interface WebhookFact {
  readonly type: WebhookEventType;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Builds events and messages with fresh ids at one moment. */
export class AuditEffects {
  constructor(private readonly ids: IdGenerator = new TimeOrderedUuidGenerator()) {}

  event(actor: AuditActor, fact: AuditFact, at: Date): AuditEvent {
    // One literal of one shape (absent fields undefined), no spreads: this runs for every read a caller makes.
    return {
      id: this.ids.next(),
      tenantId: actor.tenantId,
      actorId: actor.id,
      actorType: actor.type,
      entityType: fact.entityType,
      entityId: fact.entityId,
      operation: fact.operation,
      outcome: fact.outcome ?? 'success',
      message: fact.message,
      traceId: actor.traceId,
      createdAt: at,
    };
  }

  message(actor: AuditActor, fact: WebhookFact, at: Date): OutboxMessage {
    return { id: this.ids.next(), tenantId: actor.tenantId, type: fact.type, createdAt: at, actor, data: fact.data };
  }

  /** One write's effects: its events, and a message for each webhook fact. */
  effects(actor: AuditActor, at: Date, facts: readonly AuditFact[], hooks: readonly WebhookFact[] = []): WriteEffects {
    return { events: facts.map((f) => this.event(actor, f, at)), messages: hooks.map((h) => this.message(actor, h, at)) };
  }
}

const iso = (date: Date | undefined): string | null => date?.toISOString() ?? null;

/** A token's own fields as webhooks carry them: never its data, mask, fingerprint or search indexes. */
export function tokenHookData(token: TokenAttributes): Record<string, unknown> {
  return {
    id: token.id,
    type: token.type,
    tenant_id: token.tenantId,
    containers: [...token.containers],
    metadata: { ...token.metadata },
    created_by: token.createdBy,
    created_at: token.createdAt.toISOString(),
    modified_by: token.modifiedBy ?? null,
    modified_at: iso(token.modifiedAt),
    expires_at: iso(token.expiresAt),
  };
}

/** An application's own fields as webhooks carry them: never a key. */
export function applicationHookData(application: Application): Record<string, unknown> {
  return {
    id: application.id,
    tenant_id: application.tenantId,
    name: application.name,
    type: application.type,
    permissions: [...application.permissions],
    created_by: application.createdBy ?? null,
    created_at: application.createdAt.toISOString(),
    modified_by: application.modifiedBy ?? null,
    modified_at: iso(application.modifiedAt),
    expires_at: iso(application.expiresAt),
  };
}

/** A membership's own fields as webhooks carry them. */
export function memberHookData(member: Member): Record<string, unknown> {
  return { id: member.id, tenant_id: member.tenantId, user_id: member.userId, role: member.role, created_at: member.createdAt.toISOString() };
}

/** An invitation's own fields as webhooks carry them: never its link's secret. */
export function invitationHookData(invitation: Invitation): Record<string, unknown> {
  return {
    id: invitation.id,
    tenant_id: invitation.tenantId,
    email: invitation.email,
    created_by: invitation.createdBy ?? null,
    created_at: invitation.createdAt.toISOString(),
    expires_at: invitation.expiresAt.toISOString(),
  };
}

const expiryEffects = new AuditEffects();

/** What the sweeper's removal of an expired token brings (stores call this for each token they remove as expired). */
export function tokenExpiryEffects(token: StoredToken, now: Date): WriteEffects {
  return expiryEffects.effects(
    systemActor(token.tenantId),
    now,
    [{ entityType: 'token', entityId: token.id, operation: 'delete', message: 'Token expired and was removed' }],
    [{ type: 'token.expired', data: tokenHookData(token) }],
  );
}
