import { TemplateCache } from './template-cache';

describe('TemplateCache', () => {
  it('evicts the least recently used entry when full', () => {
    const cache = new TemplateCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('never grows past its capacity', () => {
    const cache = new TemplateCache<number>(10);
    for (let i = 0; i < 100; i++) cache.set(`t${i}`, i);
    expect(cache.size).toBe(10);
    expect(cache.get('t99')).toBe(99);
  });
});
