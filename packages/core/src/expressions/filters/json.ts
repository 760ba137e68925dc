import { JSONPath } from 'jsonpath-plus';
import { ExpressionError } from '../expression-error';
import { charge, type FilterSet, type FilterThis } from './filter-set';

/** `json` (JSONPath with exactly one match) and `json_stringify` / `stringify`. */

// jsonpath-plus memoizes every path and filter script it sees in one global object that never shrinks;
// paths come from callers, so it is emptied once it grows past this many entries.
const JSONPATH_CACHE_LIMIT = 1000;

function boundJsonPathCache(): void {
  const cache: object = JSONPath.cache;
  if (Object.keys(cache).length > JSONPATH_CACHE_LIMIT) JSONPath.cache = {};
}

/**
 * The paths `json` takes: `$` then members and indexes (`$.card.number`, `$['a b'][0]`). Recursive descent (`..`),
 * wildcards, slices and filter scripts are refused: their cost grows with the path as well as the data (a filter
 * script of 2,000 terms ran 28 s over 20,000 elements; `$..*..*` over deeply nested data exhausted the heap), and the
 * filter must match exactly one value anyway.
 */
const SIMPLE_PATH = /^\$(?:\.[A-Za-z_$][\w$-]*|\[(?:\d{1,9}|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\])*$/;

/** The one value `path` names in `value` (the `json` filter); an ExpressionError when it names none, several, or is not a simple path. */
export function json(value: unknown, path?: unknown): unknown {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new ExpressionError('json: a JSONPath expression is required.');
  }
  if (!SIMPLE_PATH.test(path.trim())) {
    throw new ExpressionError("json: the path may only name members and indexes, as in $.card.number or $['a b'][0].");
  }
  boundJsonPathCache();
  let matches: unknown;
  try {
    // 'safe' evaluates filter scripts ([?(@.price < 10)]) with jsonpath-plus's own interpreter, never vm/eval.
    matches = JSONPath({ path: path.trim(), json: value ?? null, wrap: true, eval: 'safe' });
  } catch {
    throw new ExpressionError('json: the JSONPath expression is invalid.');
  }
  if (!Array.isArray(matches) || matches.length !== 1) {
    throw new ExpressionError('json: the JSONPath expression must match exactly one value.');
  }
  return matches[0];
}

/** JSON text of the value; null (and a missing value) gives the text `null`. */
function jsonStringify(this: FilterThis, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value ?? null);
  } catch {
    throw new ExpressionError('json_stringify: the value cannot be serialized.');
  }
  const result = text ?? 'null';
  charge(this, result.length);
  return result;
}

export const jsonFilters: FilterSet = {
  json,
  json_stringify: jsonStringify,
  stringify: jsonStringify,
};
