import { ValidationError } from '@svc/core';
import type { z } from 'zod';

/** `['rules', 0, 'transform']` → `rules[0].transform`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function issuesToErrors(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (path: readonly PropertyKey[], message: string): void => {
    const key = fieldPath([...prefix, ...path]) || 'body';
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

/** Checks `value` against `schema`; a failure is a ValidationError whose `errors` name each field. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, prefix: readonly PropertyKey[] = []): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(issuesToErrors(result.error.issues, prefix));
  return result.data;
}
