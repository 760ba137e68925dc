import { parse } from 'lucene';
import { toLuceneSyntax } from './lucene-syntax';
import { lexQuery } from './query-lexer';

const canonical = (query: string) => toLuceneSyntax(query, lexQuery(query));

describe('toLuceneSyntax', () => {
  it('quotes values so lucene keeps slashes and colons literal', () => {
    const query = 'container:/pci/high/ created_at:2024-01-01T00:00:00Z';
    expect(canonical(query).text).toBe('f0:"/pci/high/" AND f1:"2024-01-01T00:00:00Z"');
  });

  it('spells every negation NOT and separates tokens by one space', () => {
    expect(canonical('-type:a  !type:b OR   NOT (type:c)').text).toBe(
      'NOT f0:"a" AND NOT f1:"b" OR NOT ( f2:"c" )',
    );
  });

  it('writes ranges as lucene reads them', () => {
    expect(canonical('created_at:{ 2024-01-01  TO * ]').text).toBe('f0:{2024-01-01 TO *]');
  });

  it('escapes quotes and backslashes so lucene returns the same value', () => {
    const syntax = canonical('id:"a\\"b\\\\c"');
    expect(syntax.text).toBe('f0:"a\\"b\\\\c"');
    expect(parse(syntax.text)).toMatchObject({ left: { field: 'f0', term: 'a\\"b\\\\c', quoted: true } });
  });

  it('lists operands in the order of their source', () => {
    const syntax = canonical('type:a OR (id:b AND data:c) -fingerprint:d');
    expect(syntax.operands.map((operand) => operand.field)).toEqual(['type', 'id', 'data', 'fingerprint']);
  });

  it('maps offsets of the canonical text back to the query', () => {
    const syntax = canonical('type:a    -id:b');
    expect(syntax.text).toBe('f0:"a" AND NOT f1:"b"');
    expect(syntax.sourcePosition(0)).toBe(0);
    expect(syntax.sourcePosition(9)).toBe(10);
    expect(syntax.sourcePosition(17)).toBe(11);
    expect(syntax.sourcePosition(99)).toBe(15);
  });
});
