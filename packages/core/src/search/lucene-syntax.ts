import { queryError, unexpected } from './query-error';
import type { QueryOperand, QueryToken } from './query-tokens';

/** A query rewritten into the subset of lucene syntax that lucene parses faithfully. */
export interface LuceneSyntax {
  readonly text: string;
  /** The operands in the order lucene's tree lists its leaves. */
  readonly operands: readonly QueryOperand[];
  /** Maps an offset in `text` to the offset in the original query. */
  sourcePosition(offset: number): number;
}

/**
 * Checks that operands and operators alternate and parentheses balance, then writes the canonical form: one space
 * between tokens, an explicit AND where terms were juxtaposed, `NOT` for `!` and `-` (repeated negations cancel
 * out, since lucene drops a second leading NOT), and every value quoted so that `/` and `:` stay literal.
 */
export function toLuceneSyntax(query: string, tokens: readonly QueryToken[]): LuceneSyntax {
  const parts: { readonly text: string; readonly source: number }[] = [];
  const operands: QueryOperand[] = [];
  let expectOperand = true;
  let depth = 0;
  let negation: number | undefined;
  const emit = (text: string, source: number) => parts.push({ text, source });
  const flushNegation = () => {
    if (negation !== undefined) emit('NOT', negation);
    negation = undefined;
  };

  for (const token of tokens) {
    if (token.kind === 'and' || token.kind === 'or' || token.kind === 'close') {
      if (expectOperand || (token.kind === 'close' && depth === 0)) {
        throw queryError(`Unexpected '${token.text}'`, token.position);
      }
      if (token.kind === 'close') depth--;
      emit(token.kind === 'close' ? ')' : token.kind.toUpperCase(), token.position);
      expectOperand = token.kind !== 'close';
      continue;
    }
    if (!expectOperand) emit('AND', token.position);
    expectOperand = true;
    if (token.kind === 'not') {
      negation = negation === undefined ? token.position : undefined;
    } else if (token.kind === 'open') {
      flushNegation();
      emit('(', token.position);
      depth++;
    } else {
      flushNegation();
      emit(render(token, operands.length), token.position);
      operands.push(token);
      expectOperand = false;
    }
  }
  if (expectOperand) throw unexpected(query, query.length);
  if (depth > 0) throw queryError("Missing ')'", query.length);
  return { text: parts.map((part) => part.text).join(' '), operands, sourcePosition: mapper(parts, query.length) };
}

/**
 * Lucene sees a placeholder field: the operands keep the real ones (matched to lucene's leaves by order), so field
 * names lucene could not read (escaped spaces or colons in metadata keys) never reach it.
 */
function render(operand: QueryOperand, index: number): string {
  if (operand.kind === 'term') return `${placeholderField(index)}:"${operand.value.replace(/["\\]/g, '\\$&')}"`;
  const open = operand.minInclusive ? '[' : '{';
  const close = operand.maxInclusive ? ']' : '}';
  return `${placeholderField(index)}:${open}${operand.min.text} TO ${operand.max.text}${close}`;
}

/** The field lucene sees for the operand at `index`: numbered, so leaves can still be checked against operands. */
export const placeholderField = (index: number): string => `f${index}`;

function mapper(parts: readonly { readonly text: string; readonly source: number }[], end: number) {
  return (offset: number): number => {
    let start = 0;
    for (const part of parts) {
      if (offset < start + part.text.length + 1) return part.source;
      start += part.text.length + 1;
    }
    return end;
  };
}
