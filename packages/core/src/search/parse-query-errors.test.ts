import { ValidationError } from '../shared/errors';
import { MAX_QUERY_LENGTH, parseTokenQuery } from './parse-query';

function errorOf(query: string): ValidationError {
  try {
    parseTokenQuery(query);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`expected ${query} to be rejected`);
}

describe('parseTokenQuery rejects', () => {
  it.each([
    // fields
    ['foo:bar', "Unknown field 'foo' at position 0"],
    ['type:card Type:card', "Unknown field 'Type' at position 10"],
    ['metadata:abc', 'Metadata terms need a key, as in metadata.<key>:<value>, at position 0'],
    ['metadata.:abc', 'Metadata terms need a key, as in metadata.<key>:<value>, at position 0'],
    // values
    ['type:', 'Expected a value at position 5'],
    ['type: card', 'Expected a value at position 5'],
    ['type:"" AND id:1', 'Expected a value at position 5'],
    ['type:(card OR bank)', 'Field groups are not supported at position 5'],
    ['id:"abc', 'Unterminated quoted value starting at position 3'],
    ['id:abc\\', 'Unexpected end of query at position 7'],
    ['id:a"b"', `Unexpected '"' at position 4`],
    // dates
    ['created_at:2024-13-01', 'Invalid date; use an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T10:00:00Z at position 11'],
    ['created_at:2023-02-29', 'Invalid date; use an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T10:00:00Z at position 11'],
    ['modified_at:2024-01-01T24:00:00Z', 'Invalid date; use an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T10:00:00Z at position 12'],
    ['created_at:yesterday', 'Invalid date; use an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T10:00:00Z at position 11'],
    ['created_at:[2024-01-01 TO 2024-02-30]', 'Invalid date; use an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T10:00:00Z at position 26'],
    ['created_at:[2024/01/01 TO *]', "Unexpected '/' at position 16"],
    ['created_at:[2024-01-01 *]', "Expected 'TO' at position 23"],
    ['created_at:[2024-01-01 TO ]', 'Expected a range end at position 26'],
    ['created_at:[ TO *]', "Expected 'TO' at position 16"],
    ['created_at:[]', 'Expected a range start at position 12'],
    ['created_at:[2024-01-01 TO *', 'Unexpected end of query at position 27'],
    ['type:[a TO b]', 'Ranges are only supported on created_at and modified_at at position 5'],
    // wildcards, regex, fuzzy, boost
    ['container:/pc*/high/', 'A container wildcard may only be the last character at position 13'],
    ['container:*', "A container wildcard must follow '/', as in /pci/*, at position 10"],
    ['container:/pci*', "A container wildcard must follow '/', as in /pci/*, at position 14"],
    ['container:/pci/**', 'A container wildcard may only be the last character at position 15'],
    ['container:pci/high/', 'Invalid container path; use /segment/…/ with segments of a-z, 0-9, _ and - at position 10'],
    ['container:"/pci high/"', 'Invalid container path; use /segment/…/ with segments of a-z, 0-9, _ and - at position 11'],
    ['container:/pci//high/', 'Invalid container path; use /segment/…/ with segments of a-z, 0-9, _ and - at position 10'],
    ['type:card*', "Wildcards are not supported on field 'type' at position 9"],
    ['data:12?4', "Wildcards are not supported on field 'data' at position 7"],
    ['metadata.k:*', "Wildcards are not supported on field 'metadata.k' at position 11"],
    ['created_at:2024*', "Wildcards are not supported on field 'created_at' at position 15"],
    ['type:/car.*/', 'Regular expressions are not supported at position 5'],
    ['data:6789~', 'Fuzzy and proximity searches are not supported at position 9'],
    ['data:"12 34"~2', 'Fuzzy and proximity searches are not supported at position 12'],
    ['type:card^2', 'Boosts are not supported at position 9'],
    ['created_at:[* TO *]^2', 'Boosts are not supported at position 19'],
    // syntax
    ['card', 'Expected field:value at position 0'],
    ['type:a and type:b', "Operators are case sensitive: write 'AND' at position 7"],
    ['type:a AND', 'Unexpected end of query at position 10'],
    ['AND type:a', "Unexpected 'AND' at position 0"],
    ['type:a AND OR type:b', "Unexpected 'OR' at position 11"],
    ['type:a OR NOT', 'Unexpected end of query at position 13'],
    ['NOT', 'Unexpected end of query at position 3'],
    ['(type:a', "Missing ')' at position 7"],
    ['type:a)', "Unexpected ')' at position 6"],
    ['()', "Unexpected ')' at position 1"],
    ['- type:a', "Unexpected '-' at position 0"],
    ['type:a & type:b', "Unexpected '&' at position 7"],
    ['type:a && type:b', "Unexpected '&' at position 7"],
    ['"card"', `Unexpected '"' at position 0`],
    ['metadata.a/b:x', "Unexpected '/' at position 10"],
  ])('%s with "%s"', (query, message) => {
    const error = errorOf(query);
    expect(error.errors).toEqual({ query: [message] });
    expect(error.message).toBe(message);
  });

  it('a query longer than the maximum, naming where the limit lies', () => {
    const query = Array.from({ length: 200 }, () => 'type:card').join(' OR ');
    expect(query.length).toBeGreaterThan(MAX_QUERY_LENGTH);
    expect(errorOf(query).errors).toEqual({ query: ['Query is longer than 2000 characters at position 2000'] });
  });

  it('accepts a query of exactly the maximum length', () => {
    const query = `data:${'x'.repeat(MAX_QUERY_LENGTH - 5)}`;
    expect(parseTokenQuery(query)).toEqual({ kind: 'data', value: 'x'.repeat(MAX_QUERY_LENGTH - 5) });
  });

  it('never quotes a value in its message', () => {
    expect(errorOf('data:123-45-6789*').message).not.toContain('123');
    expect(errorOf('123-45-6789').message).not.toContain('123');
    expect(errorOf('created_at:123-45-6789').message).not.toContain('123');
  });

  it.each([
    ['constructor', 0],
    ['__proto__', 0],
    ['toString', 0],
    ['valueOf', 0],
    ['hasOwnProperty', 0],
    ['NOT constructor', 4],
    ['(toString)', 1],
    ['type:a AND valueOf', 11],
    ['-__proto__', 1],
    ['!hasOwnProperty', 1],
  ])('a bare word naming an Object.prototype property (%s) as "Expected field:value", not a crash', (query, position) => {
    expect(errorOf(query).errors).toEqual({ query: [`Expected field:value at position ${position}`] });
  });

  it('reports the first error in reading order', () => {
    expect(errorOf('foo:1 AND bar:2').errors).toEqual({ query: ["Unknown field 'foo' at position 0"] });
  });
});
