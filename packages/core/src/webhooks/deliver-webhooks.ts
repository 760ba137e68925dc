import { createHmac } from 'node:crypto';
import type { Keyring } from '../crypto/keyring';
import type { Clock } from '../shared/clock';
import { OutboundError, type OutboundHttp } from '../outbound/outbound-http';
import { type Audit, auditOf } from '../audit/audit';
import { systemActor } from '../audit/audit-effects';
import type { Webhook, WebhookRepository } from './webhook';
import type { DeliveryAttempt, WebhookDelivery, WebhookDeliveryRepository } from './webhook-delivery';
import { nextModification, webhookFact } from './webhook-use-cases';

/** Reads and compare-and-sets before a failing webhook's disabling gives up (a user keeps changing it meanwhile). */
const DISABLE_ATTEMPTS = 5;

/** Retries back off from 1 s, doubling, to at most 1 h between attempts (beyond.md §6). */
export const FIRST_RETRY_MS = 1_000;
export const LONGEST_RETRY_MS = 3_600_000;
/** A delivery failing this long after its event gives up, and disables its webhook. */
export const GIVE_UP_AFTER_MS = 24 * 3_600_000;
/** How long one attempt may take, connecting and reading the answer included. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * A leased delivery whose dispatcher died is tried again after this. It must outlast a whole run, or a slow run's last
 * delivery could be leased again and sent twice: a run's BATCH deliveries go PARALLEL at a time, each at most
 * DELIVERY_TIMEOUT_MS, so a run of hanging receivers ends within ceil(50 / 16) × 10 s = 40 s.
 */
const LEASE_MS = 60_000;
const BATCH = 50;
/** Attempts in flight at once, per run. */
const PARALLEL = 16;

/** The wait before attempt `n + 1` after `n` failed attempts: 1 s, 2 s, 4 s… up to 1 h. */
export function retryDelay(failedAttempts: number): number {
  return Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, Math.min(failedAttempts - 1, 30)));
}

/**
 * `SVC-SIGNATURE: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed by the secret's UTF-8 bytes
 * (beyond.md §6). A receiver recomputes it over the raw body and refuses a `t` older than five minutes.
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  const v1 = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

export interface DeliverWebhooksDeps {
  readonly webhooks: WebhookRepository;
  readonly deliveries: WebhookDeliveryRepository;
  readonly keyring: Keyring;
  readonly outbound: OutboundHttp;
  readonly clock: Clock;
  readonly audit?: Audit | undefined;
}

/** What one run did. */
export interface DeliveryRun {
  readonly attempted: number;
  readonly delivered: number;
}

/**
 * The webhook dispatcher: leases due deliveries, sends each signed through the outbound module (its policy checked
 * again at every attempt), and records every attempt. A 2xx delivers; anything else retries with backoff until the
 * event is a day old, when the delivery fails for good and its webhook is disabled. Delivery is at least once:
 * receivers deduplicate by the event's `id`.
 */
export class DeliverWebhooks {
  private stopped = false;

  constructor(private readonly deps: DeliverWebhooksDeps) {}

  /**
   * For a shutdown: runs under way start no further attempt, and later runs lease nothing. The deliveries a run had
   * leased and not attempted are tried again once their lease ends, by this process's next start or another one.
   */
  stop(): void {
    this.stopped = true;
  }

  async execute(): Promise<DeliveryRun> {
    if (this.stopped) return { attempted: 0, delivered: 0 };
    const now = this.deps.clock.now();
    const due = await this.deps.deliveries.leaseDue(now, new Date(now.getTime() + LEASE_MS), BATCH);
    let delivered = 0;
    // A pool, not groups: a receiver that hangs holds one worker until its timeout while the others go on.
    let next = 0;
    let attempted = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length && !this.stopped) {
        attempted++;
        if (await this.attempt(due[next++]!)) delivered++;
      }
    };
    // An attempt of a webhook that another attempt disables meanwhile finds its delivery failed when it records: the
    // store keeps the attempt and leaves the delivery failed (WebhookDeliveryRepository.recordAttempt).
    await Promise.all(Array.from({ length: Math.min(PARALLEL, due.length) }, worker));
    return { attempted, delivered };
  }

  /** One attempt at one delivery; true when it was delivered. */
  private async attempt(delivery: WebhookDelivery): Promise<boolean> {
    const webhook = await this.deps.webhooks.findById(delivery.tenantId, delivery.webhookId);
    const started = this.deps.clock.now();
    if (!webhook || webhook.status !== 'enabled') {
      await this.deps.deliveries.recordAttempt(delivery, { at: started, error: 'The webhook is disabled.', durationMs: 0 }, { status: 'failed' });
      return false;
    }
    const attempt = await this.send(webhook, delivery, started);
    if (attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300) {
      await this.deps.deliveries.recordAttempt(delivery, attempt, { status: 'delivered' });
      return true;
    }
    const failedAttempts = delivery.attempts.length + 1;
    const next = new Date(attempt.at.getTime() + attempt.durationMs + retryDelay(failedAttempts));
    if (next.getTime() - delivery.createdAt.getTime() >= GIVE_UP_AFTER_MS) {
      await this.deps.deliveries.recordAttempt(delivery, attempt, { status: 'failed' });
      await this.disable(webhook);
    } else {
      await this.deps.deliveries.recordAttempt(delivery, attempt, { status: 'pending', nextAttemptAt: next });
    }
    return false;
  }

  private async send(webhook: Webhook, delivery: WebhookDelivery, at: Date): Promise<DeliveryAttempt> {
    let secret: string;
    try {
      secret = (await this.deps.keyring.forTenant(webhook.tenantId)).openWebhookSecret(webhook.id, webhook.sealedSecret);
    } catch {
      // A secret that does not open (a damaged row, or one copied from another tenant or webhook) is a failed attempt
      // like any other: it backs off and gives up after a day, rather than failing every run and holding its batch.
      return { at, error: SECRET_UNREADABLE, durationMs: 0 };
    }
    const body = `{"event":${delivery.event},"delivered_at":${JSON.stringify(at.toISOString())}}`;
    const timestamp = Math.floor(at.getTime() / 1000);
    try {
      const response = await this.deps.outbound.send({
        method: 'POST',
        url: webhook.url,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'svc-webhooks/1',
          'svc-signature': signWebhook(secret, timestamp, body),
          'svc-event-id': delivery.eventId,
          'svc-event-type': delivery.eventType,
        },
        body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        // Only the status counts: a 2xx with a huge body is delivered, and nothing of it is buffered.
        discardBody: true,
      });
      return { at, statusCode: response.status, durationMs: this.deps.clock.now().getTime() - at.getTime() };
    } catch (error) {
      const reason = error instanceof OutboundError ? DESCRIPTIONS[error.kind] : 'The delivery failed.';
      return { at, error: reason, durationMs: this.deps.clock.now().getTime() - at.getTime() };
    }
  }

  /** A webhook failing for a day stops: disabled (recorded as svc's own update), its other pending deliveries failed. */
  private async disable(webhook: Webhook): Promise<void> {
    // Read again: the attempt took a while, and a change made meanwhile (name, URL, events) must not be written
    // over with the copy read before it; one made between this read and the write makes it read again.
    let settled = false;
    for (let attempt = 0; attempt < DISABLE_ATTEMPTS && !settled; attempt++) {
      const current = await this.deps.webhooks.findById(webhook.tenantId, webhook.id);
      // Deleted or already disabled: nothing to update.
      if (current?.status !== 'enabled') {
        settled = true;
        break;
      }
      const now = nextModification(this.deps.clock.now(), current);
      const disabled: Webhook = { ...current, status: 'disabled', modifiedBy: 'svc', modifiedAt: now };
      const effects = auditOf(this.deps).write(
        systemActor(webhook.tenantId),
        now,
        webhookFact(webhook.id, 'update', 'Webhook disabled: its deliveries failed for 24 hours'),
      );
      settled = await this.deps.webhooks.update(disabled, effects, current);
    }
    // Still enabled (changed under every attempt): its deliveries stay pending, and the next one failing for good
    // tries again.
    if (settled) await this.deps.deliveries.failPending(webhook.tenantId, webhook.id);
  }
}

const SECRET_UNREADABLE = "The webhook's signing secret could not be read.";

/** Fixed texts for attempts without an answer: never an address, a URL or a body. */
const DESCRIPTIONS: Readonly<Record<OutboundError['kind'], string>> = {
  refused: 'The outbound policy refused the destination.',
  timeout: 'The destination did not answer in time.',
  unreachable: 'The destination could not be reached.',
  response_too_large: "The destination's answer was too large.",
};
