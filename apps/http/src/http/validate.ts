import { fieldPath, isWellFormedText, toWellFormedText, ValidationError } from '@svc/core';
import type { z } from 'zod';


function issuesToErrors(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  // No prototype: a field named `toString` or `__proto__` is just a key here.
  const errors = Object.create(null) as Record<string, string[]>;
  const add = (path: readonly PropertyKey[], message: string): void => {
    const key = fieldPath(path) || 'body';
    (errors[key] ??= []).push(message);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'Unknown field.');
    } else {
      add(issue.path, issue.message);
    }
  }
  return errors;
}

/** How deep a request body may nest: JSON data deeper than this is refused before anything recurses over it. */
export const MAX_BODY_DEPTH = 32;

const ILL_FORMED = 'Text must be well-formed Unicode (a lone surrogate such as \\ud800 is not).';
const UNSAFE_INTEGER = 'Integers must lie within ±9007199254740991 to be kept exactly; send a larger one as a string.';

/**
 * What no schema should ever see: `__proto__` keys (objects would silently drop them), numbers JSON cannot carry
 * back (`1e999` parses as Infinity and would be stored as null), integers past 2^53 - 1 (`9007199254740993` parses
 * as …992: another value, which would deduplicate with it and be handed back as the data), ill-formed UTF-16 in a value or a key (stores keep
 * UTF-8, so a lone surrogate would come back as U+FFFD: another id, another key), and nesting deep enough to exhaust
 * a stack. Walks iteratively, so the walk itself cannot overflow.
 */
function hostileValue(value: unknown): { path: PropertyKey[]; message: string } | undefined {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node === 'number' && !Number.isFinite(node)) return { path, message: 'Numbers must be finite.' };
    if (typeof node === 'number' && Number.isInteger(node) && !Number.isSafeInteger(node)) return { path, message: UNSAFE_INTEGER };
    if (typeof node === 'string' && !isWellFormedText(node)) return { path, message: ILL_FORMED };
    if (typeof node !== 'object' || node === null) continue;
    if (path.length >= MAX_BODY_DEPTH) return { path, message: `Values may nest at most ${MAX_BODY_DEPTH} levels deep.` };
    if (Array.isArray(node)) node.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    else {
      for (const key of Object.keys(node)) {
        if (key === '__proto__') return { path: [...path, key], message: 'This field name is reserved.' };
        if (!isWellFormedText(key)) return { path: [...path, toWellFormedText(key)], message: ILL_FORMED };
        stack.push({ value: (node as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
  }
  return undefined;
}

/** Throws the ValidationError `validate` would for a value no schema should see (see hostileValue): before a walk. */
export function requireSafeValue(value: unknown): void {
  const hostile = hostileValue(value);
  if (hostile) throw new ValidationError({ [fieldPath(hostile.path) || 'body']: [hostile.message] });
}

/** Checks `value` against `schema`; a failure is a ValidationError whose `errors` name each field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  requireSafeValue(value);
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(issuesToErrors(result.error.issues));
  return result.data;
}
