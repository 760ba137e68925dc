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
  ])('refuses an id %s, naming the field', (_why, id) => {
    expect(() => validateTokenId(id)).toThrow(ValidationError);
    try {
      validateTokenId(id);
    } catch (error) {
      expect(Object.keys((error as ValidationError).errors)).toEqual(['id']);
    }
  });
});
