import type { FieldErrors } from './errors';

/** `['rules', 0, 'transform']` → `rules[0].transform`: how errors name a field of a request. The root is `''`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
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
