import fc from 'fast-check';
import { readDetokenization } from '../detokenization/grammar';
import { ValidationError } from '../shared/errors';
import { validateTokenId } from './token-id';

describe('validateTokenId', () => {
  it.each(['abc', 'with a space', '4111 1111 1111 1234', 'émoji-😀', 'a'.repeat(400), 'dots.and_underscores-ok'])('accepts %j', (id) => {
    expect(validateTokenId(id)).toBe(id);
  });

  it.each([
    ['too short', 'ab'],
    ['too long', 'a'.repeat(401)],
    ...[...'#/\\+?[]|&=%<>{}^'].map((c) => [`holding ${c}`, `ab${c}cd`]),
    ['holding a tab', 'ab\tcd'],
    ['holding a NUL', 'ab\u0000cd'],
    ['holding DEL', 'ab\u007fcd'],
    ['holding a lone high surrogate', 'ab\ud800cd'],
    ['holding a lone low surrogate', 'ab\udc00cd'],
    ['ending in a high surrogate', 'abc\ud83d'],
    ['beginning with a space', ' abc'],
    ['ending with a space', 'abc '],
    ['ending with a no-break space', 'abc\u00a0'],
    ["beginning with 'token:'", 'token:q123'],
    ["beginning with 'token :'", 'token :q123'],
  ])('refuses an id %s, naming the field', (_why, id) => {
    expect(() => validateTokenId(id)).toThrow(ValidationError);
    try {
      validateTokenId(id);
    } catch (error) {
      expect(Object.keys((error as ValidationError).errors)).toEqual(['id']);
    }
  });

  it('accepts only ids a detokenization expression can name: {{ id }} and {{ token: id }} read back that id', () => {
    const chars = fc.constantFrom(...'abcT kn:o-._9 é😀\u00a0\u2028#{}|'.split(''), 'token:', 'token :', ' ', '  ');
    fc.assert(
      fc.property(fc.array(chars, { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')), (id) => {
        let accepted: boolean;
        try {
          validateTokenId(id);
          accepted = true;
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          accepted = false;
        }
        if (!accepted) return;
        expect(readDetokenization(`{{ ${id} }}`).expressions.map((e) => [e.id, e.wholeToken])).toEqual([[id, false]]);
        expect(readDetokenization(`{{${id}}}`).expressions.map((e) => [e.id, e.wholeToken])).toEqual([[id, false]]);
        expect(readDetokenization(`{{ token: ${id} }}`).expressions.map((e) => [e.id, e.wholeToken])).toEqual([[id, true]]);
      }),
      { seed: 1724, numRuns: 3000 },
    );
  });
});
