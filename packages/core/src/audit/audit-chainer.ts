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
    for (const tenantId of await this.deps.auditLog.unchainedTenants(TENANTS_PER_RUN)) {
      const key = (await this.deps.keyring.forTenant(tenantId)).auditKey();
      for (;;) {
        const events = await this.deps.auditLog.unchained(tenantId, EVENTS_PER_CHAIN);
        if (events.length === 0) break;
        const head = await this.deps.auditLog.chainHead(tenantId);
        if (!(await this.deps.auditLog.chain(tenantId, head, chainAfter(key, head, events)))) break;
        placed += events.length;
        if (events.length < EVENTS_PER_CHAIN) break;
      }
    }
    return placed;
  }
}

/** Events chained later than this after their creation mean the chainer stalled or rows came from elsewhere. */
export const CHAIN_GRACE_MS = 60_000;

export type StreamVerdict =
  | { readonly tenantId: string; readonly ok: true; readonly checked: number; readonly anchor: ChainAnchor }
  | {
      readonly tenantId: string;
      readonly ok: false;
      readonly checked: number;
      readonly problem: ChainProblem | 'unchained';
      /** The first bad event; absent for `unchained` (then `count` says how many). */
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
    const anchor = await this.deps.auditLog.anchor(tenantId);
    let head = anchor;
    let checked = 0;
    for (;;) {
      const events = await this.deps.auditLog.chained(tenantId, head.chainSeq, PAGE);
      if (events.length === 0) break;
      const verdict = verifyAuditChain(key, head, events);
      if (!verdict.ok) {
        return { tenantId, ok: false, checked: checked + verdict.checked, problem: verdict.problem, eventId: verdict.eventId, chainSeq: verdict.chainSeq };
      }
      checked += verdict.checked;
      head = verdict.head;
      if (events.length < PAGE) break;
    }
    const late = await this.deps.auditLog.countUnchainedBefore(tenantId, new Date(this.deps.clock.now().getTime() - CHAIN_GRACE_MS));
    if (late > 0) return { tenantId, ok: false, checked, problem: 'unchained', count: late };
    return { tenantId, ok: true, checked, anchor };
  }
}
