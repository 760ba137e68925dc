import { parseTokenQuery } from './parse-query';

const utc = (iso: string) => new Date(iso);

describe('parseTokenQuery', () => {
  it.each([null, undefined, '', '   \n\t'])('reads %p as a query for all tokens', (query) => {
    expect(parseTokenQuery(query)).toEqual({ kind: 'all' });
  });

  describe('terms', () => {
    it.each([
      ['id:6a1b6f5c-7f2e-4c3b-9b1d-0e8c2a6d4f10', 'id', '6a1b6f5c-7f2e-4c3b-9b1d-0e8c2a6d4f10'],
      ['type:card_number', 'type', 'card_number'],
      ['fingerprint:8x3VnLwq5MRxCi1kz5xnpy9vGkZ3HtAZRcAxbN9wV7ZQ', 'fingerprint', '8x3VnLwq5MRxCi1kz5xnpy9vGkZ3HtAZRcAxbN9wV7ZQ'],
      ['created_by:0b6a8e0c-1d2e-4f3a-8b9c-7d6e5f4a3b2c', 'created_by', '0b6a8e0c-1d2e-4f3a-8b9c-7d6e5f4a3b2c'],
      ['modified_by:0b6a8e0c-1d2e-4f3a-8b9c-7d6e5f4a3b2c', 'modified_by', '0b6a8e0c-1d2e-4f3a-8b9c-7d6e5f4a3b2c'],
    ])('reads %s as an exact, case-sensitive term', (query, field, value) => {
      expect(parseTokenQuery(query)).toEqual({ kind: 'term', field, value });
    });

    it('keeps hyphens inside a data value (lucene only treats a leading - as an operator)', () => {
      expect(parseTokenQuery('data:123-45-6789')).toEqual({ kind: 'data', value: '123-45-6789' });
    });

    it('reads a last-4 data search and lower-cases data values', () => {
      expect(parseTokenQuery('data:6789')).toEqual({ kind: 'data', value: '6789' });
      expect(parseTokenQuery('data:AbC')).toEqual({ kind: 'data', value: 'abc' });
    });

    it('reads a leading - inside a value as part of the value, not as NOT', () => {
      expect(parseTokenQuery('data:-123')).toEqual({ kind: 'data', value: '-123' });
    });

    it('keeps colons and slashes of unquoted values', () => {
      expect(parseTokenQuery('data:a:b/c')).toEqual({ kind: 'data', value: 'a:b/c' });
    });

    it('lower-cases metadata keys and values and keeps spaces of quoted values', () => {
      expect(parseTokenQuery('metadata.customer_id:"ABC 123"')).toEqual({
        kind: 'metadata',
        key: 'customer_id',
        value: 'abc 123',
      });
      expect(parseTokenQuery('metadata.Region:EU')).toEqual({ kind: 'metadata', key: 'region', value: 'eu' });
    });

    it('unescapes quotes and backslashes in quoted values', () => {
      expect(parseTokenQuery('id:"a\\"b\\\\c"')).toEqual({ kind: 'term', field: 'id', value: 'a"b\\c' });
    });

    it('unescapes characters in unquoted values', () => {
      expect(parseTokenQuery('id:a\\ b\\*')).toEqual({ kind: 'term', field: 'id', value: 'a b*' });
    });

    it('treats * and ? inside quotes as literal characters', () => {
      expect(parseTokenQuery('data:"a*b?"')).toEqual({ kind: 'data', value: 'a*b?' });
    });

    it('treats slashes inside quotes as literal, not as a regex', () => {
      expect(parseTokenQuery('id:"/abc/"')).toEqual({ kind: 'term', field: 'id', value: '/abc/' });
    });
  });

  describe('containers', () => {
    it.each(['container:/pci/high/', 'container:"/pci/high/"', 'container:/pci/high', 'container:/PCI/High/'])(
      'reads %s as the exact container /pci/high/',
      (query) => {
        expect(parseTokenQuery(query)).toEqual({ kind: 'container', path: '/pci/high/', prefix: false });
      },
    );

    it.each(['container:/pci/*', 'container:"/pci/*"'])('reads %s as /pci/ and the containers below it', (query) => {
      expect(parseTokenQuery(query)).toEqual({ kind: 'container', path: '/pci/', prefix: true });
    });

    it('reads container:/ as the root container and container:/* as every container', () => {
      expect(parseTokenQuery('container:/')).toEqual({ kind: 'container', path: '/', prefix: false });
      expect(parseTokenQuery('container:/*')).toEqual({ kind: 'container', path: '/', prefix: true });
    });
  });

  describe('dates', () => {
    it('reads a bare date as its whole UTC day', () => {
      expect(parseTokenQuery('created_at:2024-01-01')).toEqual({
        kind: 'range',
        field: 'created_at',
        gte: utc('2024-01-01T00:00:00Z'),
        lt: utc('2024-01-02T00:00:00Z'),
      });
    });

    it('reads a bare date-time as that exact instant, offsets converted to UTC', () => {
      expect(parseTokenQuery('modified_at:2024-01-01T10:00:00+02:00')).toEqual({
        kind: 'range',
        field: 'modified_at',
        gte: utc('2024-01-01T08:00:00Z'),
        lte: utc('2024-01-01T08:00:00Z'),
      });
    });

    it('reads an inclusive range of a date and a date-time', () => {
      expect(parseTokenQuery('created_at:[2024-01-01 TO 2024-02-01T10:00:00Z]')).toEqual({
        kind: 'range',
        field: 'created_at',
        gte: utc('2024-01-01T00:00:00Z'),
        lte: utc('2024-02-01T10:00:00Z'),
      });
    });

    it('reads an exclusive range open at the end', () => {
      expect(parseTokenQuery('created_at:{2024-01-01T00:00:00Z TO *}')).toEqual({
        kind: 'range',
        field: 'created_at',
        gt: utc('2024-01-01T00:00:00Z'),
      });
    });

    it('reads a range open at the start', () => {
      expect(parseTokenQuery('modified_at:[* TO 2024-03-01T12:30:00.250Z]')).toEqual({
        kind: 'range',
        field: 'modified_at',
        lte: utc('2024-03-01T12:30:00.250Z'),
      });
    });

    it('reads a range open at both ends as any token that has the field', () => {
      expect(parseTokenQuery('modified_at:[* TO *]')).toEqual({ kind: 'range', field: 'modified_at' });
    });

    it('reads mixed brackets', () => {
      expect(parseTokenQuery('created_at:[2024-01-01T00:00:00Z TO 2024-02-01T00:00:00Z}')).toEqual({
        kind: 'range',
        field: 'created_at',
        gte: utc('2024-01-01T00:00:00Z'),
        lt: utc('2024-02-01T00:00:00Z'),
      });
      expect(parseTokenQuery('created_at:{2024-01-01T00:00:00Z TO 2024-02-01T00:00:00Z]')).toEqual({
        kind: 'range',
        field: 'created_at',
        gt: utc('2024-01-01T00:00:00Z'),
        lte: utc('2024-02-01T00:00:00Z'),
      });
    });

    it('lets a date bound cover its whole day', () => {
      expect(parseTokenQuery('created_at:[2024-01-01 TO 2024-01-31]')).toMatchObject({
        gte: utc('2024-01-01T00:00:00Z'),
        lt: utc('2024-02-01T00:00:00Z'),
      });
      expect(parseTokenQuery('created_at:{2024-01-01 TO 2024-01-31}')).toMatchObject({
        gte: utc('2024-01-02T00:00:00Z'),
        lt: utc('2024-01-31T00:00:00Z'),
      });
    });

    it('tolerates extra spaces inside a range', () => {
      expect(parseTokenQuery('created_at:[ 2024-01-01   TO   * ]')).toEqual({
        kind: 'range',
        field: 'created_at',
        gte: utc('2024-01-01T00:00:00Z'),
      });
    });
  });
});

describe('escaped field names', () => {
  it('reads a backslash-escaped space in a metadata key', () => {
    expect(parseTokenQuery('metadata.full\\ name:"John Smith"')).toEqual({ kind: 'metadata', key: 'full name', value: 'john smith' });
  });

  it('reads an escaped colon in a metadata key', () => {
    expect(parseTokenQuery('metadata.a\\:b:x AND type:token')).toEqual({
      kind: 'and',
      items: [
        { kind: 'metadata', key: 'a:b', value: 'x' },
        { kind: 'term', field: 'type', value: 'token' },
      ],
    });
  });

  it.each([
    ['metadata.😀:e', '😀'],
    ['metadata.👩‍💻:e', '👩‍💻'],
    ['metadata.i̇:e', 'i̇'],
    ['metadata.नमस्ते:e', 'नमस्ते'],
    ['metadata.\\😀:e', '😀'],
  ])('reads a metadata key of any script or emoji, whole code points at a time: %s', (query, key) => {
    expect(parseTokenQuery(query)).toEqual({ kind: 'metadata', key, value: 'e' });
  });

  it('names a character outside the BMP whole in an error, never half of its surrogate pair', () => {
    expect(() => parseTokenQuery('type:a 😀')).toThrow("Expected field:value at position 7");
    expect(() => parseTokenQuery('metadata.a€:x')).toThrow("Unexpected '€' at position 10");
    expect(() => parseTokenQuery('metadata.a𝄞\u0000:x')).toThrow("Unexpected '\u0000' at position 12");
  });
});
