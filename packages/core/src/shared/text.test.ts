import { characterCount } from './text';

describe('characterCount', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['😀', 1],
    ['a😀b', 3],
    ['é', 1],
    ['\ud800', 1],
  ])('counts %j as %i', (text, count) => {
    expect(characterCount(text)).toBe(count);
  });
});
