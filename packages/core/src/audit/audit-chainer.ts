import type { Keyring } from '../crypto/keyring';
import type { Clock } from '../shared/clock';
import { type ChainAnchor, chainAfter, verifyAuditChain, type ChainProblem } from './audit-chain';
import type { AuditLogRepository } from './audit-log';

const TENANTS_PER_RUN = 100;
const EVENTS_PER_CHAIN = 500;

/**
 * Gives committed events their places in their tenant's chain (ADR 4), after commit, so no write waits on the chain
 * head. Run it every 100 ms; two chainers (two processes on one MongoDB) never both place an event: the store's
 * compare-and-set on the head lets one win, and the other tries again on its next run.
 */
export class ChainAuditEvents {
  constructor(private readonly deps: { readonly auditLog: AuditLogRepository; readonly keyring: Keyring }) {}

  /** Chains what is waiting; returns how many events got a place. */
  async execute(): Promise<number> {
    let placed = 0;
    let failure: unknown;
    for (const tenantId of await this.deps.auditLog.unchainedTenants(TENANTS_PER_RUN)) {
      // One tenant whose events cannot be chained (a row edited by hand to an invalid time) must not hold up the
      // others: it stays unchained, which `svc audit verify` reports, and the run's error says so.
      try {
        placed += await this.chainTenant(tenantId);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
    return placed;
  }

  private async chainTenant(tenantId: string): Promise<number> {
    let placed = 0;
    const key = (await this.deps.keyring.forTenant(tenantId)).auditKey();
    for (;;) {
      const count = await this.deps.auditLog.chainPending(tenantId, key, EVENTS_PER_CHAIN);
      placed += count;
      if (count < EVENTS_PER_CHAIN) break;
    }
    return placed;
  }
}

/**
 * `AuditLogRepository.chainPending` through the port's other methods: read the unchained events and the head, hash,
 * then compare-and-set. For stores whose `chain` is already atomic against the head (memory, MongoDB).
 */
export async function chainPendingThrough(log: AuditLogRepository, tenantId: string, key: Uint8Array, limit: number): Promise<number> {
  const events = await log.unchained(tenantId, limit);
  if (events.length === 0) return 0;
  const head = await log.chainHead(tenantId);
  return (await log.chain(tenantId, head, chainAfter(key, head, events))) ? events.length : 0;
}

/** Events chained later than this after their creation mean the chainer stalled or rows came from elsewhere. */
export const CHAIN_GRACE_MS = 60_000;

export type StreamVerdict =
  | {
      readonly tenantId: string;
      readonly ok: true;
      readonly checked: number;
      readonly anchor: ChainAnchor;
      /**
       * The last event verified. Record it outside the store: a later verify whose chain does not pass through it shows
       * a chain cut back (newest events removed along with the store's own record of its head), which no check inside
       * the store can see.
       */
      readonly head: ChainAnchor;
    }
  | {
      readonly tenantId: string;
      readonly ok: false;
      readonly checked: number;
      /** `truncated`: the chain ends before the head the store recorded when it last chained (`chainSeq` is the first missing). */
      readonly problem: ChainProblem | 'unchained' | 'truncated';
      /** The first bad event; absent for `unchained` (then `count` says how many) and `truncated`. */
      readonly eventId?: string;
      readonly chainSeq?: number;
      readonly count?: number;
    };

const PAGE = 1_000;

/**
 * `svc audit verify`: walks each tenant's chain from its anchor and names the first event altered, removed or
 * reordered; events still unchained past the grace period are reported too.
 */
export class VerifyAuditLog {
  constructor(private readonly deps: { readonly auditLog: AuditLogRepository; readonly keyring: Keyring; readonly clock: Clock }) {}

  async execute(tenantId?: string): Promise<StreamVerdict[]> {
    const streams = tenantId !== undefined ? [tenantId] : (await this.deps.auditLog.streams()).sort();
    const verdicts: StreamVerdict[] = [];
    for (const stream of streams) verdicts.push(await this.verify(stream));
    return verdicts;
  }

  private async verify(tenantId: string): Promise<StreamVerdict> {
    const key = (await this.deps.keyring.forTenant(tenantId)).auditKey();
    // The head the store recorded, read before the walk: the chainer may move it meanwhile, only forwards.
    const recorded = await this.deps.auditLog.chainHead(tenantId);
    const anchor = await this.deps.auditLog.anchor(tenantId);
    let head = anchor;
    // A head at or behind the anchor was pruned past (a sweep between the two reads): nothing left to reach.
    let reached = recorded.chainSeq < anchor.chainSeq || (recorded.chainSeq === anchor.chainSeq && recorded.hash === anchor.hash);
    let checked = 0;
    for (;;) {
      const events = await this.deps.auditLog.chained(tenantId, head.chainSeq, PAGE);
      if (events.length === 0) break;
      const verdict = verifyAuditChain(key, head, events);
      if (!verdict.ok) {
        return { tenantId, ok: false, checked: checked + verdict.checked, problem: verdict.problem, eventId: verdict.eventId, chainSeq: verdict.chainSeq };
      }
      const atRecorded = events.find((e) => e.chainSeq === recorded.chainSeq);
      if (atRecorded && atRecorded.hash !== recorded.hash) {
        return { tenantId, ok: false, checked: checked + verdict.checked, problem: 'truncated', chainSeq: recorded.chainSeq };
      }
      if (atRecorded) reached = true;
      checked += verdict.checked;
      head = verdict.head;
      if (events.length < PAGE) break;
    }
    // Newest events removed: the walk ends before the head recorded when they were chained.
    if (!reached) return { tenantId, ok: false, checked, problem: 'truncated', chainSeq: head.chainSeq + 1 };
    const late = await this.deps.auditLog.countUnchainedBefore(tenantId, new Date(this.deps.clock.now().getTime() - CHAIN_GRACE_MS));
    if (late > 0) return { tenantId, ok: false, checked, problem: 'unchained', count: late };
    return { tenantId, ok: true, checked, anchor, head };
  }
}
