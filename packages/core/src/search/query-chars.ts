/** Whitespace separating tokens. */
export const SPACE = /\s/;

/** True at the end of the query, on whitespace and on parentheses: where a word or a value may end. */
export function isDelimiter(query: string, index: number): boolean {
  const c = query[index];
  return c === undefined || c === '(' || c === ')' || SPACE.test(c);
}
