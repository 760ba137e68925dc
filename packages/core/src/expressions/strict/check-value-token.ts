import { TypeGuards, type PropertyAccessToken, type Token } from 'liquidjs';
import { describeAt, ExpressionSyntaxError } from './expression-syntax-error';
import { isBlankChar } from './liquid-chars';

/**
 * Checks that a value token liquidjs's Tokenizer.readValue returned covers its text exactly. readValue is
 * lenient inside a value: it accepts a string with no closing quote, skips whatever stands between a
 * bracketed key and the next `]` (`data[0 junk]`), and swallows a trailing `.` (`data.`). Each of those
 * would leave part of the template unread, so each is refused here.
 *
 * Returns the value's size in items: 1, plus one per property read and per nested value.
 */
export function checkValueToken(token: Token, input: string): number {
  if (TypeGuards.isQuotedToken(token)) return checkQuoted(token, input);
  if (TypeGuards.isNumberToken(token) || TypeGuards.isLiteralToken(token)) return 1;
  if (TypeGuards.isRangeToken(token)) return 1 + checkValueToken(token.lhs, input) + checkValueToken(token.rhs, input);
  if (TypeGuards.isPropertyAccessToken(token)) return checkPropertyAccess(token, input);
  // Grouped expressions are off, so readValue returns nothing else; anything new is refused, not trusted.
  throw new ExpressionSyntaxError('unsupported value', input, token.begin);
}

/** readQuoted's own loop: the string is closed when an unescaped quote like the opening one ends it. */
function checkQuoted(token: Token, input: string): number {
  const text = token.getText();
  const quote = text[0];
  let escaped = false;
  for (let i = 1; i < text.length; i++) {
    const char = text[i];
    if (char === quote && !escaped) return 1;
    escaped = !escaped && char === '\\';
  }
  throw new ExpressionSyntaxError('a quoted string is not closed', input, token.begin);
}

/**
 * Walks `variable.name[key].other` from the token's start and requires each property to sit where it
 * should: a name right after its `.`, a bracketed key followed (after blanks) by its `]`, and nothing left
 * over at the end.
 */
function checkPropertyAccess(token: PropertyAccessToken, input: string): number {
  let at = token.begin;
  let items = 1;
  if (token.variable) {
    items += checkValueToken(token.variable, input);
    at = token.variable.end;
  }
  token.props.forEach((prop, index) => {
    const bare = index === 0 && !token.variable;
    if (TypeGuards.isWordToken(prop)) {
      const start = bare ? at : at + 1;
      if ((!bare && input[at] !== '.') || prop.begin !== start || prop.size() === 0) {
        throw new ExpressionSyntaxError(`expected a property name but found ${describeAt(input, start, token.end)}`, input, start);
      }
      at = prop.end;
      items++;
      return;
    }
    if (input[at] !== '[') throw new ExpressionSyntaxError(`unexpected ${describeAt(input, at, token.end)}`, input, at);
    items += checkValueToken(prop, input);
    let close = prop.end;
    while (isBlankChar(input.charAt(close))) close++;
    if (input[close] !== ']') throw new ExpressionSyntaxError(`expected ']' but found ${describeAt(input, close, token.end)}`, input, close);
    at = close + 1;
  });
  if (at !== token.end) throw new ExpressionSyntaxError(`expected a property name but found ${describeAt(input, at, token.end)}`, input, at);
  return items;
}
