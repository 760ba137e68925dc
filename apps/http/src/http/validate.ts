import { fieldPath, isWellFormedText, toWellFormedText, ValidationError } from '@svc/core';
import type { z } from 'zod';


/**
 * The most fields one 400 names. A 1 MB body of 150,000 unknown fields drew an answer of 3 MB naming each, to a caller
 * without a key (the invitation accept form); past this, the rest are counted under `body`.
 */
export const MAX_FIELD_ERRORS = 100;

function issuesToErrors(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  // No prototype: a field named `toString` or `__proto__` is just a key here.
  const errors = Object.create(null) as Record<string, string[]>;
  let fields = 0;
  let more = 0;
  const add = (path: readonly PropertyKey[], message: string): void => {
    const key = fieldPath(path) || 'body';
    if (!(key in errors)) {
      if (fields >= MAX_FIELD_ERRORS) {
        more++;
        return;
      }
      fields++;
    }
    (errors[key] ??= []).push(message);
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'Unknown field.');
    } else {
      add(issue.path, issue.message);
    }
  }
  if (more > 0) (errors.body ??= []).push(`${more} more field${more === 1 ? '' : 's'} with errors not listed.`);
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
 * a stack.
 */
function hostileValue(value: unknown): { path: PropertyKey[]; message: string } | undefined {
  // One path, grown and shrunk as the walk goes: a copy of it for every value cost nodes × depth (a 1 MB body of
  // 30 nested arrays around 490,000 zeros took 0.41 s, from any caller, before its key was even looked at). The
  // walk recurses at most MAX_BODY_DEPTH levels, so it cannot exhaust the stack.
  const path: PropertyKey[] = [];
  const hit = (message: string): { path: PropertyKey[]; message: string } => ({ path: [...path], message });
  const visit = (node: unknown): { path: PropertyKey[]; message: string } | undefined => {
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return hit('Numbers must be finite.');
      return Number.isInteger(node) && !Number.isSafeInteger(node) ? hit(UNSAFE_INTEGER) : undefined;
    }
    if (typeof node === 'string') return isWellFormedText(node) ? undefined : hit(ILL_FORMED);
    if (typeof node !== 'object' || node === null) return undefined;
    if (path.length >= MAX_BODY_DEPTH) return hit(`Values may nest at most ${MAX_BODY_DEPTH} levels deep.`);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        const found = visit(node[i]);
        if (found) return found;
        path.pop();
      }
      return undefined;
    }
    for (const key of Object.keys(node)) {
      if (key === '__proto__') {
        path.push(key);
        return hit('This field name is reserved.');
      }
      if (!isWellFormedText(key)) {
        path.push(toWellFormedText(key));
        return hit(ILL_FORMED);
      }
      path.push(key);
      const found = visit((node as Record<string, unknown>)[key]);
      if (found) return found;
      path.pop();
    }
    return undefined;
  };
  return visit(value);
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
