import { ExpressionError } from '../expression-error';

/**
 * A template that does not read whole under the strict grammar. The message describes the template only
 * (what was expected, what was found, where), never the data it would be evaluated on.
 */
export class ExpressionSyntaxError extends ExpressionError {
  constructor(problem: string, input: string, at: number) {
    super(`The expression is invalid: ${problem} at ${position(input, at)}.`);
    this.name = 'ExpressionSyntaxError';
  }
}

/** `column 7` on a one-line template, `line 2, column 3` otherwise; both 1-based. */
function position(input: string, at: number): string {
  const before = input.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return line === 1 ? `column ${column}` : `line ${line}, column ${column}`;
}

/**
 * What stands at `at`, for "unexpected …" messages: the word there, or the character (printable ASCII as
 * itself, anything else as its code point, so the message stays readable whatever the template holds).
 */
export function describeAt(input: string, at: number, end: number): string {
  if (at >= end) return 'the end of the tag';
  const word = /^[A-Za-z_][\w-]*/.exec(input.slice(at, Math.min(end, at + 40)))?.[0];
  if (word) return `'${word}'`;
  const char = String.fromCodePoint(input.codePointAt(at) ?? 0);
  if (char === ' ') return 'a space';
  if (/^[\x21-\x7e]$/.test(char)) return `'${char}'`;
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
