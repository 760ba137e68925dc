import { FixedClock } from '../../testing/fixed-clock';
import { createMemoryStoreForCore } from '../../testing/memory-data-keys';
import { Keyring } from '../crypto/keyring';
import { CryptoRandomSource } from '../shared/random';
import { type ChainAnchor, CHAIN_START, chainAfter } from './audit-chain';
import { VerifyAuditLog } from './audit-chainer';
import type { AuditEvent, ChainedAuditEvent } from './audit-event';
import type { AuditLogRepository } from './audit-log';

const T = 'tenant-1';
const clock = new FixedClock();

const event = (i: number): AuditEvent => ({
  id: `e-${i}`,
  tenantId: T,
  actorId: 'app-1',
  actorType: 'application',
  entityType: 'token',
  entityId: `tok-${i}`,
  operation: 'read',
  outcome: 'success',
  message: 'Token read',
  createdAt: new Date(clock.now().getTime() - 1_000_000 + i),
});

/** A log as a store holds it: `rows` are the events left, `head` the head it recorded when it last chained. */
function log(rows: ChainedAuditEvent[], head: ChainAnchor, onWalk?: () => void): AuditLogRepository {
  return {
    chainHead: async () => head,
    anchor: async () => CHAIN_START,
    chained: async (_t: string, after: number, limit: number) => {
      onWalk?.();
      return rows.filter((e) => e.chainSeq > after).slice(0, limit);
    },
    countUnchainedBefore: async () => 0,
    streams: async () => [T],
  } as unknown as AuditLogRepository;
}

describe('VerifyAuditLog', () => {
  const keyring = new Keyring({ dataKeys: createMemoryStoreForCore(), random: new CryptoRandomSource(), clock, masterKey: new Uint8Array(32).fill(7) });
  const chainOf = async (n: number) => chainAfter((await keyring.forTenant(T)).auditKey(), CHAIN_START, Array.from({ length: n }, (_, i) => event(i)));
  const headOf = (e: ChainedAuditEvent): ChainAnchor => ({ chainSeq: e.chainSeq, hash: e.hash });

  it('passes an intact chain that reaches its recorded head', async () => {
    const all = await chainOf(5);
    expect(await new VerifyAuditLog({ auditLog: log(all, headOf(all[4]!)), keyring, clock }).execute(T)).toEqual([
      { tenantId: T, ok: true, checked: 5, anchor: CHAIN_START, head: headOf(all[4]!) },
    ]);
  });

  it('names a chain whose newest events were removed: it ends before the head the store recorded', async () => {
    const all = await chainOf(5);
    const [verdict] = await new VerifyAuditLog({ auditLog: log(all.slice(0, 3), headOf(all[4]!)), keyring, clock }).execute(T);
    expect(verdict).toEqual({ tenantId: T, ok: false, checked: 3, problem: 'truncated', chainSeq: 4 });
    // Every event removed, the head left: the same.
    const [none] = await new VerifyAuditLog({ auditLog: log([], headOf(all[4]!)), keyring, clock }).execute(T);
    expect(none).toEqual({ tenantId: T, ok: false, checked: 0, problem: 'truncated', chainSeq: 1 });
  });

  it('names a chain that reaches its head number with another event than the head names', async () => {
    const all = await chainOf(5);
    const [verdict] = await new VerifyAuditLog({ auditLog: log(all.slice(0, 4), { chainSeq: 4, hash: all[4]!.hash }), keyring, clock }).execute(T);
    expect(verdict).toMatchObject({ ok: false, problem: 'truncated', chainSeq: 4 });
  });

  it('is not fooled by the chainer moving the head while it walks (the head is read first)', async () => {
    const all = await chainOf(5);
    const rows = all.slice(0, 3);
    let head = headOf(all[2]!);
    const auditLog = log(rows, head, () => {
      // The chainer places two more events and moves the head, after verify read it.
      if (rows.length === 3) rows.push(all[3]!, all[4]!);
      head = headOf(all[4]!);
    });
    const [verdict] = await new VerifyAuditLog({ auditLog, keyring, clock }).execute(T);
    expect(verdict).toMatchObject({ ok: true, checked: 5 });
  });
});
