import fc from 'fast-check';
import { ValidationError } from '../shared/errors';
import { MAX_QUERY_LENGTH, parseTokenQuery } from './parse-query';
import type { TokenQuery } from './token-query';

/**
 * Property-based tests of the query parser, seeded and bounded so every run checks the same cases:
 * - any string either parses or is a 400 naming `query` with a position inside the query, never another exception;
 * - a query built from the grammar means exactly what it says: no term is silently dropped, and NOT, AND, OR and
 *   parentheses bind as documented.
 */
const SEED = 20261123;
const RUNS = 3000;

/** What an attacker or a careless caller types: operators, syntax characters, prototype names, odd unicode. */
const FRAGMENTS = [
  'constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'prototype', 'AND', 'OR', 'NOT', 'and', 'or',
  'not', 'TO', '!', '-', '+', '(', ')', '"', '\\', ':', '*', '?', '~', '^', '[', ']', '{', '}', '/', ' ', '  ', '\t',
  '\n', '&&', '||', 'id:', 'type:', 'data:', 'fingerprint:', 'container:', 'created_at:', 'modified_at:', 'metadata.',
  'metadata.k:', 'created_by:', 'x', '42', '2024-01-31', '2024-01-31T10:00:00Z', '/pci/', '/pci/*', '\u0000', '\ud800',
  '\udc00', '😀', 'é', '\u200b', '\ufeff',
];

const fragmentQuery = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 12 }).map((parts) => parts.join(''));
const anyQuery = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fragmentQuery, fc.string({ maxLength: 2100 }));

type Outcome = { readonly ok: TokenQuery } | { readonly error: unknown };

function attempt(query: string): Outcome {
  try {
    return { ok: parseTokenQuery(query) };
  } catch (error) {
    return { error };
  }
}

describe('parseTokenQuery, property-based', () => {
  it('parses any string or refuses it with a 400 that names the query and a position within it', () => {
    fc.assert(
      fc.property(anyQuery, (query) => {
        const outcome = attempt(query);
        if ('ok' in outcome) return;
        const { error } = outcome;
        expect(error).toBeInstanceOf(ValidationError);
        const messages = (error as ValidationError).errors.query;
        expect(messages).toHaveLength(1);
        const position = Number(/at position (\d+)$/.exec(messages![0]!)?.[1]);
        expect(position).toBeGreaterThanOrEqual(0);
        expect(position).toBeLessThanOrEqual(Math.max(query.length, MAX_QUERY_LENGTH));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  /** A boolean formula over numbered terms, rendered as query text with only the parentheses its meaning needs. */
  type Formula =
    | { readonly kind: 'leaf'; readonly n: number }
    | { readonly kind: 'and'; readonly left: Formula; readonly right: Formula; readonly juxtaposed: boolean }
    | { readonly kind: 'or'; readonly left: Formula; readonly right: Formula }
    | { readonly kind: 'not'; readonly item: Formula; readonly form: 'NOT ' | '!' | '-' }
    | { readonly kind: 'group'; readonly item: Formula };

  const formula: fc.Arbitrary<Formula> = fc.letrec<{ f: Formula }>((tie) => ({
    f: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.integer({ min: 0, max: 30 }).map((n): Formula => ({ kind: 'leaf', n })),
      fc.record({ kind: fc.constant('and' as const), left: tie('f'), right: tie('f'), juxtaposed: fc.boolean() }),
      fc.record({ kind: fc.constant('or' as const), left: tie('f'), right: tie('f') }),
      fc.record({ kind: fc.constant('not' as const), item: tie('f'), form: fc.constantFrom('NOT ' as const, '!' as const, '-' as const) }),
      fc.record({ kind: fc.constant('group' as const), item: tie('f') }),
    ),
  })).f;

  const precedence = (f: Formula): number => (f.kind === 'or' ? 1 : f.kind === 'and' ? 2 : 3);
  const wrap = (f: Formula, below: number): string => (precedence(f) < below ? `(${render(f)})` : render(f));

  function render(f: Formula): string {
    switch (f.kind) {
      case 'leaf':
        return `id:t${f.n}`;
      case 'group':
        return `(${render(f.item)})`;
      case 'not':
        return `${f.form}${wrap(f.item, 3)}`;
      case 'and':
        return `${wrap(f.left, 2)}${f.juxtaposed ? ' ' : ' AND '}${wrap(f.right, 2)}`;
      case 'or':
        return `${render(f.left)} OR ${render(f.right)}`;
    }
  }

  function truth(f: Formula, on: ReadonlySet<number>): boolean {
    switch (f.kind) {
      case 'leaf':
        return on.has(f.n);
      case 'group':
        return truth(f.item, on);
      case 'not':
        return !truth(f.item, on);
      case 'and':
        return truth(f.left, on) && truth(f.right, on);
      case 'or':
        return truth(f.left, on) || truth(f.right, on);
    }
  }

  function matches(q: TokenQuery, on: ReadonlySet<number>): boolean {
    switch (q.kind) {
      case 'term':
        return on.has(Number(q.value.slice(1)));
      case 'and':
        return q.items.every((item) => matches(item, on));
      case 'or':
        return q.items.some((item) => matches(item, on));
      case 'not':
        return !matches(q.item, on);
      default:
        throw new Error(`unexpected ${q.kind}`);
    }
  }

  const leaves = (f: Formula): number[] =>
    f.kind === 'leaf' ? [f.n] : f.kind === 'and' || f.kind === 'or' ? [...leaves(f.left), ...leaves(f.right)] : leaves(f.item);

  const terms = (q: TokenQuery): number[] =>
    q.kind === 'term' ? [Number(q.value.slice(1))] : q.kind === 'and' || q.kind === 'or' ? q.items.flatMap(terms) : q.kind === 'not' ? terms(q.item) : [];

  it('keeps every term of a grammatical query and gives it the meaning its operators say', () => {
    fc.assert(
      fc.property(formula, fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 31 }), (f, trueTerms) => {
        const text = render(f);
        fc.pre(text.length <= MAX_QUERY_LENGTH);
        const parsed = parseTokenQuery(text);
        expect(terms(parsed).sort((a, b) => a - b)).toEqual(leaves(f).sort((a, b) => a - b));
        const on = new Set(trueTerms);
        expect(matches(parsed, on)).toBe(truth(f, on));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('refuses a grammatical query with a stray operator or parenthesis inserted, never dropping it silently', () => {
    const stray = fc.constantFrom(' AND', ' OR', ' NOT', ' (', ' )', ' AND )', ' ( OR');
    fc.assert(
      fc.property(formula, stray, fc.boolean(), (f, junk, atStart) => {
        const text = atStart ? `${junk.trim()} ${render(f)}` : `${render(f)}${junk}`;
        fc.pre(text.length <= MAX_QUERY_LENGTH);
        // A leading NOT negates what follows; every other stray token must be refused.
        const completes = atStart && junk === ' NOT';
        if (completes) return;
        expect(() => parseTokenQuery(text)).toThrow(ValidationError);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
