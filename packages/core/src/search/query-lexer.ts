import { isDelimiter, SPACE } from './query-chars';
import { queryError, unexpected } from './query-error';
import { lexOperand } from './query-operand-lexer';
import type { QueryToken } from './query-tokens';

// Letters with their combining marks (decomposed accents, Devanagari…), digits, symbols such as emoji (with the
// zero-width joiner of their sequences), `_`, `.` and `-`.
const FIELD_CHAR = /^[\p{L}\p{M}\p{N}\p{So}\u200d_.-]$/u;
// A Map, not an object literal: a bare word such as `constructor` or `__proto__` must not find Object.prototype.
const OPERATORS: ReadonlyMap<string, 'and' | 'or' | 'not'> = new Map([
  ['AND', 'and'],
  ['OR', 'or'],
  ['NOT', 'not'],
]);

/**
 * Splits a query into tokens with their offsets. This runs before lucene because lucene's own term grammar reads
 * `/pci/high/` as a regex, stops unquoted values at `:` (date-times), keeps a leading `-`/`!` inside the field
 * name (`-type`) and silently drops repeated operators (`a AND  NOT b`, `a AND OR b`).
 */
export function lexQuery(query: string): QueryToken[] {
  const tokens: QueryToken[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    if (SPACE.test(c)) {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'open' : 'close', position: i, text: c });
      i++;
    } else if (c === '-' || c === '!' || c === '+') {
      if (isDelimiter(query, i + 1) && query[i + 1] !== '(') throw unexpected(query, i);
      // `+` (required) adds nothing when terms are ANDed anyway.
      if (c !== '+') tokens.push({ kind: 'not', position: i, text: c });
      i++;
    } else {
      i = lexWord(query, i, tokens);
    }
  }
  return tokens;
}

function lexWord(query: string, start: number, tokens: QueryToken[]): number {
  let end = start;
  let word = '';
  // A backslash escapes one character, so metadata keys with spaces or colons can be named: `metadata.full\ name:x`.
  // By code point, so a key outside the Basic Multilingual Plane (an emoji) is one character, not two halves.
  const at = (i: number): string => String.fromCodePoint(query.codePointAt(i)!);
  while (end < query.length && (FIELD_CHAR.test(at(end)) || (query[end] === '\\' && end + 1 < query.length))) {
    if (query[end] === '\\') end++;
    const c = at(end);
    word += c;
    end += c.length;
  }
  if (end === start) throw unexpected(query, start);
  if (query[end] === ':') {
    const { operand, end: next } = lexOperand(query, word, start, end + 1);
    tokens.push(operand);
    return next;
  }
  if (!isDelimiter(query, end)) throw unexpected(query, end);
  const operator = OPERATORS.get(word);
  if (operator) {
    tokens.push({ kind: operator, position: start, text: word });
    return end;
  }
  const upper = word.toUpperCase();
  if (OPERATORS.has(upper)) throw queryError(`Operators are case sensitive: write '${upper}'`, start);
  throw queryError('Expected field:value', start);
}
