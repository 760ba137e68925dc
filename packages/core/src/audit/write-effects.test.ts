import { AuditEffects, auditActor } from './audit-effects';
import { outboxEventText } from './write-effects';

describe('webhook messages', () => {
  const at = new Date('2026-03-04T05:06:07.089Z');
  const ids = { next: () => '0190aaaa-0000-7000-8000-000000000001' };

  it('render the delivered event: id, type, timestamp, tenant, trace id, and the data with its actor (no tenant or trace in it)', () => {
    const actor = auditActor({ kind: 'application', tenantId: 't-1', applicationId: 'app-1', traceId: 'trace-9' } as Parameters<typeof auditActor>[0]);
    const message = new AuditEffects(ids).message(actor, { type: 'token.created', data: { id: 'tok-1', metadata: { a: '"b"' } } }, at);
    expect(message).toMatchObject({ id: ids.next(), tenantId: 't-1', type: 'token.created', createdAt: at });
    expect(JSON.parse(outboxEventText(message))).toEqual({
      id: ids.next(),
      type: 'token.created',
      timestamp: '2026-03-04T05:06:07.089Z',
      tenant_id: 't-1',
      trace_id: 'trace-9',
      data: { id: 'tok-1', metadata: { a: '"b"' }, actor: { id: 'app-1', type: 'application' } },
    });
  });

  it('give a null trace id without one, and keep the actor of the change over a field of the same name in the data', () => {
    const message = new AuditEffects(ids).message({ tenantId: 't-1', id: 'svc', type: 'system' }, { type: 'token.expired', data: { id: 'tok-1', actor: 'forged' } }, at);
    const event = JSON.parse(outboxEventText(message)) as { trace_id: unknown; data: { actor: unknown } };
    expect(event.trace_id).toBeNull();
    expect(event.data.actor).toEqual({ id: 'svc', type: 'system' });
  });

  it('survive a structured clone (the SQLite writer thread renders what the request thread built)', () => {
    const message = new AuditEffects(ids).message({ tenantId: 't-1', id: 'app-1', type: 'application' }, { type: 'token.deleted', data: { id: 'tok-1' } }, at);
    expect(outboxEventText(structuredClone(message))).toBe(outboxEventText(message));
  });
});
