import fc from 'fast-check';
import { ExpressionError } from '../expressions/expression-error';
import { type CompiledMask, compileMask, MAX_MASK_EXPRESSION_LENGTH, maskText } from './mask';

/**
 * Property-based tests of mask expressions, seeded and bounded so every run checks the same cases:
 * - any string either compiles or is refused with an ExpressionError, never another exception;
 * - masking with any expression that compiles never throws and ends, on any text (astral characters, lone surrogates),
 *   and a maxLength refuses exactly the results longer than it;
 * - a literal expression masks exactly what String.prototype.replaceAll replaces;
 * - on expressions RE2 and JavaScript's RegExp read alike, masking replaces exactly the non-empty matches RegExp finds.
 */
const SEED = 20261124;
const RUNS = 1500;

/** Regular-expression syntax, the features RE2 leaves out, and text that makes backtracking engines slow. */
const FRAGMENTS = [
  '(', ')', '(?:', '(?i)', '(?s)', '(?m)', '(?P<n>', '(?<n>', '(?=', '(?!', '(?<=', '(?<!', '\\1', '\\k<n>', '[', ']', '[^',
  '-', '{', '}', '{2}', '{1,3}', '{0,}', '{1001}', '*', '+', '?', '*?', '+?', '|', '^', '$', '.', '\\', '\\d', '\\w', '\\s',
  '\\b', '\\B', '\\pL', '\\p{Greek}', '\\x{1F600}', '\\Q', '\\E', '\\z', '\\A', 'a', 'b', 'x', '0', '9', '😀', 'é', '\ud800',
  '(a+)+', '(a|aa)*', '.*.*', '[[:alpha:]]', '\\n', ' ',
];
const TEXT_FRAGMENTS = ['a', 'aa', 'b', 'x', ' ', '\n', '0', '42', '😀', '👍🏽', 'é', 'É', 'Ω', '\ud800', '\udc00', '$1', '$&', '-'];

const fragmentExpression = fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 10 }).map((parts) => parts.join(''));
const anyExpression = fc.oneof(fragmentExpression, fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ maxLength: 1100 }));
const anyText = fc.oneof(
  fc.array(fc.constantFrom(...TEXT_FRAGMENTS), { maxLength: 40 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 60 }),
);
const replacement = fc.oneof(fc.constantFrom('#', '', '$1', '$&', '***', '😀'), fc.string({ maxLength: 5 }));

function compiled(expression: string): CompiledMask | undefined {
  try {
    return compileMask(expression);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return undefined;
  }
}

/** No lone surrogate (with the u flag, \p{Cs} matches only unpaired halves). */
const wellFormed = (text: string): boolean => !/\p{Cs}/u.test(text);

/** The expression matching `literal` exactly: every character RE2 treats specially, escaped. */
const quote = (literal: string): string => literal.replace(/[\\^$.|?*+()[\]{}-]/g, '\\$&');

describe('mask expressions, property-based', () => {
  it('compiles any string or refuses it with an ExpressionError', () => {
    fc.assert(
      fc.property(anyExpression, (expression) => {
        compiled(expression);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('masks any text with any expression that compiles, without throwing', () => {
    fc.assert(
      fc.property(fragmentExpression, anyText, replacement, (expression, text, by) => {
        const mask = compiled(expression);
        if (mask === undefined) return;
        const masked = maskText(text, mask, by);
        // maxLength refuses exactly the results longer than it.
        expect(maskText(text, mask, by, masked.length)).toBe(masked);
        if (masked.length > 0) expect(() => maskText(text, mask, by, masked.length - 1)).toThrow(ExpressionError);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('agrees with String.prototype.replaceAll on literal expressions', () => {
    const special = fc.constantFrom(...TEXT_FRAGMENTS, '.', '*', '(', '\\', '[', '{', '|');
    const literal = fc
      .oneof(
        fc.array(special, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }),
      )
      .filter((l) => wellFormed(l) && quote(l).length <= MAX_MASK_EXPRESSION_LENGTH);
    // Texts made of pieces, some of them the literal itself, so that most cases have matches (some overlapping).
    const piece = fc.oneof(fc.constantFrom(...TEXT_FRAGMENTS).filter(wellFormed), fc.constant(undefined));
    fc.assert(
      fc.property(literal, fc.array(piece, { maxLength: 20 }), replacement, (lit, pieces, by) => {
        const text = pieces.map((p) => p ?? lit).join('');
        // A function replacer, so that replaceAll too takes the replacement literally.
        expect(maskText(text, compileMask(quote(lit)), by)).toBe(text.replaceAll(lit, () => by));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  /**
   * Expressions in the syntax RE2 and JavaScript's RegExp (with the u flag) read alike, leftmost-first both. Only
   * single characters and classes are quantified: JavaScript refuses a quantifier's iteration that matches empty text
   * (so `(?:a*?)?` takes a character there), where RE2, like Perl, accepts it.
   */
  const quantifier = fc.constantFrom('', '', '*', '+', '?', '*?', '+?', '??', '{1,2}', '{2}');
  const sharedExpression: fc.Arbitrary<string> = fc.letrec<{ alt: string; seq: string; atom: string }>((tie) => ({
    alt: fc.oneof({ depthSize: 'small' }, tie('seq'), fc.tuple(tie('seq'), tie('alt')).map(([a, b]) => `${a}|${b}`)),
    seq: fc.array(tie('atom'), { minLength: 1, maxLength: 4 }).map((atoms) => atoms.join('')),
    atom: fc.oneof(
      { depthSize: 'small' },
      fc
        .tuple(fc.constantFrom('a', 'b', '😀', 'é', '[ab]', '[^a]', '\\d', '[😀-🙂]', '\\$'), quantifier)
        .map(([atom, times]) => atom + times),
      tie('alt').map((inner) => `(?:${inner})`),
    ),
  })).alt;
  const sharedText = fc.array(fc.constantFrom('a', 'b', 'ab', '1', '😀', '🙂', 'é', ' ', '$', '\ud800', '\udc00'), { maxLength: 16 }).map((p) => p.join(''));

  it('masks what JavaScript RegExp matches, on expressions both read alike, skipping empty matches', () => {
    fc.assert(
      fc.property(sharedExpression, sharedText, replacement, (expression, text, by) => {
        const expected = text.replace(new RegExp(expression, 'gu'), (match) => (match === '' ? '' : by));
        expect(maskText(text, compileMask(expression), by)).toBe(expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
