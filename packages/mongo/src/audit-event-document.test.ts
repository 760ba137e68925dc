import { BSON } from 'mongodb';
import type { AuditEvent, ChainedAuditEvent } from '@svc/core';
import {
  type AuditEventDocument,
  chainPlace,
  fromAuditEventDocument,
  fromChainedAuditEventDocument,
  fromChainPointDocument,
  toAuditEventDocument,
} from './audit-event-document';

/** Through the driver's BSON codec and back, refusing field names MongoDB would not store. */
const viaBson = <T extends object>(doc: T): T => BSON.deserialize(BSON.serialize(doc, { checkKeys: true })) as T;

describe('audit event documents', () => {
  const full: AuditEvent = {
    id: '0190f0a0-0000-7000-8000-000000000001',
    tenantId: 't1',
    actorId: 'app-1',
    actorType: 'application',
    entityType: 'token',
    entityId: 'tok:1',
    operation: 'read',
    outcome: 'success',
    message: 'Token read',
    traceId: 'trace-1',
    createdAt: new Date('2026-01-01T00:00:00.123Z'),
  };
  const bare: AuditEvent = {
    id: '0190f0a0-0000-7000-8000-000000000002',
    tenantId: 'system',
    actorId: 'unknown',
    actorType: 'system',
    entityType: 'application',
    operation: 'authenticate',
    outcome: 'denied',
    message: 'Authentication refused',
    createdAt: new Date('2026-01-01T00:00:01.000Z'),
  };

  it('keeps every field in snake_case, the date as a BSON date, and no chain place until the chainer gives one', () => {
    expect(toAuditEventDocument(full)).toEqual({
      tenant_id: 't1',
      id: full.id,
      actor_id: 'app-1',
      actor_type: 'application',
      entity_type: 'token',
      entity_id: 'tok:1',
      operation: 'read',
      outcome: 'success',
      message: 'Token read',
      trace_id: 'trace-1',
      created_at: full.createdAt,
    });
  });

  it('round-trips every field, through the driver\'s BSON codec too', () => {
    expect(fromAuditEventDocument(toAuditEventDocument(full))).toEqual(full);
    const back = fromAuditEventDocument(viaBson(toAuditEventDocument(full)));
    expect(back).toEqual(full);
    expect(back.createdAt).toBeInstanceOf(Date);
  });

  it('leaves absent optional fields out of the document, and out of the event read back', () => {
    const doc = toAuditEventDocument(bare);
    for (const field of ['entity_id', 'trace_id', 'chain_seq', 'prev_hash', 'hash', '_id']) expect(doc).not.toHaveProperty(field);
    const back = fromAuditEventDocument(viaBson(doc));
    expect(back).toEqual(bare);
    expect(Object.keys(back)).not.toContain('entityId');
    expect(Object.keys(back)).not.toContain('traceId');
  });

  it('reads null optional fields (as another writer may leave them) as absent', () => {
    const back = fromAuditEventDocument({ ...toAuditEventDocument(bare), entity_id: null, trace_id: null });
    expect(Object.keys(back)).not.toContain('entityId');
    expect(Object.keys(back)).not.toContain('traceId');
  });

  it('lists an event without its place, and reads a chained one with its place exactly as stored', () => {
    const chained: ChainedAuditEvent = { ...full, chainSeq: 7, prevHash: 'prev', hash: 'h7' };
    const doc: AuditEventDocument = { ...toAuditEventDocument(full), ...chainPlace(chained) };
    expect(doc).toMatchObject({ chain_seq: 7, prev_hash: 'prev', hash: 'h7' });
    expect(fromAuditEventDocument(doc)).toEqual(full);
    expect(fromChainedAuditEventDocument(viaBson(doc))).toEqual(chained);
    // A tampered document is read as it is: verify, not the mapping, must notice.
    expect(fromChainedAuditEventDocument({ ...doc, message: 'rewritten' }).message).toBe('rewritten');
  });

  it('reads a head or anchor document as a chain anchor', () => {
    expect(fromChainPointDocument({ _id: 't1', chain_seq: 3, hash: 'h3' })).toEqual({ chainSeq: 3, hash: 'h3' });
  });
});
