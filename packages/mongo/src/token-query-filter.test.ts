import { parseTokenQuery, type TokenQuery } from '@svc/core';
import { compileTokenQuery, prefixRange, tokenSearchFilter } from './token-query-filter';

const T1 = '11111111-0000-4000-8000-000000000001';
const NOW = new Date('2026-06-01T00:00:00.000Z');
const MAX = '\u{10FFFF}';
const utc = (iso: string): Date => new Date(iso);
const pair = (key: string, value: string): string => `${JSON.stringify(key)}\u0000${JSON.stringify(value)}`;

describe('compileTokenQuery: the MongoDB filter of each query form', () => {
  it.each<[string, TokenQuery, object]>([
    ['all', { kind: 'all' }, {}],
    ['an id term', { kind: 'term', field: 'id', value: 't3' }, { id: 't3' }],
    ['a type term', { kind: 'term', field: 'type', value: 'card_number' }, { type: 'card_number' }],
    ['a fingerprint term', { kind: 'term', field: 'fingerprint', value: 'fpA' }, { fingerprint: 'fpA' }],
    ['a created_by term', { kind: 'term', field: 'created_by', value: 'app-2' }, { created_by: 'app-2' }],
    ['a modified_by term', { kind: 'term', field: 'modified_by', value: 'app-3' }, { modified_by: 'app-3' }],
    ['an id prefix', { kind: 'id_prefix', value: 'tok_' }, { id: { $gte: 'tok_', $lt: `tok_${MAX}` } }],
    ['a blinded data term', { kind: 'data', value: 'h-ssn' }, { index_hashes: 'h-ssn' }],
    ['a metadata term', { kind: 'metadata', key: 'customer', value: 'abc 123' }, { metadata_pairs: pair('customer', 'abc 123') }],
    ['an exact container', { kind: 'container', path: '/pci/high/', prefix: false }, { container: '/pci/high/' }],
    ['a container prefix', { kind: 'container', path: '/pci/', prefix: true }, { container: { $gte: '/pci/', $lt: `/pci/${MAX}` } }],
  ])('%s', (_name, query, expected) => {
    expect(compileTokenQuery(query)).toEqual(expected);
  });

  it('compiles each bound of a date range to its comparison operator', () => {
    const range = (bounds: object): TokenQuery => ({ kind: 'range', field: 'created_at', ...bounds });
    const a = utc('2026-01-02T00:00:00.000Z');
    const b = utc('2026-01-04T00:00:00.000Z');
    expect(compileTokenQuery(range({ gte: a, lte: b }))).toEqual({ created_at: { $gte: a, $lte: b } });
    expect(compileTokenQuery(range({ gt: a, lt: b }))).toEqual({ created_at: { $gt: a, $lt: b } });
    expect(compileTokenQuery(range({ gte: a }))).toEqual({ created_at: { $gte: a } });
    expect(compileTokenQuery(range({ lt: b }))).toEqual({ created_at: { $lt: b } });
  });

  it('keeps a range with no bound to the tokens that have the field', () => {
    expect(compileTokenQuery({ kind: 'range', field: 'modified_at' })).toEqual({ modified_at: { $ne: null } });
  });

  it('compiles and, or and not to $and, $or and $nor, nesting as the query does', () => {
    const query: TokenQuery = {
      kind: 'and',
      items: [
        { kind: 'or', items: [{ kind: 'term', field: 'type', value: 'token' }, { kind: 'data', value: 'h' }] },
        { kind: 'not', item: { kind: 'container', path: '/pci/', prefix: true } },
      ],
    };
    expect(compileTokenQuery(query)).toEqual({
      $and: [{ $or: [{ type: 'token' }, { index_hashes: 'h' }] }, { $nor: [{ container: { $gte: '/pci/', $lt: `/pci/${MAX}` } }] }],
    });
  });

  it('compiles parsed queries, dates and metadata included', () => {
    expect(compileTokenQuery(parseTokenQuery('created_at:[2026-01-02 TO 2026-01-04]'))).toEqual({
      created_at: { $gte: utc('2026-01-02T00:00:00.000Z'), $lt: utc('2026-01-05T00:00:00.000Z') },
    });
    expect(compileTokenQuery(parseTokenQuery('metadata.Plan:GOLD -type:token'))).toEqual({
      $and: [{ metadata_pairs: pair('plan', 'gold') }, { $nor: [{ type: 'token' }] }],
    });
  });

  it('never turns a value into an operator: values are compared as strings', () => {
    expect(compileTokenQuery({ kind: 'term', field: 'id', value: '$where' })).toEqual({ id: '$where' });
    expect(compileTokenQuery({ kind: 'metadata', key: '$gt', value: '{"$ne":1}' })).toEqual({ metadata_pairs: pair('$gt', '{"$ne":1}') });
  });
});

describe('tokenSearchFilter', () => {
  it('scopes to the tenant and to live tokens, and ANDs the query', () => {
    expect(tokenSearchFilter(T1, { kind: 'term', field: 'type', value: 'card' }, NOW)).toEqual({
      tenant_id: T1,
      $or: [{ expires_at: null }, { expires_at: { $gt: NOW } }],
      $and: [{ type: 'card' }],
    });
  });

  it('adds nothing for an empty query', () => {
    expect(tokenSearchFilter(T1, { kind: 'all' }, NOW)).toEqual({ tenant_id: T1, $or: [{ expires_at: null }, { expires_at: { $gt: NOW } }] });
  });

  it('keeps a query\'s own $or apart from the expiry $or', () => {
    const query: TokenQuery = { kind: 'or', items: [{ kind: 'data', value: 'a' }, { kind: 'data', value: 'b' }] };
    expect(tokenSearchFilter(T1, query, NOW)).toEqual({
      tenant_id: T1,
      $or: [{ expires_at: null }, { expires_at: { $gt: NOW } }],
      $and: [{ $or: [{ index_hashes: 'a' }, { index_hashes: 'b' }] }],
    });
  });
});

describe('prefixRange', () => {
  it('bounds every string that starts with the prefix, and no other', () => {
    const { $gte, $lt } = prefixRange('/pci/');
    const inRange = (s: string): boolean => Buffer.compare(Buffer.from(s), Buffer.from($gte)) >= 0 && Buffer.compare(Buffer.from(s), Buffer.from($lt)) < 0;
    expect(['/pci/', '/pci/high/', '/pci/\u00ff/', '/pci/\u{1F600}/'].every(inRange)).toBe(true);
    expect(['/pcix/', '/pc/', '/pci', '/pii/'].some(inRange)).toBe(false);
  });
});
