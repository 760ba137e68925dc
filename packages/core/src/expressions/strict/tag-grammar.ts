import type { ArgumentReader } from './argument-reader';

/**
 * The tags an expression may use, each with the strict grammar of its arguments. Every other liquidjs tag
 * is removed from the engine, so it is a parse error:
 * - include, render, layout: they read other templates (files);
 * - block: only means something inside a layout;
 * - liquid: its body is a second syntax (one tag per line) that would need its own strict reader;
 * - cycle: it skips whatever stands between its values (`readTo(',')`) and keeps state across renders;
 * - tablerow: builds HTML tables, of no use in an id, mask, fingerprint or index, and is one more loop.
 */
export const ALLOWED_TAGS = [
  'if', 'elsif', 'else', 'endif',
  'unless', 'endunless',
  'for', 'endfor', 'break', 'continue',
  'case', 'when', 'endcase',
  'capture', 'endcapture',
  'assign', 'echo', 'increment', 'decrement',
  'comment', 'endcomment', 'raw', 'endraw', '#',
] as const;

export type AllowedTag = (typeof ALLOWED_TAGS)[number];

/** The names liquidjs registers tag classes under (the rest are read by their opening tag). */
export const TAG_CLASSES = ['if', 'unless', 'for', 'break', 'continue', 'case', 'capture', 'assign', 'echo', 'increment', 'decrement', 'comment', 'raw', '#'] as const;

const FOR_MODIFIERS = ['limit', 'offset', 'reversed'];

function nothing(reader: ArgumentReader): void {
  reader.expectEnd();
}

function condition(reader: ArgumentReader): void {
  reader.filteredValue();
}

function assign(reader: ArgumentReader): void {
  reader.identifier('a variable name');
  reader.expect('=', "'='");
  reader.filteredValue();
}

function variableName(reader: ArgumentReader): void {
  reader.identifier('a variable name');
  reader.expectEnd();
}

/** `capture name` or `capture 'name'`, as liquidjs's CaptureTag.readVariable. */
function capture(reader: ArgumentReader): void {
  if (reader.peek() === "'" || reader.peek() === '"') reader.quoted();
  else reader.identifier('a variable name');
  reader.expectEnd();
}

/** `for name in collection` then `limit: n`, `offset: n`, `reversed`, each at most once, blank- or comma-separated. */
function forLoop(reader: ArgumentReader): void {
  reader.identifier('a variable name');
  if (!reader.acceptWord('in')) throw reader.syntax(`expected 'in'`);
  reader.value("'in'");
  const seen = new Set<string>();
  while (!reader.atEnd()) {
    if (seen.size > 0) reader.accept(',');
    const at = reader.position();
    const modifier = reader.identifier('limit:, offset: or reversed');
    if (!FOR_MODIFIERS.includes(modifier)) throw reader.syntax(`unknown for-loop option '${modifier}'`, at);
    if (seen.has(modifier)) throw reader.syntax(`'${modifier}' is given twice`, at);
    seen.add(modifier);
    if (modifier === 'reversed') continue;
    reader.expect(':', `':' after '${modifier}'`);
    reader.value(`'${modifier}:'`);
  }
}

/** `when a, b or c`: values separated by `,` or `or`, nothing else (liquidjs skips ahead to the next `,`/`or`). */
function when(reader: ArgumentReader): void {
  reader.value();
  while (!reader.atEnd()) {
    if (!reader.accept(',') && !reader.acceptWord('or')) throw reader.unexpected();
    reader.value("',' or 'or'");
  }
}

/** `echo value | filters`; an empty `echo` prints nothing and is refused as the typo it likely is. */
function echo(reader: ArgumentReader): void {
  reader.filteredValue();
}

/** An inline comment: its text is free, and liquidjs already requires each of its lines to start with `#`. */
function inlineComment(): void {}

export const TAG_ARGUMENTS: Readonly<Record<AllowedTag, (reader: ArgumentReader) => void>> = {
  if: condition,
  elsif: condition,
  else: nothing,
  endif: nothing,
  unless: condition,
  endunless: nothing,
  for: forLoop,
  endfor: nothing,
  break: nothing,
  continue: nothing,
  case: condition,
  when,
  endcase: nothing,
  capture,
  endcapture: nothing,
  assign,
  echo,
  increment: variableName,
  decrement: variableName,
  comment: nothing,
  endcomment: nothing,
  raw: nothing,
  endraw: nothing,
  '#': inlineComment,
};

export function isAllowedTag(name: string): name is AllowedTag {
  return (ALLOWED_TAGS as readonly string[]).includes(name);
}
