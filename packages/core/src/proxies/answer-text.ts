/**
 * What a proxy's masks read: the destination's answer as text. Masks fail closed, so an answer they might read
 * differently from whoever receives it is unreadable: one declared in another charset (UTF-16 text is valid UTF-8 byte
 * by byte, NULs and all, so a card number in it would pass a mask unseen), one that is not UTF-8, and one holding NUL
 * bytes (UTF-16 or UTF-32 text sent without a charset, or binary data).
 */

/** Charsets whose text is read byte for byte as UTF-8 (US-ASCII is a subset; `utf8` is how WHATWG reads it too). */
const READABLE_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** Every `charset` parameter of the Content-Type value(s), quoted or not, lower case. */
function charsets(contentType: string | readonly string[] | undefined): string[] {
  const values = contentType === undefined ? [] : typeof contentType === 'string' ? [contentType] : contentType;
  const out: string[] = [];
  for (const value of values) {
    for (const match of value.matchAll(/(?:^|[;,\s])charset\s*=\s*("((?:[^"\\]|\\.)*)"|[^;,\s]*)/gi)) {
      out.push((match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[1]!).trim().toLowerCase());
    }
  }
  return out;
}

/** Why the masks cannot read an answer of this Content-Type, or undefined when they can. */
export function unreadableCharset(contentType: string | readonly string[] | undefined): string | undefined {
  const declared = charsets(contentType).find((c) => !READABLE_CHARSETS.has(c));
  return declared === undefined ? undefined : 'The destination’s answer is in a charset other than UTF-8; the proxy’s masks cannot read it.';
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The answer's text, or undefined when it is not UTF-8, or holds a NUL byte. */
export function answerText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
