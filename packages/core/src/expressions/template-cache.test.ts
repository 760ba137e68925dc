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

  it('keeps its entries within a total weight, evicting the least recently used, and keeps no entry too heavy for it', () => {
    const cache = new TemplateCache<number>(100, 1000);
    for (let i = 0; i < 20; i++) cache.set(`t${i}`, i, 200);
    expect(cache.totalWeight).toBeLessThanOrEqual(1000);
    expect(cache.size).toBe(5);
    expect(cache.get('t19')).toBe(19);
    expect(cache.get('t14')).toBeUndefined();
    cache.set('huge', 1, 251);
    expect(cache.get('huge')).toBeUndefined();
    cache.set('t19', 19, 100);
    expect(cache.totalWeight).toBe(900);
    for (let i = 0; i < 5000; i++) cache.set(`x${i}`, i, 1 + (i % 250));
    expect(cache.totalWeight).toBeLessThanOrEqual(1000);
  });
});
