import { ExpressionError } from '../expression-error';
import { charge, type FilterSet, type FilterThis } from './filter-set';

/** `json` (JSONPath with exactly one match) and `json_stringify` / `stringify`. */

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
  return walk(value, path.trim());
}

/** One step of a path: a member name, or an index. */
const STEP = /\.([A-Za-z_$][\w$-]*)|\[(\d{1,9})\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
const unescape = (quoted: string): string => quoted.replace(/\\(.)/g, '$1');
const NO_MATCH = 'json: the JSONPath expression must match exactly one value.';

/**
 * Follows a simple path (checked against SIMPLE_PATH) through JSON data, as JSON has it: a member of an object is one
 * of its own keys, an index one of an array's elements (a quoted index such as `['0']` too). A string has no members
 * and is not indexable, and an array has no `length`: a path that leaves the data is no match, never a JavaScript
 * property of a value.
 */
function walk(data: unknown, path: string): unknown {
  let value: unknown = data ?? null;
  STEP.lastIndex = 1;
  while (STEP.lastIndex < path.length) {
    const step = STEP.exec(path);
    if (!step) throw new ExpressionError('json: the JSONPath expression is invalid.');
    const name = step[1] ?? step[2] ?? unescape(step[3] ?? step[4]!);
    if (Array.isArray(value)) {
      const index = step[2] !== undefined || /^(?:0|[1-9]\d*)$/.test(name) ? Number(name) : -1;
      if (index < 0 || index >= value.length) throw new ExpressionError(NO_MATCH);
      value = value[index];
    } else if (typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, name)) {
      value = (value as Record<string, unknown>)[name];
    } else {
      throw new ExpressionError(NO_MATCH);
    }
  }
  return value;
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
