/**
 * Writing a JSON body out again after the proxy changed some of its values, without touching the rest: numbers keep
 * their digits (JSON.stringify would turn 12345678901234567891 into 12345678901234567000 and 1e400 into null),
 * whitespace, key order and string escapes stay as the caller sent them. Only the values that changed are written
 * anew, with JSON.stringify.
 */

/** Where one JSON value sits in its text; containers list their members. */
interface Span {
  readonly start: number;
  readonly end: number;
  readonly kind: 'object' | 'array' | 'scalar';
  readonly members: ReadonlyArray<{ readonly key?: string; readonly span: Span }>;
  /** An object at or below this one repeats a key. */
  readonly repeats: boolean;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const SCALAR_END = new Set([',', ']', '}', ' ', '\t', '\n', '\r']);

/** The spans of a text JSON.parse accepted (it is not checked again), nested as deep as the value (the proxy bounds it). */
function spansOf(text: string): Span {
  let i = 0;
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  const string = (): Span => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return { start, end: i, kind: 'scalar', members: [], repeats: false };
  };
  const container = (start: number, open: string, members: Array<{ key?: string; span: Span }>): Span => {
    const here = open === '{' && new Set(members.map((m) => m.key)).size < members.length;
    return { start, end: i, kind: open === '{' ? 'object' : 'array', members, repeats: here || members.some((m) => m.span.repeats) };
  };
  const value = (): Span => {
    skip();
    const start = i;
    const open = text[i];
    if (open === '{' || open === '[') {
      i++;
      const members: Array<{ key?: string; span: Span }> = [];
      skip();
      if (text[i] === '}' || text[i] === ']') {
        i++;
        return container(start, open, members);
      }
      for (;;) {
        let key: string | undefined;
        if (open === '{') {
          skip();
          const k = string();
          key = JSON.parse(text.slice(k.start, k.end)) as string;
          skip();
          i++; // :
        }
        members.push({ key, span: value() });
        skip();
        if (text[i++] !== ',') return container(start, open, members);
      }
    }
    if (open === '"') return string();
    while (i < text.length && !SCALAR_END.has(text[i]!)) i++;
    return { start, end: i, kind: 'scalar', members: [], repeats: false };
  };
  return value();
}

/**
 * How deep the text nests, counting every value written, also those JSON.parse drops (a repeated key's earlier values,
 * which a depth check of the parsed value never sees). Linear; strings skipped.
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `text` (which parsed to `before`) written out as `after`: every part of `after` equal to the same part of `before`
 * is copied from the text, the rest written with JSON.stringify. Members are matched by key or index; an object whose
 * keys changed is written whole. Every object with a repeated key, changed or not, is written once per key as
 * JSON.parse read it (its first place, its last value): what goes out is what was read, so a value JSON.parse dropped
 * (which a mask never saw, or a destination reading first values would take) never does. Called with `after` equal
 * to `before`, it gives the text back unless a key repeats.
 */
export function rewriteJsonText(text: string, before: unknown, after: unknown): string {
  const write = (span: Span, was: unknown, now: unknown): string => {
    if (was === now && !span.repeats && (span.kind === 'scalar' || typeof was === 'object')) return text.slice(span.start, span.end);
    if (span.kind === 'array' && Array.isArray(was) && Array.isArray(now) && now.length === span.members.length && was.length === now.length) {
      return join(span, span.members.map((m, index) => write(m.span, was[index], now[index])));
    }
    if (span.kind === 'object' && isObject(was) && isObject(now)) {
      // JSON.parse keeps a repeated key where it first appears, with the value it last had.
      const last = new Map<string, Span>();
      for (const m of span.members) last.set(m.key!, m.span);
      const same = Object.keys(now).length === last.size && [...last.keys()].every((k) => Object.hasOwn(now, k) && Object.hasOwn(was, k));
      if (same && last.size === span.members.length) return join(span, span.members.map((m) => write(m.span, was[m.key!], now[m.key!])));
      // Written once per key; the values are still written by member, so their numbers keep their digits.
      if (same) return `{${[...last].map(([k, at]) => `${JSON.stringify(k)}:${write(at, was[k], now[k])}`).join(',')}}`;
    }
    return JSON.stringify(now);
  };
  /** The container's text with each member's text replaced, separators and whitespace kept. */
  const join = (span: Span, written: readonly string[]): string => {
    let out = '';
    let at = span.start;
    span.members.forEach((m, index) => {
      out += text.slice(at, m.span.start) + written[index]!;
      at = m.span.end;
    });
    return out + text.slice(at, span.end);
  };
  const root = spansOf(text);
  return text.slice(0, root.start) + write(root, before, after) + text.slice(root.end);
}
