import type { FieldErrors } from './errors';

/** A key the dotted form would misread (empty, or holding `.`, `[`, `]` or a quote) is written `['a.b']`. */
const QUOTED_KEY = /^$|[.[\]'"]/;

/**
 * `['rules', 0, 'transform']` → `rules[0].transform`: how errors name a field of a request. The root is `''`. Keys a
 * caller chooses (a /tokenize or /detokenize body's, metadata's) may hold anything, so one the dotted form would
 * misread is written as a JSONPath normalized path writes it (`['a.b']`, `['it\'s']`): `{"a.b": …}` and
 * `{"a": {"b": …}}` are never named alike.
 */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    const key = String(part);
    if (typeof part === 'number') out += `[${part}]`;
    else if (QUOTED_KEY.test(key)) out += `['${key.replace(/[\\']/g, '\\$&')}']`;
    else out += out === '' ? key : `.${key}`;
  }
  return out;
}

/** `field` of the value at `path`: `card` + `data.number` → `card.data.number`, `[3]` + `type` → `[3].type`. */
export function joinFieldPath(path: string, field: string): string {
  if (path === '') return field;
  if (field === '') return path;
  return field.startsWith('[') ? `${path}${field}` : `${path}.${field}`;
}

/** Errors about a value, renamed as errors about the request holding it at `path`. */
export function errorsWithin(path: string, errors: FieldErrors): Record<string, readonly string[]> {
  const out = Object.create(null) as Record<string, readonly string[]>;
  for (const [field, messages] of Object.entries(errors)) out[joinFieldPath(path, field)] = messages;
  return out;
}
