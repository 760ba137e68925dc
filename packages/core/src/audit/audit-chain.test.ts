import fc from 'fast-check';
import { chainAfter, CHAIN_START, verifyAuditChain } from './audit-chain';
import type { AuditEvent, ChainedAuditEvent } from './audit-event';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);

const event = (i: number): AuditEvent => ({
  id: `e-${i}`,
  tenantId: 't1',
  actorId: 'app-1',
  actorType: 'application',
  entityType: 'token',
  entityId: `tok-${i}`,
  operation: i % 2 ? 'reveal' : 'create',
  outcome: 'success',
  message: `Token tok-${i} ${i % 2 ? 'revealed' : 'created'}.`,
  traceId: `trace-${i}`,
  createdAt: new Date(1_700_000_000_000 + i),
});

const chain = (n: number): ChainedAuditEvent[] => chainAfter(KEY, CHAIN_START, Array.from({ length: n }, (_, i) => event(i)));

describe('the audit chain', () => {
  it('verifies an intact chain, and one continued from where a retention sweep left its anchor', () => {
    const all = chain(10);
    expect(verifyAuditChain(KEY, CHAIN_START, all)).toEqual({ ok: true, checked: 10, head: { chainSeq: 10, hash: all[9]!.hash } });
    const anchor = { chainSeq: all[3]!.chainSeq, hash: all[3]!.hash };
    expect(verifyAuditChain(KEY, anchor, all.slice(4))).toMatchObject({ ok: true, checked: 6 });
    const more = chainAfter(KEY, { chainSeq: 10, hash: all[9]!.hash }, [event(10), event(11)]);
    expect(verifyAuditChain(KEY, CHAIN_START, [...all, ...more])).toMatchObject({ ok: true, checked: 12 });
  });

  it('does not verify under another key', () => {
    expect(verifyAuditChain(OTHER_KEY, CHAIN_START, chain(3))).toMatchObject({ ok: false, eventId: 'e-0', problem: 'altered' });
  });

  it('names the first event altered, removed or reordered, whichever field and whichever event', () => {
    const fields: Array<(e: ChainedAuditEvent) => ChainedAuditEvent> = [
      (e) => ({ ...e, message: `${e.message} ` }),
      (e) => ({ ...e, actorId: 'someone-else' }),
      (e) => ({ ...e, outcome: 'denied' }),
      (e) => ({ ...e, entityId: undefined }),
      (e) => ({ ...e, createdAt: new Date(e.createdAt.getTime() + 1) }),
      (e) => ({ ...e, operation: 'read' }),
      (e) => ({ ...e, traceId: 'forged' }),
    ];
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.nat(), fc.nat(), fc.constantFrom('alter', 'remove', 'swap'), (n, at, f, how) => {
        const events = chain(n);
        const i = at % n;
        let tampered = [...events];
        let expected: { eventId: string; problem: string };
        if (how === 'alter') {
          tampered[i] = fields[f % fields.length]!(events[i]!);
          expected = { eventId: events[i]!.id, problem: 'altered' };
        } else if (how === 'remove') {
          if (i === n - 1) return; // The newest event removed leaves a shorter, intact chain: the head anchors that.
          tampered.splice(i, 1);
          expected = { eventId: events[i + 1]!.id, problem: 'removed' };
        } else {
          const j = i === n - 1 ? i - 1 : i;
          // Rows exchanged with their numbers rewritten to keep the sequence: the links no longer hold.
          tampered = [...events];
          tampered[j] = { ...events[j + 1]!, chainSeq: events[j]!.chainSeq };
          tampered[j + 1] = { ...events[j]!, chainSeq: events[j + 1]!.chainSeq };
          expected = { eventId: events[j + 1]!.id, problem: 'reordered' };
        }
        expect(verifyAuditChain(KEY, CHAIN_START, tampered)).toMatchObject({ ok: false, ...expected });
      }),
      { seed: 20261123, numRuns: 500 },
    );
  });

  it('refuses an event re-hashed by someone without the key, and a forged event appended', () => {
    const events = chain(4);
    const forged: ChainedAuditEvent = { ...events[2]!, message: 'nothing happened', hash: 'AAAA' };
    expect(verifyAuditChain(KEY, CHAIN_START, [events[0]!, events[1]!, forged, events[3]!])).toMatchObject({ ok: false, eventId: 'e-2', problem: 'altered' });
    const appended = chainAfter(OTHER_KEY, { chainSeq: 4, hash: events[3]!.hash }, [event(99)]);
    expect(verifyAuditChain(KEY, CHAIN_START, [...events, ...appended])).toMatchObject({ ok: false, eventId: 'e-99', problem: 'altered' });
  });
});

describe('events whose stored content cannot be hashed', () => {
  it('are reported as altered, not thrown', () => {
    const key = new Uint8Array(32).fill(3);
    const events = [0, 1].map((i) => ({
      id: `e${i}`,
      tenantId: 't',
      actorId: 'a',
      actorType: 'application' as const,
      entityType: 'token' as const,
      operation: 'read',
      outcome: 'success' as const,
      message: 'Token read',
      createdAt: new Date(1_767_225_600_000 + i),
    }));
    const chained = chainAfter(key, CHAIN_START, events);
    const broken = [chained[0]!, { ...chained[1]!, createdAt: new Date(Number.NaN) }];
    expect(verifyAuditChain(key, CHAIN_START, broken)).toEqual({ ok: false, checked: 1, eventId: 'e1', chainSeq: 2, problem: 'altered' });
  });
});
