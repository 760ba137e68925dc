/**
 * The detokenization expressions of beyond.md §1, read from text. One grammar, used by POST /detokenize and by the
 * proxy (§7) for JSON, form and text bodies and for headers:
 *
 *   {{ <id> }}                          the token's data
 *   {{ <id> | json: '<path>' }}         part of the data
 *   {{ token: <id> }}                   the whole token object
 *   {{ token: <id> | json: '<path>' }}  any property of it
 *
 * Spaces inside the braces are optional. An id is what a token id may be (no `|`, `{` or `}`), trimmed. The path is
 * quoted with `'` or `"` and may not hold its own quote. Text in braces that does not fit is not an expression and
 * stays as it is.
 */

/** One expression found in a text, with where it is. */
export interface DetokenizationExpression {
  /** The token id it names. */
  readonly id: string;
  /** True for `token: <id>`: the whole token object rather than its data. */
  readonly wholeToken: boolean;
  /** The JSONPath of `| json: '…'`, when given. */
  readonly path?: string;
  /** Where it is in the text: `text.slice(start, end)` is the expression with its braces. */
  readonly start: number;
  readonly end: number;
}

/** A text read for expressions: the expressions it holds, and whether it is exactly one of them (spaces aside). */
export interface ReadText {
  readonly expressions: readonly DetokenizationExpression[];
  /** The text is one expression and nothing else, so its value replaces the text itself (an object stays an object). */
  readonly whole: boolean;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
/** The whole-token form's start, `token:` (token ids may not begin so: tokens/token-id.ts). */
export const TOKEN_FORM = /^token\s*:/;
const JSON_FILTER = /^\s*json\s*:\s*(?:'([^']*)'|"([^"]*)")\s*$/;

/** What is inside one pair of braces, when it fits the grammar. Linear in its length (no backtracking regex). */
function readInside(inside: string): Pick<DetokenizationExpression, 'id' | 'wholeToken' | 'path'> | undefined {
  const bar = inside.indexOf('|');
  let name = (bar < 0 ? inside : inside.slice(0, bar)).trim();
  const wholeToken = name.startsWith('token') && TOKEN_FORM.test(name);
  if (wholeToken) name = name.slice(name.indexOf(':') + 1).trimStart();
  if (name === '') return undefined;
  if (bar < 0) return { id: name, wholeToken };
  const filter = JSON_FILTER.exec(inside.slice(bar + 1));
  if (!filter) return undefined;
  return { id: name, wholeToken, path: filter[1] ?? filter[2]! };
}

const NONE: ReadText = { expressions: [], whole: false };

/** The expressions a text holds, in order. Cheap for text without `{{`, which most is. */
export function readDetokenization(text: string): ReadText {
  let open = text.indexOf('{{');
  if (open < 0) return NONE;
  // `{{`, then characters other than braces, then `}}`: scanned by hand (`matchAll` over a regex cost 2 µs a text,
  // a tenth of a bulk detokenize's event loop). Where a pair fails, the next `{{` is looked for as the regex would.
  const expressions: DetokenizationExpression[] = [];
  while (open >= 0) {
    let end = open + 2;
    let code = text.charCodeAt(end);
    while (end < text.length && code !== OPEN_BRACE && code !== CLOSE_BRACE) code = text.charCodeAt(++end);
    if (code === CLOSE_BRACE && text.charCodeAt(end + 1) === CLOSE_BRACE) {
      const inside = readInside(text.slice(open + 2, end));
      if (inside) expressions.push({ ...inside, start: open, end: end + 2 });
      open = text.indexOf('{{', end + 2);
    } else {
      // The run after `{{` did not end in `}}`. It holds no brace, so the next pair starts at the brace that ended it
      // at the earliest, or at this pair's second brace when the run was empty (`{{{…`).
      open = text.indexOf('{{', end === open + 2 ? open + 1 : end);
    }
  }
  if (expressions.length === 0) return NONE;
  const only = expressions.length === 1 ? expressions[0]! : undefined;
  const whole = only !== undefined && text.slice(0, only.start).trim() === '' && text.slice(only.end).trim() === '';
  return { expressions, whole };
}

/**
 * The text with each expression replaced by its value as text: a string as it is, `null` as nothing, anything else as
 * JSON. (A text that is exactly one expression is replaced by the value itself, not by this.)
 */
export function interpolate(text: string, read: ReadText, valueOf: (expression: DetokenizationExpression) => unknown): string {
  let out = '';
  let at = 0;
  for (const expression of read.expressions) {
    out += text.slice(at, expression.start) + asText(valueOf(expression));
    at = expression.end;
  }
  return out + text.slice(at);
}

export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return JSON.stringify(value);
}
