import { Query } from 'mingo';
import { parseTokenQuery, type StoredToken, type TokenQuery } from '@svc/core';
import { aStoredToken } from '@svc/core/testing';
import { toTokenDocument, type TokenDocument } from './token-document';
import { tokenSearchFilter } from './token-query-filter';

/**
 * What the compiled filters select, evaluated by mingo, an independent implementation of MongoDB's query language
 * in JavaScript. This is not a MongoDB test (the contract suite against a server is): it checks, without a
 * server, that the filters mean what the search contract asks, on a copy of its corpus.
 */
const T1 = '11111111-0000-4000-8000-000000000001';
const T2 = '22222222-0000-4000-8000-000000000002';
const NOW = new Date('2026-06-01T00:00:00.000Z');
const day = (d: number): Date => new Date(Date.UTC(2026, 0, d));

function corpus(): StoredToken[] {
  const t = (id: string, d: number, patch: Partial<StoredToken>): StoredToken =>
    aStoredToken().inTenant(T1).with({ id, createdAt: day(d), ...patch }).build();
  return [
    t('t1', 1, { type: 'card_number', containers: ['/pci/high/'], fingerprint: 'fpA', metadata: { Customer: 'ABC 123' } }),
    t('t2', 2, { type: 'card_number', containers: ['/pci/'], fingerprint: 'fpA', metadata: { customer: 'abc 123', plan: 'Gold' } }),
    t('t3', 3, { type: 'social_security_number', containers: ['/pii/high/'], indexHashes: ['h-ssn', 'h-last4'] }),
    t('t4', 4, { type: 'social_security_number', containers: ['/pii/high/'], indexHashes: ['h-other', 'h-last4'], createdBy: 'app-2' }),
    t('t5', 5, { type: 'token', containers: ['/pci/low/'], modifiedAt: day(10), modifiedBy: 'app-3', metadata: { plan: 'silver' } }),
    t('t6', 6, { type: 'token', containers: ['/pcix/'], expiresAt: day(1) }),
    t('s1', 7, { type: 'token', containers: ['/general/high/'] }),
    aStoredToken().inTenant(T2).with({ id: 'x1', createdAt: day(8), type: 'card_number', containers: ['/pci/high/'], fingerprint: 'fpA', indexHashes: ['h-ssn'] }).build(),
  ];
}

const docs: TokenDocument[] = corpus().map((token) => toTokenDocument(token, { dedupClaim: false }));

function ids(query: TokenQuery | string, tenant = T1): string[] {
  const filter = tokenSearchFilter(tenant, typeof query === 'string' ? parseTokenQuery(query) : query, NOW);
  const matcher = new Query<TokenDocument>(filter, {});
  return docs
    .filter((doc) => matcher.test(doc))
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1))
    .map((doc) => doc.id);
}

describe('compiled filters (evaluated by mingo, not by MongoDB)', () => {
  it.each([
    ['', ['s1', 't5', 't4', 't3', 't2', 't1']],
    ['id:t3', ['t3']],
    ['type:card_number', ['t2', 't1']],
    ['fingerprint:fpA', ['t2', 't1']],
    ['created_by:app-2', ['t4']],
    ['modified_by:app-3', ['t5']],
    ['metadata.customer:"ABC 123"', ['t2', 't1']],
    ['metadata.plan:GOLD', ['t2']],
    ['metadata.customer:abc', []],
    ['container:/pci/high/', ['t1']],
    ['container:"/pci/"', ['t2']],
    ['container:/pci/*', ['t5', 't2', 't1']],
    ['created_at:[2026-01-02 TO 2026-01-04]', ['t4', 't3', 't2']],
    ['created_at:{2026-01-02T00:00:00Z TO 2026-01-04T00:00:00Z}', ['t3']],
    ['created_at:[2026-01-05T00:00:00Z TO *]', ['s1', 't5']],
    ['modified_at:[2026-01-01 TO *]', ['t5']],
    ['modified_at:[* TO *]', ['t5']],
    ['NOT modified_at:[2026-01-01 TO *]', ['s1', 't4', 't3', 't2', 't1']],
    ['type:card_number OR type:token', ['s1', 't5', 't2', 't1']],
    ['!type:card_number AND !type:token', ['t4', 't3']],
    ['-container:/pci/* -container:/pii/*', ['s1']],
    ['(type:token OR type:card_number) AND NOT container:/pci/*', ['s1']],
    ['NOT modified_by:app-3', ['s1', 't4', 't3', 't2', 't1']],
  ])('selects %p', (query, expected) => {
    expect(ids(query === '' ? { kind: 'all' } : query)).toEqual(expected);
  });

  it('matches blinded data terms and id prefixes', () => {
    expect(ids({ kind: 'data', value: 'h-last4' })).toEqual(['t4', 't3']);
    expect(ids({ kind: 'id_prefix', value: 's' })).toEqual(['s1']);
  });

  it('leaves out expired tokens and other tenants\' tokens', () => {
    expect(ids('container:/pcix/')).toEqual([]);
    expect(ids({ kind: 'data', value: 'h-ssn' }, T2)).toEqual(['x1']);
  });
});
