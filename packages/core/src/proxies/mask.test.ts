import { ExpressionError } from '../expressions/expression-error';
import { compileMask, MAX_MASK_EXPRESSION_LENGTH, MAX_MASK_PROGRAM_SIZE, maskText } from './mask';

const mask = (text: string, expression: string, replacement = '#'): string => maskText(text, compileMask(expression), replacement);

function refusal(expression: string): string {
  try {
    compileMask(expression);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return (error as ExpressionError).message;
  }
  throw new Error('compileMask accepted the expression');
}

describe('maskText', () => {
  it('replaces every match with the replacement', () => {
    expect(mask('card 4242424242424242, cvc 123', '\\d{13,19}', 'XXXX')).toBe('card XXXX, cvc 123');
    expect(mask('{"ssn":"123-45-6789","other":"987-65-4321"}', '\\d{3}-\\d{2}-\\d{4}', '***')).toBe('{"ssn":"***","other":"***"}');
  });

  it('replaces non-overlapping matches, leftmost first', () => {
    expect(mask('aaaaa', 'aa')).toBe('##a');
    expect(mask('abcabc', 'abc|bca')).toBe('##');
  });

  it('returns the text unchanged when nothing matches', () => {
    expect(mask('no digits here', '\\d')).toBe('no digits here');
    expect(mask('', '\\d')).toBe('');
  });

  it('takes the replacement literally: no $1, $& or $$ substitution', () => {
    expect(mask('4242 1234', '(\\d{2})(\\d{2})', '$1-$2')).toBe('$1-$2 $1-$2');
    expect(mask('abc', 'b', '$&$$$`\\1')).toBe('a$&$$$`\\1c');
  });

  it('replaces the whole match whatever groups the expression has', () => {
    expect(mask('4242424242424242', '(\\d{4})\\d{8}(?P<last>\\d{4})', 'masked')).toBe('masked');
  });

  it('accepts an empty replacement (deletes the matches)', () => {
    expect(mask('a1b22c', '\\d+', '')).toBe('abc');
  });

  it('refuses to build a text longer than maxLength, counting what the replacements add and remove', () => {
    const compiled = compileMask('\\d');
    expect(maskText('1234', compiled, 'ab', 8)).toBe('abababab');
    expect(() => maskText('1234', compiled, 'ab', 7)).toThrow(new ExpressionError('The masked text would be longer than 7 characters.'));
    expect(maskText('1234567890', compileMask('\\d+'), '*', 1)).toBe('*');
    expect(maskText('abc', compiled, 'x'.repeat(100), 3)).toBe('abc');
    expect(() => maskText('abc', compiled, 'x', 2)).toThrow(ExpressionError); // the text itself is too long
    // Growing first and shrinking later: only the result counts.
    expect(maskText('1 aaaa', compileMask('\\d|a+'), 'xyz', 7)).toBe('xyz xyz');
    expect(() => maskText('1'.repeat(1_000_000), compiled, 'x'.repeat(1_000), 10_000_000)).toThrow(ExpressionError);
  });

  describe('empty matches', () => {
    it('are skipped: x* masks each run of x, not every gap between characters', () => {
      expect(mask('axxbx', 'x*')).toBe('a#b#');
    });

    it('leave the text unchanged when the expression can only match empty text', () => {
      for (const expression of ['^', '$', '\\b', '(?:)', 'a*?', 'x{0}', '(?m)^$']) {
        expect(mask('ab\n\ncd', expression)).toBe('ab\n\ncd');
      }
    });

    it('do not hide a longer match that the expression prefers elsewhere', () => {
      expect(mask('a1b', '\\d*')).toBe('a#b');
      expect(mask('a😀b', 'x*|\\x{1F600}')).toBe('a😀b'); // the empty alternative is preferred wherever it matches
    });
  });

  describe('unicode', () => {
    it('masks digits between emoji, leaving the emoji whole', () => {
      expect(mask('😀12😀 3é4👍🏽', '\\d+')).toBe('😀#😀 #é#👍🏽');
    });

    it('treats an astral character as one character, never half a surrogate pair', () => {
      expect(mask('a😀b', '.')).toBe('###');
      expect(mask('a😀b', 'a.b')).toBe('#');
      expect(mask('x😀y🙂z', '[😀🙂]', '?')).toBe('x?y?z');
      expect(mask('x😀y', '\\x{1F600}')).toBe('x#y');
      expect(mask('😀', '\\W')).toBe('#');
    });

    it('matches unicode classes and case folding', () => {
      expect(mask('Ωmega é', '\\p{Greek}')).toBe('#mega é');
      expect(mask('ÉCOLE école', '(?i)école')).toBe('# #');
      expect(mask('٣ 3', '\\pN')).toBe('# #');
      expect(mask('٣ 3', '\\d')).toBe('٣ #'); // \d is ASCII in RE2
    });

    it('reads text holding lone surrogates without failing', () => {
      expect(mask('\ud800x\udc00y', '[xy]')).toBe('\ud800#\udc00#');
      expect(mask('\ud800x\udc00', '.')).toBe('###');
    });
  });

  describe('linear time', () => {
    it('masks with a classic catastrophic-backtracking pattern (which hangs JavaScript RegExp)', () => {
      const text = `${'a'.repeat(50_000)}b`;
      expect(mask(text, '(a+)+$')).toBe(text);
      expect(mask('a'.repeat(50_000), '(a+)+$')).toBe('#');
      expect(mask(`${'x'.repeat(30_000)}!`, '(x+x+)+y')).toBe(`${'x'.repeat(30_000)}!`);
      expect(mask(`${'ab'.repeat(20_000)}c`, '^(a|ab|b)*$')).toBe(`${'ab'.repeat(20_000)}c`);
    });

    it('masks many matches in a long text', () => {
      const text = '1 '.repeat(100_000);
      expect(mask(text, '\\d', 'x')).toBe('x '.repeat(100_000));
    });
  });
});

describe('compileMask', () => {
  it('names backreferences as unsupported RE2 syntax', () => {
    expect(refusal('(a)\\1')).toMatch(/backreference.*RE2 syntax does not support/);
    expect(refusal('(?<n>a)\\k<n>')).toMatch(/backreference/);
  });

  it.each(['(?=a)', '(?!a)', 'b(?<=a)', 'b(?<!a)'])('names lookaround %s as unsupported RE2 syntax', (expression) => {
    expect(refusal(expression)).toMatch(/lookahead or lookbehind.*RE2 syntax does not support/);
  });

  it.each([
    ['(', 'missing closing )'],
    ['a)', 'unexpected )'],
    ['[z-a]', 'invalid character class range'],
    ['x**', 'invalid nested repetition operator'],
    ['\\p{Nope}', 'invalid character class range'],
    ['a{1001}', 'invalid repeat count'],
  ])('refuses the invalid expression %s, saying why', (expression, why) => {
    expect(refusal(expression)).toBe(`The mask expression is not a valid RE2 regular expression: ${why}.`);
  });

  it('never echoes the expression in its message', () => {
    expect(refusal('secret-4242(')).not.toContain('4242');
    expect(refusal('4242\\1')).not.toContain('4242');
  });

  it('refuses an empty expression', () => {
    expect(refusal('')).toBe('The mask expression must not be empty.');
  });

  it(`refuses an expression longer than ${MAX_MASK_EXPRESSION_LENGTH} characters`, () => {
    const alternation = (length: number): string => 'ab|'.repeat(length).slice(0, length - 1).concat('c');
    expect(() => compileMask(alternation(MAX_MASK_EXPRESSION_LENGTH))).not.toThrow();
    expect(refusal(alternation(MAX_MASK_EXPRESSION_LENGTH + 1))).toBe(`The mask expression may be at most ${MAX_MASK_EXPRESSION_LENGTH} characters.`);
  });

  it(`refuses an expression compiling to more than ${MAX_MASK_PROGRAM_SIZE} instructions`, () => {
    expect(() => compileMask('\\d{1,200}')).not.toThrow();
    expect(refusal('\\w{1,400}')).toMatch(/^The mask expression is too complex: it compiles to more than 500 instructions/);
    expect(refusal('(\\w+\\s*){100}')).toMatch(/too complex/);
  });

  it('is case-sensitive, single-line and . excludes newlines unless inline flags say otherwise', () => {
    expect(mask('A\nB', '(?s)a.b')).toBe('A\nB');
    expect(mask('A\nB', '(?is)a.b')).toBe('#');
    expect(mask('A\nB', '(?i)a.b')).toBe('A\nB'); // . excludes \n by default
    expect(mask('x\ny', '(?m)^y$')).toBe('x\n#');
  });

  it('keeps the expression and can be reused', () => {
    const compiled = compileMask('\\d');
    expect(compiled.expression).toBe('\\d');
    expect(maskText('a1', compiled, '#')).toBe('a#');
    expect(maskText('2b', compiled, '*')).toBe('*b');
  });
});
