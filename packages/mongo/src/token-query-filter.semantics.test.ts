import { Query } from 'mingo';
import { parseTokenQuery, type TokenQuery } from '@svc/core';
import { OTHER_SEARCH_TENANT, SEARCH_CASES, SEARCH_NOW, SEARCH_TENANT, searchCorpus } from '@svc/core/testing';
import { toTokenDocument, type TokenDocument } from './token-document';
import { tokenSearchFilter } from './token-query-filter';

/**
 * What the compiled filters select, evaluated by mingo, an independent implementation of MongoDB's query language
 * in JavaScript. This is not a MongoDB test (the contract suite against a server is): it checks, without a
 * server, that the filters mean what the search contract asks, on a copy of its corpus.
 */
const T1 = SEARCH_TENANT;
const T2 = OTHER_SEARCH_TENANT;
const NOW = SEARCH_NOW;
const corpus = searchCorpus;

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
  const cases: ReadonlyArray<readonly [string, readonly string[]]> = [
    ...SEARCH_CASES,
    ['', ['s1', 't5', 't4', 't3', 't2', 't1']],
    ['modified_at:[* TO *]', ['t5']],
  ];
  it.each(cases)('selects %p', (query, expected) => {
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
