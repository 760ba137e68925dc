import { ExpressionError } from '../expressions/expression-error';

/**
 * The JSONPath subset of proxy transforms (`tokenize` and `mask` matchers, beyond.md §7): `$`, `.name`, `['name']`,
 * `[n]`, `[*]`, `.*`, and recursive descent (`..name`, `..*`, `..['name']`, `..[n]`, `..[*]`). No filters, slices,
 * unions or scripts: what a matcher costs is bounded by its segments times the document's nodes, and it runs no code.
 */
export const MAX_JSON_MATCHER_LENGTH = 500;
export const MAX_JSON_MATCHER_SEGMENTS = 20;
/** The most values one matcher may select in one document: past it matching fails rather than build huge answers. */
export const MAX_JSON_MATCHES = 10_000;
/** The deepest a selected value may lie (keys and indexes from the root), which bounds each path matchJson returns. */
export const MAX_JSON_MATCH_DEPTH = 100;

/** What one segment picks among the children of a node: an object member, an array element, or every child. */
export type JsonSelector =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' };

/** One segment: the selector applied to the current nodes' children, or (`descendant`) to those of their subtrees. */
export interface JsonSegment {
  readonly descendant: boolean;
  readonly selector: JsonSelector;
}

/** A parsed matcher; `segments` empty means the root itself. */
export interface JsonMatcher {
  readonly path: string;
  readonly segments: readonly JsonSegment[];
}

/** Where a value lies: object keys (strings) and array indexes (numbers) from the root. */
export type JsonPath = ReadonlyArray<string | number>;

const SUPPORTED = "use $, .name, ['name'], [0], [*], .*, ..name or ..*";
const NAME_START = /[A-Za-z_$]/;
const NAME_CHAR = /[\w$-]/;
const ESCAPES: ReadonlyMap<string, string> = new Map([
  ["'", "'"], ['"', '"'], ['\\', '\\'], ['/', '/'], ['b', '\b'], ['f', '\f'], ['n', '\n'], ['r', '\r'], ['t', '\t'],
]);

function refuse(reason: string, position?: number): never {
  const where = position === undefined ? '' : ` at position ${position}`;
  throw new ExpressionError(`Invalid JSONPath matcher${where}: ${reason}.`);
}

/**
 * Parses a matcher path.
 * @throws ExpressionError naming the problem (and its 0-based position) when the path is not in the supported subset.
 */
export function parseJsonMatcher(path: string): JsonMatcher {
  if (path.length > MAX_JSON_MATCHER_LENGTH) refuse(`it may be at most ${MAX_JSON_MATCHER_LENGTH} characters`);
  if (path[0] !== '$') refuse('it must start with $');
  const segments: JsonSegment[] = [];
  let at = 1;
  while (at < path.length) {
    const descendant = path.startsWith('..', at);
    let parsed: { readonly selector: JsonSelector; readonly next: number };
    if (descendant) parsed = path[at + 2] === '[' ? bracket(path, at + 2) : dotted(path, at + 2, '..');
    else if (path[at] === '.') parsed = dotted(path, at + 1, '.');
    else if (path[at] === '[') parsed = bracket(path, at);
    else refuse(`expected ., .. or [ (${SUPPORTED})`, at);
    segments.push({ descendant, selector: parsed.selector });
    if (segments.length > MAX_JSON_MATCHER_SEGMENTS) refuse(`it may have at most ${MAX_JSON_MATCHER_SEGMENTS} segments`);
    at = parsed.next;
  }
  return { path, segments };
}

/** A member name or `*` after `.` or `..`. */
function dotted(path: string, at: number, after: string): { selector: JsonSelector; next: number } {
  if (path[at] === '*') return { selector: { kind: 'wildcard' }, next: at + 1 };
  if (!NAME_START.test(path[at] ?? '')) {
    refuse(`expected a member name or * after ${after} (a name with other characters goes in brackets: ['a b'])`, at);
  }
  let end = at + 1;
  while (end < path.length && NAME_CHAR.test(path[end]!)) end += 1;
  return { selector: { kind: 'name', name: path.slice(at, end) }, next: end };
}

/** `[*]`, `[n]` or a quoted name, `path[at]` being `[`. */
function bracket(path: string, at: number): { selector: JsonSelector; next: number } {
  const start = at + 1;
  const first = path[start];
  let selector: JsonSelector;
  let end: number;
  if (first === '*') {
    selector = { kind: 'wildcard' };
    end = start + 1;
  } else if (first === "'" || first === '"') {
    const quoted = quotedName(path, start);
    selector = { kind: 'name', name: quoted.name };
    end = quoted.next;
  } else if (first !== undefined && first >= '0' && first <= '9') {
    end = start;
    while (end < path.length && path[end]! >= '0' && path[end]! <= '9') end += 1;
    if (end - start > 9) refuse('an index may have at most 9 digits', start);
    selector = { kind: 'index', index: Number(path.slice(start, end)) };
  } else {
    refuse(unsupportedInBracket(first), start);
  }
  const close = path[end];
  if (close === ']') return { selector, next: end + 1 };
  if (close === ',') refuse('unions ([a,b]) are not supported', end);
  if (close === ':') refuse('slices ([a:b]) are not supported', end);
  return refuse('expected ]', end);
}

function unsupportedInBracket(first: string | undefined): string {
  switch (first) {
    case '?':
      return 'filter expressions ([?...]) are not supported';
    case '(':
      return 'script expressions ([(...)]) are not supported';
    case '-':
      return 'negative indexes are not supported';
    case ':':
      return 'slices ([a:b]) are not supported';
    default:
      return `expected *, an index or a quoted name after [ (${SUPPORTED})`;
  }
}

/** A name in single or double quotes with backslash escapes (\\, \', \", \/, \b, \f, \n, \r, \t, \uXXXX). */
function quotedName(path: string, start: number): { name: string; next: number } {
  const quote = path[start];
  let name = '';
  let at = start + 1;
  while (at < path.length && path[at] !== quote) {
    const char = path[at]!;
    if (char !== '\\') {
      name += char;
      at += 1;
      continue;
    }
    const escaped = path[at + 1] ?? '';
    const hex = path.slice(at + 2, at + 6);
    if (escaped === 'u' && /^[0-9A-Fa-f]{4}$/.test(hex)) {
      name += String.fromCharCode(parseInt(hex, 16));
      at += 6;
    } else if (ESCAPES.has(escaped)) {
      name += ESCAPES.get(escaped);
      at += 2;
    } else {
      refuse('invalid escape sequence in a quoted name', at);
    }
  }
  if (at >= path.length) refuse('unterminated quoted name', start);
  return { name, next: at + 1 };
}

/**
 * The document flattened in document order (pre-order; an object's members in the order the parsed object holds its
 * keys, which puts integer-like keys first). Node `i`'s subtree is `[i, ends[i])`, so its first child is `i + 1` and
 * the sibling after child `c` is `ends[c]`. Built without recursion: JSON.parse accepts bodies nested a million deep.
 */
interface NodeTable {
  readonly values: unknown[];
  readonly parents: number[];
  readonly keys: Array<string | number>;
  readonly depths: number[];
  readonly ends: number[];
}

const ROOT_KEY = '';

function flatten(root: unknown): NodeTable {
  const table: NodeTable = { values: [], parents: [], keys: [], depths: [], ends: [] };
  const stack: Array<{ readonly value: unknown; readonly parent: number; readonly key: string | number }> = [
    { value: root, parent: -1, key: ROOT_KEY },
  ];
  while (stack.length > 0) {
    const { value, parent, key } = stack.pop()!;
    const index = table.values.length;
    table.values.push(value);
    table.parents.push(parent);
    table.keys.push(key);
    table.depths.push(parent < 0 ? 0 : table.depths[parent]! + 1);
    table.ends.push(index + 1);
    if (Array.isArray(value)) {
      for (let at = value.length - 1; at >= 0; at -= 1) stack.push({ value: value[at], parent: index, key: at });
    } else if (isObject(value)) {
      const names = Object.keys(value);
      for (let at = names.length - 1; at >= 0; at -= 1) stack.push({ value: value[names[at]!], parent: index, key: names[at]! });
    }
  }
  // Children come after their parent, so walking backwards settles each subtree's end before its parent reads it.
  for (let index = table.values.length - 1; index > 0; index -= 1) {
    const parent = table.parents[index]!;
    table.ends[parent] = Math.max(table.ends[parent]!, table.ends[index]!);
  }
  return table;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Marks the children of `node` that `selector` picks. */
function markChildren(table: NodeTable, node: number, selector: JsonSelector, marks: Uint8Array): void {
  const value = table.values[node];
  if (selector.kind === 'name' && !isObject(value)) return;
  if (selector.kind === 'index' && !Array.isArray(value)) return;
  for (let child = node + 1; child < table.ends[node]!; child = table.ends[child]!) {
    if (selector.kind === 'wildcard' || table.keys[child] === (selector.kind === 'name' ? selector.name : selector.index)) {
      marks[child] = 1;
    }
  }
}

/** The marked nodes, in document order. */
function sweep(marks: Uint8Array): number[] {
  const nodes: number[] = [];
  for (let index = 0; index < marks.length; index += 1) if (marks[index] === 1) nodes.push(index);
  return nodes;
}

/** Every node of the subtrees rooted at `nodes` (themselves included), each once, in document order. */
function subtrees(table: NodeTable, nodes: readonly number[]): number[] {
  const covered: number[] = [];
  let next = 0;
  let coverEnd = 0;
  for (let index = nodes[0] ?? table.values.length; index < table.values.length; index += 1) {
    if (nodes[next] === index) {
      coverEnd = Math.max(coverEnd, table.ends[index]!);
      next += 1;
    }
    if (index < coverEnd) covered.push(index);
    else if (next >= nodes.length) break;
  }
  return covered;
}

function pathOf(table: NodeTable, node: number): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at = node; at > 0; at = table.parents[at]!) path.push(table.keys[at]!);
  return path.reverse();
}

/**
 * The paths of the values `matcher` selects in `value` (a parsed JSON document), each once, in document order. Each
 * segment costs at most one pass over the document, whatever the selection before it: recursive descent gathers the
 * distinct nodes under the current ones rather than one walk per node, so `$..*..*..*` stays linear.
 * @throws ExpressionError when more than MAX_JSON_MATCHES values, or one deeper than MAX_JSON_MATCH_DEPTH, is selected.
 */
export function matchJson(value: unknown, matcher: JsonMatcher): JsonPath[] {
  if (matcher.segments.length === 0) return [[]];
  const table = flatten(value);
  let current: number[] = [0];
  for (const segment of matcher.segments) {
    const from = segment.descendant ? subtrees(table, current) : current;
    const marks = new Uint8Array(table.values.length);
    for (const node of from) markChildren(table, node, segment.selector, marks);
    current = sweep(marks);
    if (current.length === 0) return [];
  }
  if (current.length > MAX_JSON_MATCHES) {
    throw new ExpressionError(`The JSONPath matcher selects more than ${MAX_JSON_MATCHES} values.`);
  }
  if (current.some((node) => table.depths[node]! > MAX_JSON_MATCH_DEPTH)) {
    throw new ExpressionError(`The JSONPath matcher selects a value nested deeper than ${MAX_JSON_MATCH_DEPTH} levels.`);
  }
  return current.map((node) => pathOf(table, node));
}

/** The value at `path` in `value`, or undefined when there is none (only own members and array elements count). */
export function jsonValueAt(value: unknown, path: JsonPath): unknown {
  let current = value;
  for (const key of path) {
    if (!hasChild(current, key)) return undefined;
    current = childOf(current, key);
  }
  return current;
}

function hasChild(container: unknown, key: string | number): boolean {
  if (Array.isArray(container)) return typeof key === 'number' && Number.isInteger(key) && key >= 0 && key < container.length;
  return isObject(container) && typeof key === 'string' && Object.prototype.hasOwnProperty.call(container, key);
}

function childOf(container: unknown, key: string | number): unknown {
  return (container as Record<string | number, unknown>)[key];
}

/** Sets an own data property, so that a key such as `__proto__` stays an ordinary key and never a prototype. */
function setChild(container: unknown[] | Record<string, unknown>, key: string | number, child: unknown): void {
  Object.defineProperty(container, key, { value: child, writable: true, enumerable: true, configurable: true });
}

function shallowCopy(container: unknown[] | Record<string, unknown>): unknown[] | Record<string, unknown> {
  if (Array.isArray(container)) return container.slice();
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(container)) setChild(copy, key, container[key]);
  return copy;
}

interface PathTrie {
  readonly children: Map<string | number, PathTrie>;
  path?: JsonPath;
}

function trieOf(paths: readonly JsonPath[]): PathTrie {
  const root: PathTrie = { children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const key of path) {
      let child = node.children.get(key);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
    node.path ??= path;
  }
  return root;
}

/**
 * A copy of `value` in which the value at each of `paths` is what `replace` returns for it. The input is not mutated;
 * only the objects and arrays on the way to a replaced value are copied (keeping their key order), the rest is shared.
 * A path that leads to no value is ignored and one given twice is replaced once. When a path and one below it are
 * both given, the deeper one is replaced first and `replace` for the outer one receives the value holding it:
 * `replace` is called children before parents, siblings in the order `paths` first names them.
 */
export function replaceJson(
  value: unknown,
  paths: readonly JsonPath[],
  replace: (current: unknown, path: JsonPath) => unknown,
): unknown {
  if (paths.length === 0) return value;
  interface Frame {
    readonly source: unknown;
    readonly node: PathTrie;
    readonly key: string | number;
    readonly copy: unknown[] | Record<string, unknown> | undefined;
    readonly pending: Iterator<[string | number, PathTrie]>;
  }
  const frameOf = (source: unknown, node: PathTrie, key: string | number): Frame => ({
    source,
    node,
    key,
    copy: node.children.size > 0 && (Array.isArray(source) || isObject(source)) ? shallowCopy(source) : undefined,
    pending: node.children.entries(),
  });
  // An explicit stack: paths may be as deep as the document, deeper than the call stack allows.
  const stack: Frame[] = [frameOf(value, trieOf(paths), ROOT_KEY)];
  for (;;) {
    const top = stack[stack.length - 1]!;
    const next = top.pending.next();
    if (!next.done) {
      const [key, child] = next.value;
      if (top.copy !== undefined && hasChild(top.source, key)) stack.push(frameOf(childOf(top.source, key), child, key));
      continue;
    }
    stack.pop();
    const built = top.copy ?? top.source;
    const result = top.node.path === undefined ? built : replace(built, top.node.path);
    const parent = stack[stack.length - 1];
    if (parent === undefined) return result;
    setChild(parent.copy!, top.key, result);
  }
}
