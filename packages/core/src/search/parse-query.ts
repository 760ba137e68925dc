import { parse } from 'lucene';
import { placeholderField, toLuceneSyntax } from './lucene-syntax';
import { queryError } from './query-error';
import { lexQuery } from './query-lexer';
import { toTermQuery } from './query-terms';
import { fromLuceneTree } from './query-tree';
import type { TokenQuery } from './token-query';

/** Longest accepted query string, in UTF-16 units. */
export const MAX_QUERY_LENGTH = 2000;

/**
 * Parses a search query (interface.md 4.3) into a `TokenQuery`. An empty, blank, null or undefined query is
 * `{ kind: 'all' }`.
 *
 * - Fields: `id`, `type`, `fingerprint`, `created_by`, `modified_by` (exact), `data` (exact, case-insensitive),
 *   `metadata.<key>` (key and value case-insensitive), `container`, `created_at`, `modified_at`.
 * - `AND`, `OR`, `NOT` (case sensitive); `!x` and `-x` mean `NOT x`; juxtaposed terms are ANDed; NOT binds
 *   tightest, then AND, then OR; parentheses group. Values with spaces go in double quotes; `\` escapes a character.
 * - `container:/pci/high/` (quoted or not, trailing `/` optional) is that container only; `container:/pci/*` is
 *   `/pci/` and everything below it. No other wildcard is allowed anywhere (a quoted `*` elsewhere is literal).
 * - Dates are ISO 8601 dates or date-times, UTC unless an offset is given. `created_at:2024-01-31` matches that
 *   whole UTC day, `created_at:2024-01-31T10:00:00Z` that exact instant. Ranges `[a TO b]` (inclusive),
 *   `{a TO b}` (exclusive) and mixed `[a TO b}`, `*` for an open end; a date bound covers its whole day, so
 *   `[2024-01-01 TO 2024-01-31]` runs to the end of January 31 and `{2024-01-01 TO …` starts on January 2.
 *
 * @throws ValidationError `{ query: [message] }`, the message ending "at position N" (0-based): syntax errors,
 *   unknown fields, bad dates, misplaced wildcards, fuzzy/proximity/boost/regex syntax, field groups, ranges on
 *   fields other than dates, `metadata` without a key, empty values, queries over {@link MAX_QUERY_LENGTH}.
 */
export function parseTokenQuery(query: string | null | undefined): TokenQuery {
  if (query === null || query === undefined || query.trim() === '') return { kind: 'all' };
  if (query.length > MAX_QUERY_LENGTH) {
    throw queryError(`Query is longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH);
  }
  const syntax = toLuceneSyntax(query, lexQuery(query));
  let tree: ReturnType<typeof parse>;
  try {
    tree = parse(syntax.text);
  } catch (error) {
    throw queryError('Unexpected input', syntax.sourcePosition(errorOffset(error)));
  }
  let next = 0;
  return fromLuceneTree(tree, (leaf) => {
    const operand = syntax.operands[next++];
    // The canonical text was written from these operands, so a mismatch is a bug, not a bad query.
    if (operand === undefined || leaf.field !== placeholderField(next - 1)) throw new Error('search: lucene leaf out of step');
    return toTermQuery(operand);
  });
}

function errorOffset(error: unknown): number {
  const location = (error as { readonly location?: { readonly start?: { readonly offset?: number } } }).location;
  return location?.start?.offset ?? 0;
}
