import { find } from 'mingo';
import type { AuditEvent, AuditLogFilter } from '@svc/core';
import { anAuditEvent } from '@svc/core/testing';
import { type AuditEventDocument, toAuditEventDocument } from './audit-event-document';
import { AUDIT_NEWEST_FIRST, auditLogQuery, CHAINED, prunablePrefix, UNCHAINED } from './mongo-audit-log.repository';

/** The audit log's filters, evaluated by mingo (MongoDB's query language in JavaScript), not by MongoDB. */
/** Where `anAuditEvent` counts `at` from. */
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const event = (patch: Partial<AuditEvent> & { at: number }): AuditEventDocument => toAuditEventDocument(anAuditEvent({ tenantId: 't1', ...patch }));

type Doc = Record<string, unknown>;
const select = (docs: AuditEventDocument[], filter: object): string[] =>
  find(docs as unknown as Doc[], filter as Doc)
    .sort(AUDIT_NEWEST_FIRST as Doc)
    .all()
    .map((d) => String(d.id));

describe('the audit log filters (evaluated by mingo, not by MongoDB)', () => {
  const a = event({ at: 10, entityType: 'application', entityId: 'app-x' });
  const b = event({ at: 20, entityType: 'token', entityId: 'app-x' });
  const c = event({ at: 30, entityType: 'application', entityId: 'app-y' });
  const other = event({ at: 20, tenantId: 't2', entityId: 'app-x' });
  const all = [a, b, c, other];
  const ids = (filter: AuditLogFilter) => select(all, auditLogQuery('t1', filter));

  it('selects one tenant\'s events, newest first, by entity type and id and a half-open date range', () => {
    expect(ids({})).toEqual([c.id, b.id, a.id]);
    expect(ids({ entityType: 'application' })).toEqual([c.id, a.id]);
    expect(ids({ entityId: 'app-x' })).toEqual([b.id, a.id]);
    expect(ids({ entityType: 'application', entityId: 'app-x' })).toEqual([a.id]);
    expect(ids({ startDate: new Date(BASE + 20) })).toEqual([c.id, b.id]);
    expect(ids({ endDate: new Date(BASE + 20) })).toEqual([a.id]);
    expect(ids({ startDate: new Date(BASE + 10), endDate: new Date(BASE + 30) })).toEqual([b.id, a.id]);
  });

  it('orders events of one millisecond by id, descending', () => {
    const same = [event({ at: 50 }), event({ at: 50 }), event({ at: 50 })];
    expect(select([...same].reverse(), auditLogQuery('t1', {}))).toEqual(same.map((e) => e.id).reverse());
  });

  it('tells unchained events (no place, or a null one) from chained ones', () => {
    const unchained = event({ at: 1 });
    const nulled = { ...event({ at: 2 }), chain_seq: null, prev_hash: null, hash: null };
    const chained = { ...event({ at: 3 }), chain_seq: 1, prev_hash: '', hash: 'h1' };
    expect(select([unchained, nulled, chained], UNCHAINED).sort()).toEqual([unchained.id, nulled.id].sort());
    expect(select([unchained, nulled, chained], CHAINED)).toEqual([chained.id]);
  });
});

describe('what prune may remove', () => {
  const at = (ms: number) => ({ created_at: new Date(BASE + ms) });

  it('is the chain\'s leading events created before the date, up to the first that is not', () => {
    const before = new Date(BASE + 50);
    expect(prunablePrefix([at(1), at(2), at(100), at(3)], before)).toEqual([at(1), at(2)]);
    expect(prunablePrefix([at(1), at(2)], before)).toEqual([at(1), at(2)]);
    expect(prunablePrefix([at(50), at(1)], before)).toEqual([]);
    expect(prunablePrefix([], before)).toEqual([]);
  });
});
