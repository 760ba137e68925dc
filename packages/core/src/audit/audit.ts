import type { Actor } from '../auth/actor';
import type { IdGenerator } from '../shared/ids';
import type { AuditEvent } from './audit-event';
import { type AuditActor, type AuditFact, AuditEffects, auditActor, type WebhookFact } from './audit-effects';
import type { WriteEffects } from './write-effects';

/** Where events outside writes go (reads, refusals, failures): batched, never on the request path. */
export interface AuditTrail {
  record(events: readonly AuditEvent[]): void;
}

/** A trail that keeps nothing: for use cases built without an audit log (unit tests of other rules). */
export const DISCARDING_TRAIL: AuditTrail = { record: () => undefined };

/**
 * What use cases record with (ADR 4): a write's effects, handed to the store with the write, and events of reads,
 * handed to the trail. Facts name ids and fixed texts only.
 */
export class Audit {
  private readonly builder: AuditEffects;

  constructor(
    private readonly trail: AuditTrail,
    ids?: IdGenerator,
  ) {
    this.builder = new AuditEffects(ids);
  }

  /** The effects of one write by `actor`: its events and, for each webhook fact, a message. */
  write(actor: Actor | AuditActor, at: Date, facts: AuditFact | readonly AuditFact[], hooks: readonly WebhookFact[] = []): WriteEffects {
    return this.builder.effects(toAuditActor(actor), at, Array.isArray(facts) ? facts : [facts as AuditFact], hooks);
  }

  /** Events of something that wrote nothing (a read, a refusal, a failure). */
  record(actor: Actor | AuditActor, at: Date, facts: AuditFact | readonly AuditFact[]): void {
    const who = toAuditActor(actor);
    const list = Array.isArray(facts) ? facts : [facts as AuditFact];
    if (list.length > 0) this.trail.record(list.map((f) => this.builder.event(who, f, at)));
  }
}

export const NO_AUDIT = new Audit(DISCARDING_TRAIL);

/** The audit a use case was given, or one that records nothing (use cases built for unit tests of other rules). */
export function auditOf(deps: { readonly audit?: Audit | undefined }): Audit {
  return deps.audit ?? NO_AUDIT;
}

function toAuditActor(actor: Actor | AuditActor): AuditActor {
  return 'kind' in actor ? auditActor(actor) : actor;
}
