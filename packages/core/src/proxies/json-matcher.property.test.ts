import fc from 'fast-check';
import { ExpressionError } from '../expressions/expression-error';
import { type JsonPath, type JsonSegment, type JsonSelector, matchJson, parseJsonMatcher, replaceJson } from './json-matcher';

/**
 * Property-based tests of JSON matchers, seeded and bounded so every run checks the same cases:
 * - any string either parses or is refused with an ExpressionError, never another exception;
 * - a path built from the grammar, in any of its spellings, parses to the segments it was built from;
 * - matchJson selects what a plain reading of JSONPath selects (every route through recursive descent followed,
 *   duplicates then removed and the rest put in document order), on documents holding prototype names as keys;
 * - replaceJson changes exactly the selected values, inner ones first, and never the input.
 */
const SEED = 20261125;
const RUNS = 1500;

const FRAGMENTS = [
  '$', '.', '..', '[', ']', '*', "'", '"', '\\', '0', '7', '1234567890', 'a', 'name', '-', '?', '(', ')', '@', ':', ',', ' ',
  '__proto__', 'constructor', '😀', '\\u00e9', '\\u', '\\n', '\ud800',
];
const fragmentPath = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 12 }).map((parts) => parts.join(''));
const anyPath = fc.oneof(fragmentPath, fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 520 }));

/** Member names: identifiers, prototype names, ones that need quoting or escaping, and integer-like ones. */
const KEYS = ['a', 'b', 'c', 'x_1', '$', 'a-b', '0', '1', '__proto__', 'constructor', 'toString', 'a b', "it's", 'say "hi"', 'back\\', 'é', '😀', ''];
/** Mostly a few common keys, so that paths and documents meet often. */
const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('a', 'b', '__proto__') }, { weight: 2, arbitrary: fc.constantFrom(...KEYS) });

describe('parseJsonMatcher and matchJson, property-based', () => {
  it('parses any string or refuses it with an ExpressionError', () => {
    fc.assert(
      fc.property(anyPath, (path) => {
        try {
          parseJsonMatcher(path);
        } catch (error) {
          expect(error).toBeInstanceOf(ExpressionError);
          expect((error as Error).message).toMatch(/^Invalid JSONPath matcher/);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  const selector: fc.Arbitrary<JsonSelector> = fc.oneof(
    { weight: 3, arbitrary: key.map((name): JsonSelector => ({ kind: 'name', name })) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 3 }).map((index): JsonSelector => ({ kind: 'index', index })) },
    { weight: 3, arbitrary: fc.constant<JsonSelector>({ kind: 'wildcard' }) },
  );
  const segment = fc.record({ descendant: fc.boolean(), selector });
  const segments = fc.array(segment, { maxLength: 4 });

  /** One of the spellings of a segment: dotted when the name allows it, or bracketed in either quote. */
  function spell(s: JsonSegment, style: number): string {
    const dots = s.descendant ? '..' : '.';
    const open = s.descendant ? '..[' : '[';
    switch (s.selector.kind) {
      case 'wildcard':
        return style % 2 === 0 ? `${dots}*` : `${open}*]`;
      case 'index':
        return `${open}${s.selector.index}]`;
      case 'name': {
        const name = s.selector.name;
        if (style % 3 === 0 && /^[A-Za-z_$][\w$-]*$/.test(name)) return `${dots}${name}`;
        const quote = style % 3 === 1 ? "'" : '"';
        const escaped = name
          .split('') // UTF-16 units: an astral character is escaped as its two halves
          .map((char) => {
            if (char === quote || char === '\\') return `\\${char}`;
            return style % 5 === 0 ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : char;
          })
          .join('');
        return `${open}${quote}${escaped}${quote}]`;
      }
    }
  }

  const styles = fc.array(fc.nat(29), { minLength: 20, maxLength: 20 });
  const spellAll = (parts: readonly JsonSegment[], style: readonly number[]): string =>
    `$${parts.map((part, i) => spell(part, style[i]!)).join('')}`;
  const spelled = fc.tuple(segments, styles).map(([parts, style]) => ({ parts, path: spellAll(parts, style) }));

  it('parses every spelling of a grammatical path to the segments it was built from', () => {
    fc.assert(
      fc.property(spelled, ({ parts, path }) => {
        expect(parseJsonMatcher(path)).toEqual({ path, segments: parts });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  /** Small JSON documents with the keys above, written as JSON text and parsed, so __proto__ is an own key. */
  const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'medium', maxDepth: 5 },
      { weight: 2, arbitrary: fc.constantFrom('null', 'true', '0', '4242', '"x"', '"4242424242424242"') },
      { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`) },
      {
        weight: 3,
        arbitrary: fc
          .uniqueArray(fc.tuple(key, tie('value')), { minLength: 1, maxLength: 3, selector: ([name]) => name })
          .map((members) => `{${members.map(([name, item]) => `${JSON.stringify(name)}:${item}`).join(',')}}`),
      },
    ),
  })).value;

  /**
   * A document with a path made from the route to one of its values, each step kept, widened to a wildcard, or
   * folded into a recursive descent, so that the path selects that value at least (and often others).
   */
  const documentAndPath = jsonText.chain((text) => {
    const routes = descendantsOrSelf({ value: JSON.parse(text), path: [] }).map((node) => node.path);
    const choices = fc.array(fc.nat(4), { minLength: 20, maxLength: 20 });
    return fc.tuple(fc.constantFrom(...routes), choices, styles).map(([route, choice, style]) => {
      const parts: JsonSegment[] = [];
      let descend = false;
      route.forEach((step, i) => {
        if (choice[i] === 3 && i < route.length - 1) {
          descend = true; // skipped: the next step is looked for anywhere below
          return;
        }
        const exact: JsonSelector = typeof step === 'number' ? { kind: 'index', index: step } : { kind: 'name', name: step };
        parts.push({ descendant: descend || choice[i] === 4, selector: choice[i] === 2 ? { kind: 'wildcard' } : exact });
        descend = false;
      });
      return { text, parts, path: spellAll(parts, style) };
    });
  });
  const anyDocumentAndPath = fc.oneof(documentAndPath, fc.tuple(jsonText, spelled).map(([text, spelling]) => ({ text, ...spelling })));

  interface Located {
    readonly value: unknown;
    readonly path: JsonPath;
  }

  function children(node: Located): Located[] {
    const { value, path } = node;
    if (Array.isArray(value)) return value.map((item, index) => ({ value: item, path: [...path, index] }));
    if (typeof value === 'object' && value !== null) {
      return Object.keys(value).map((key) => ({ value: (value as Record<string, unknown>)[key], path: [...path, key] }));
    }
    return [];
  }

  function descendantsOrSelf(node: Located): Located[] {
    return [node, ...children(node).flatMap(descendantsOrSelf)];
  }

  function selects(child: Located, parent: Located, s: JsonSelector): boolean {
    const key = child.path[child.path.length - 1];
    if (s.kind === 'wildcard') return true;
    if (s.kind === 'index') return Array.isArray(parent.value) && key === s.index;
    return !Array.isArray(parent.value) && key === s.name;
  }

  /** JSONPath read plainly: every route followed (duplicates and all), then each node once, in document order. */
  function reference(value: unknown, parts: readonly JsonSegment[]): JsonPath[] {
    let nodes: Located[] = [{ value, path: [] }];
    for (const part of parts) {
      const from = part.descendant ? nodes.flatMap(descendantsOrSelf) : nodes;
      nodes = from.flatMap((parent) => children(parent).filter((child) => selects(child, parent, part.selector)));
    }
    const order = new Map(descendantsOrSelf({ value, path: [] }).map((node, index) => [JSON.stringify(node.path), index]));
    const unique = new Map(nodes.map((node) => [JSON.stringify(node.path), node.path]));
    return [...unique.entries()].sort(([a], [b]) => order.get(a)! - order.get(b)!).map(([, path]) => path);
  }

  it('selects what a plain reading of the path selects, each value once, in document order', () => {
    fc.assert(
      fc.property(anyDocumentAndPath, ({ text, parts, path }) => {
        const value: unknown = JSON.parse(text);
        expect(matchJson(value, parseJsonMatcher(path))).toEqual(reference(value, parts));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  function setAt(root: unknown, path: JsonPath, replacement: unknown): unknown {
    if (path.length === 0) return replacement;
    let container = root as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) container = container[key] as Record<string | number, unknown>;
    Object.defineProperty(container, path[path.length - 1]!, { value: replacement, writable: true, enumerable: true, configurable: true });
    return root;
  }

  function getAt(root: unknown, path: JsonPath): unknown {
    return path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], root);
  }

  it('replaces exactly the selected values, inner ones first, without touching the input', () => {
    fc.assert(
      fc.property(anyDocumentAndPath, ({ text, path }) => {
        const value: unknown = JSON.parse(text);
        const paths = matchJson(value, parseJsonMatcher(path));
        const seen: string[] = [];
        const replace = (current: unknown, at: JsonPath): unknown => {
          seen.push(JSON.stringify(at));
          return { was: JSON.stringify(current), at };
        };
        const result = replaceJson(value, paths, replace);

        // The input is as it was, the calls came once per path, and no path was called before one below it.
        expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(text)));
        expect([...seen].sort()).toEqual(paths.map((p) => JSON.stringify(p)).sort());
        for (const [later, outer] of paths.entries()) {
          for (const inner of paths.slice(later + 1)) {
            const below = inner.length > outer.length && outer.every((key, i) => inner[i] === key);
            if (below) expect(seen.indexOf(JSON.stringify(inner))).toBeLessThan(seen.indexOf(JSON.stringify(outer)));
          }
        }

        // The same replacements made deepest first on a fresh copy give the same document, keys in the same order.
        let expected: unknown = JSON.parse(text);
        for (const at of [...paths].sort((a, b) => b.length - a.length)) {
          expected = setAt(expected, at, { was: JSON.stringify(getAt(expected, at)), at });
        }
        expect(JSON.stringify(result)).toBe(JSON.stringify(expected));
        expect(({} as Record<string, unknown>).was).toBeUndefined(); // nothing reached Object.prototype
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
