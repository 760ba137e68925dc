import { RE2JS, RE2JSSyntaxException } from 're2js';
import { ExpressionError } from '../expressions/expression-error';

/**
 * Regular expressions of `mask` transforms (beyond.md §7), run by re2js, a pure-JavaScript port of RE2: matching time
 * is linear in the text whatever the pattern, so a proxy's configuration cannot stall the server with catastrophic
 * backtracking. RE2 syntax: no backreferences and no lookaround; flags inline (`(?i)`, `(?s)`, `(?m)`).
 */
export const MAX_MASK_EXPRESSION_LENGTH = 1_000;
/**
 * The largest compiled program (RE2's instruction count, its own measure of a pattern's cost) a mask may have. Time is
 * linear in the text but scales with the program: at this size the worst patterns measured about 3 s per MB of text,
 * at 1,000 about 6 s. Everyday patterns are far smaller (`\d{13,19}` is 27); bounded repeats count once per repetition.
 */
export const MAX_MASK_PROGRAM_SIZE = 500;

/** A checked, compiled mask expression. Safe to reuse: each use gets its own matcher. */
export class CompiledMask {
  readonly #regex: RE2JS;

  /** @throws ExpressionError when `expression` is empty, too long, too complex or not valid RE2 syntax. */
  constructor(readonly expression: string) {
    this.#regex = compile(expression);
  }

  /**
   * `text` with every non-empty, non-overlapping match (leftmost first) replaced by `replacement`, taken literally.
   * @throws ExpressionError when the result would be longer than `maxLength` characters.
   */
  replaceIn(text: string, replacement: string, maxLength = Infinity): string {
    const matcher = this.#regex.matcher(text);
    const parts: string[] = [];
    let last = 0;
    let built = 0; // what the parts hold so far: never more than the result, so refusing past maxLength is exact
    // Empty matches are skipped (`x*` masks runs of x, not every gap between characters); the matcher itself moves
    // past them by a whole code point, so the loop ends and never stops inside a surrogate pair.
    while (matcher.find()) {
      const start = matcher.start();
      const end = matcher.end();
      if (end === start) continue;
      built += start - last + replacement.length;
      if (built > maxLength) throw tooLong(maxLength);
      parts.push(text.slice(last, start), replacement);
      last = end;
    }
    if (built + text.length - last > maxLength) throw tooLong(maxLength);
    if (parts.length === 0) return text;
    parts.push(text.slice(last));
    return parts.join('');
  }
}

function tooLong(maxLength: number): ExpressionError {
  return new ExpressionError(`The masked text would be longer than ${maxLength} characters.`);
}

/**
 * Checks and compiles a mask expression.
 * @throws ExpressionError with a message naming the problem (never echoing the expression).
 */
export function compileMask(expression: string): CompiledMask {
  return new CompiledMask(expression);
}

/**
 * `text` with every non-empty match of `mask` replaced by `replacement` literally (`$1` is not substituted).
 * A replacement longer than what it replaces makes the text grow (a one-character match per character of a 1 MB body
 * and a 1,000-character replacement would be 1 GB, past what a JavaScript string can hold): pass `maxLength` to have
 * that refused as an ExpressionError instead, before the text is built.
 */
export function maskText(text: string, mask: CompiledMask, replacement: string, maxLength?: number): string {
  return mask.replaceIn(text, replacement, maxLength);
}

function compile(expression: string): RE2JS {
  if (expression.length === 0) throw new ExpressionError('The mask expression must not be empty.');
  if (expression.length > MAX_MASK_EXPRESSION_LENGTH) {
    throw new ExpressionError(`The mask expression may be at most ${MAX_MASK_EXPRESSION_LENGTH} characters.`);
  }
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(expression);
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) throw new ExpressionError(syntaxMessage(error));
    throw new ExpressionError('The mask expression is too complex.');
  }
  if (regex.programSize() > MAX_MASK_PROGRAM_SIZE) {
    throw new ExpressionError(
      `The mask expression is too complex: it compiles to more than ${MAX_MASK_PROGRAM_SIZE} instructions ` +
        '(each literal character counts, and a bounded repeat such as {1,100} counts once per repetition: prefer + or *).',
    );
  }
  return regex;
}

/** RE2's description of the error, and what to do instead for the Perl/JavaScript features RE2 leaves out. */
function syntaxMessage(error: RE2JSSyntaxException): string {
  const fragment = error.getPattern() ?? '';
  if (/^\\(?:[1-9]|k)/.test(fragment)) {
    return 'The mask expression uses a backreference (\\1, \\k<name>), which RE2 syntax does not support.';
  }
  if (/^\(\?<?[=!]/.test(fragment)) {
    return 'The mask expression uses lookahead or lookbehind ((?=, (?!, (?<=, (?<!), which RE2 syntax does not support.';
  }
  return `The mask expression is not a valid RE2 regular expression: ${error.getDescription()}.`;
}
