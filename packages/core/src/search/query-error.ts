import { ValidationError } from '../shared/errors';

/**
 * A 400 on the `query` field whose message ends with the 0-based position in the query string, e.g.
 * "Unknown field 'foo' at position 0". Messages never quote values: a value may be token data.
 */
export function queryError(message: string, position: number): ValidationError {
  const text = `${message} at position ${position}`;
  return new ValidationError({ query: [text] }, text);
}

/** "Unexpected 'x' at position n" for a syntax character (never a value), or the end of the query. */
export function unexpected(query: string, position: number): ValidationError {
  // A whole code point: half of a surrogate pair would make the message itself ill-formed text.
  const code = query.codePointAt(position);
  const found = code === undefined ? undefined : String.fromCodePoint(code);
  return found === undefined
    ? queryError('Unexpected end of query', position)
    : queryError(`Unexpected '${found}'`, position);
}
