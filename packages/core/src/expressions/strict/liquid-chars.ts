/**
 * liquidjs's character classes (its generated TYPES table), for the few places the strict reader looks at
 * characters itself: it must agree with liquidjs on what a blank and what a word character is.
 */
const BLANK = /^[ \t\n\v\f\r\u00a0\u1680\u180e\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;

export function isBlankChar(char: string): boolean {
  return BLANK.test(char);
}

/** ASCII letters, digits, `_`, `-`, `?`; above ASCII, anything but a blank or a curly double quote. */
export function isWordChar(char: string): boolean {
  if (char === '') return false;
  if (char.charCodeAt(0) < 128) return /^[\w?-]$/.test(char);
  return !isBlankChar(char) && char !== '\u201c' && char !== '\u201d';
}
