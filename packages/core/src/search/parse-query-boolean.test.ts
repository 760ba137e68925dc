import { parseTokenQuery } from './parse-query';
import type { TokenQuery } from './token-query';

const type = (value: string): TokenQuery => ({ kind: 'term', field: 'type', value });
const not = (item: TokenQuery): TokenQuery => ({ kind: 'not', item });
const and = (...items: TokenQuery[]): TokenQuery => ({ kind: 'and', items });
const or = (...items: TokenQuery[]): TokenQuery => ({ kind: 'or', items });

describe('parseTokenQuery boolean logic', () => {
  it.each(['NOT type:card', '!type:card', '-type:card'])('reads %s as a negation', (query) => {
    expect(parseTokenQuery(query)).toEqual(not(type('card')));
  });

  it('groups with parentheses', () => {
    expect(parseTokenQuery('(type:card OR type:bank) AND container:/pci/*')).toEqual(
      and(or(type('card'), type('bank')), { kind: 'container', path: '/pci/', prefix: true }),
    );
  });

  it('ANDs terms written without an operator', () => {
    expect(parseTokenQuery('type:card container:/pci/ data:6789')).toEqual(
      and(type('card'), { kind: 'container', path: '/pci/', prefix: false }, { kind: 'data', value: '6789' }),
    );
  });

  it('reads AND NOT and OR NOT', () => {
    expect(parseTokenQuery('type:a AND NOT type:b')).toEqual(and(type('a'), not(type('b'))));
    expect(parseTokenQuery('type:a OR NOT type:b')).toEqual(or(type('a'), not(type('b'))));
  });

  it('reads a NOT after a term as AND NOT', () => {
    expect(parseTokenQuery('type:a NOT type:b')).toEqual(and(type('a'), not(type('b'))));
    expect(parseTokenQuery('type:a -type:b')).toEqual(and(type('a'), not(type('b'))));
  });

  it('binds AND tighter than OR, whichever comes first', () => {
    expect(parseTokenQuery('type:a OR type:b AND type:c')).toEqual(or(type('a'), and(type('b'), type('c'))));
    expect(parseTokenQuery('type:a AND type:b OR type:c')).toEqual(or(and(type('a'), type('b')), type('c')));
  });

  it('binds NOT to the next term only', () => {
    expect(parseTokenQuery('NOT type:a AND type:b')).toEqual(and(not(type('a')), type('b')));
    expect(parseTokenQuery('NOT type:a OR type:b')).toEqual(or(not(type('a')), type('b')));
  });

  it('negates a group with any of the three spellings', () => {
    const expected = and(type('a'), not(or(type('b'), type('c'))));
    expect(parseTokenQuery('type:a AND NOT (type:b OR type:c)')).toEqual(expected);
    expect(parseTokenQuery('type:a !(type:b OR type:c)')).toEqual(expected);
    expect(parseTokenQuery('type:a -(type:b OR type:c)')).toEqual(expected);
  });

  it('allows a query made only of negations', () => {
    expect(parseTokenQuery('-type:a -type:b')).toEqual(and(not(type('a')), not(type('b'))));
  });

  it('cancels out a double negation', () => {
    expect(parseTokenQuery('NOT NOT type:a')).toEqual(type('a'));
    expect(parseTokenQuery('NOT -type:a')).toEqual(type('a'));
    expect(parseTokenQuery('NOT (NOT type:a)')).toEqual(type('a'));
  });

  it('keeps every operator when operators are separated by several spaces', () => {
    expect(parseTokenQuery('type:a  AND   NOT   type:b')).toEqual(and(type('a'), not(type('b'))));
  });

  it('flattens nested ANDs and ORs', () => {
    expect(parseTokenQuery('(type:a AND type:b) AND (type:c type:d)')).toEqual(
      and(type('a'), type('b'), type('c'), type('d')),
    );
    expect(parseTokenQuery('type:a OR (type:b OR (type:c))')).toEqual(or(type('a'), type('b'), type('c')));
  });

  it('keeps a group in the middle of a chain', () => {
    expect(parseTokenQuery('type:a AND (type:b OR type:c) type:d')).toEqual(
      and(type('a'), or(type('b'), type('c')), type('d')),
    );
  });

  it('ignores a + prefix, since terms are ANDed anyway', () => {
    expect(parseTokenQuery('+type:a +type:b')).toEqual(and(type('a'), type('b')));
  });

  it('reads parentheses without surrounding spaces', () => {
    expect(parseTokenQuery('(type:a)(type:b)')).toEqual(and(type('a'), type('b')));
  });

  it('reads field names that look like operators as field names', () => {
    expect(() => parseTokenQuery('NOT:x')).toThrow("Unknown field 'NOT' at position 0");
  });

  it('parses the deepest nesting the length limit allows', () => {
    const depth = 997;
    expect(parseTokenQuery(`${'('.repeat(depth)}type:a${')'.repeat(depth)}`)).toEqual(type('a'));
    expect(parseTokenQuery(`${'-('.repeat(498)}type:a${')'.repeat(498)}`)).toEqual(type('a'));
  });
});
