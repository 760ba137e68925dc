import type { AuditLogRepository } from '../audit/audit-log';
import type { WebhookDeliveryRepository } from '../webhooks/webhook-delivery';
import type { Clock } from '../shared/clock';
import type { ApplicationRepository } from '../applications/application.repository';
import type { Keyring } from '../crypto/keyring';
import type { TokenRepository } from '../tokens/token.repository';
import { openToken } from '../tokens/token-sealing';
import { withoutCvc } from '../tokens/token-types';
import type { SessionRepository } from '../sessions/session';
import type { Mailer } from '../invitations/mailer';
import type { TokenIntentRepository } from '../token-intents/token-intent';
import type { IdempotencyRepository } from '../idempotency/idempotency';

/** What one sweep removed. */
export interface SweepReport {
  readonly applications: number;
  readonly tokens: number;
  readonly cvcs: number;
  readonly sessions: number;
  readonly tokenIntents: number;
  /** Idempotency keys past their expiry, kept answers with them. */
  readonly idempotencyKeys: number;
  /** Kept copies of invitation messages whose links expired (the development outbox). */
  readonly invitationMessages: number;
  /** Audit events past `SVC_LOG_RETENTION`. */
  readonly auditEvents: number;
  /** Finished webhook deliveries past the same retention. */
  readonly deliveries: number;
}

export interface SweepDeps {
  readonly applications: ApplicationRepository;
  readonly tokens: TokenRepository;
  readonly sessions: SessionRepository;
  readonly tokenIntents: TokenIntentRepository;
  readonly idempotency: IdempotencyRepository;
  readonly keyring: Keyring;
  readonly mailer: Mailer;
  readonly clock: Clock;
  readonly auditLog?: AuditLogRepository | undefined;
  readonly webhookDeliveries?: WebhookDeliveryRepository | undefined;
  /** How long audit events (and finished deliveries) are kept: `SVC_LOG_RETENTION`, 365 days by default. */
  readonly logRetentionMs?: number | undefined;
}

const CVC_BATCH = 500;
const AUDIT_BATCH = 5_000;
/** PCI DSS 10.5.1: a year of audit history. */
export const DEFAULT_LOG_RETENTION_MS = 365 * 24 * 3_600_000;

/**
 * Erases what time has made dead: expired applications, tokens, sessions, token intents and idempotency keys, card cvcs past their
 * retention, and kept copies of invitation e-mails whose links expired. Reads already treat all of these as gone, so
 * the sweeper only reclaims storage; running it late or twice is harmless.
 */
export class Sweep {
  constructor(private readonly deps: SweepDeps) {}

  async execute(): Promise<SweepReport> {
    const now = this.deps.clock.now();
    const applications = await this.deps.applications.deleteExpired(now);
    const tokens = await this.deps.tokens.deleteExpired(now);
    let cvcs = 0;
    for (;;) {
      const due = await this.deps.tokens.findCvcDue(now, CVC_BATCH);
      let erased = 0;
      for (const stored of due) {
        const keys = await this.deps.keyring.forTenant(stored.tenantId);
        const data = withoutCvc(stored.type, openToken(keys, stored).data);
        if (await this.deps.tokens.eraseCvc(stored, keys.seal(stored.id, data))) erased++;
      }
      // A token rewritten since it was read (its version moved on) is left alone: the erasure would overwrite that
      // write. It keeps its deadline (the update re-sealed it) and is picked up on the next sweep.
      cvcs += erased;
      if (due.length < CVC_BATCH || erased === 0) break;
    }
    const sessions = await this.deps.sessions.deleteExpired(now);
    const tokenIntents = await this.deps.tokenIntents.deleteExpired(now);
    const idempotencyKeys = await this.deps.idempotency.deleteExpired(now);
    const invitationMessages = await this.deps.mailer.discardExpired(now);
    const horizon = new Date(now.getTime() - (this.deps.logRetentionMs ?? DEFAULT_LOG_RETENTION_MS));
    let auditEvents = 0;
    for (let pruned = -1; pruned !== 0; auditEvents += pruned) pruned = (await this.deps.auditLog?.prune(horizon, AUDIT_BATCH)) ?? 0;
    const deliveries = (await this.deps.webhookDeliveries?.pruneFinished(horizon)) ?? 0;
    return { applications, tokens, cvcs, sessions, tokenIntents, idempotencyKeys, invitationMessages, auditEvents, deliveries };
  }
}
