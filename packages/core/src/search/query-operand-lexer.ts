import { isDelimiter, SPACE } from './query-chars';
import { queryError, unexpected } from './query-error';
import type { QueryOperand, RangeBound } from './query-tokens';

/** Characters that end an unquoted value; `/` and `:` do not, so paths and date-times need no quotes. */
const VALUE_END = new Set(['(', ')', '"', '[', ']', '{', '}', '^', '~']);
/** Characters that end a range bound; lucene's range grammar rejects `/` and `\` there. */
const BOUND_END = new Set([...VALUE_END, '/', '\\']);

interface Lexed {
  readonly operand: QueryOperand;
  readonly end: number;
}

/** Lexes the value of `field:` starting at `start` (just after the colon). */
export function lexOperand(query: string, field: string, position: number, start: number): Lexed {
  const c = query[start];
  if (c === '(') throw queryError('Field groups are not supported', start);
  if (isDelimiter(query, start)) throw queryError('Expected a value', start);
  const lexed =
    c === '"' ? lexQuoted(query, field, position, start)
    : c === '[' || c === '{' ? lexRange(query, field, position, start)
    : lexUnquoted(query, field, position, start);
  if (!isDelimiter(query, lexed.end)) throw trailing(query, lexed.end);
  return lexed;
}

function trailing(query: string, index: number): Error {
  if (query[index] === '~') return queryError('Fuzzy and proximity searches are not supported', index);
  if (query[index] === '^') return queryError('Boosts are not supported', index);
  return unexpected(query, index);
}

function lexUnquoted(query: string, field: string, position: number, start: number): Lexed {
  let value = '';
  let wildcard: number | undefined;
  const valuePositions: number[] = [];
  let i = start;
  while (i < query.length && !SPACE.test(query[i]!) && !VALUE_END.has(query[i]!)) {
    const escaped = query[i] === '\\';
    if (escaped && i + 1 === query.length) throw unexpected(query, i + 1);
    const at = escaped ? i + 1 : i;
    const c = query[at]!;
    if (!escaped && (c === '*' || c === '?') && wildcard === undefined) wildcard = value.length;
    value += c;
    valuePositions.push(at);
    i = at + 1;
  }
  if (value === '') throw trailing(query, start);
  const operand = { kind: 'term', field, position, value, valuePositions, quoted: false } as const;
  return { operand: wildcard === undefined ? operand : { ...operand, wildcard }, end: i };
}

function lexQuoted(query: string, field: string, position: number, start: number): Lexed {
  let value = '';
  const valuePositions: number[] = [];
  let i = start + 1;
  while (query[i] !== '"') {
    if (i >= query.length) throw queryError('Unterminated quoted value starting', start);
    const at = query[i] === '\\' && i + 1 < query.length ? i + 1 : i;
    value += query[at];
    valuePositions.push(at);
    i = at + 1;
  }
  if (value.trim() === '') throw queryError('Expected a value', start);
  return { operand: { kind: 'term', field, position, value, valuePositions, quoted: true }, end: i + 1 };
}

function lexRange(query: string, field: string, position: number, start: number): Lexed {
  const min = readBound(query, skipSpaces(query, start + 1), 'Expected a range start');
  const to = skipSpaces(query, min.position + min.text.length);
  if (to === min.position + min.text.length) throw unexpected(query, to);
  if (!query.startsWith('TO', to) || !SPACE.test(query[to + 2] ?? '')) throw queryError("Expected 'TO'", to);
  const max = readBound(query, skipSpaces(query, to + 2), 'Expected a range end');
  const close = skipSpaces(query, max.position + max.text.length);
  if (query[close] !== ']' && query[close] !== '}') throw unexpected(query, close);
  const minInclusive = query[start] === '[';
  const maxInclusive = query[close] === ']';
  const operand = { kind: 'range', field, position, rangePosition: start, min, max, minInclusive, maxInclusive } as const;
  return { operand, end: close + 1 };
}

function readBound(query: string, start: number, missing: string): RangeBound {
  let end = start;
  while (end < query.length && !SPACE.test(query[end]!) && !BOUND_END.has(query[end]!)) end++;
  if (end === start) throw query[start] === undefined ? unexpected(query, start) : queryError(missing, start);
  return { text: query.slice(start, end), position: start };
}

function skipSpaces(query: string, start: number): number {
  let i = start;
  while (i < query.length && SPACE.test(query[i]!)) i++;
  return i;
}
