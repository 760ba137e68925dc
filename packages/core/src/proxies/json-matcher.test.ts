import { ExpressionError } from '../expressions/expression-error';
import {
  jsonValueAt,
  MAX_JSON_MATCH_DEPTH,
  MAX_JSON_MATCHER_LENGTH,
  MAX_JSON_MATCHER_SEGMENTS,
  MAX_JSON_MATCHES,
  matchJson,
  parseJsonMatcher,
  replaceJson,
  type JsonPath,
} from './json-matcher';

const match = (value: unknown, path: string): JsonPath[] => matchJson(value, parseJsonMatcher(path));

function refusal(path: string): string {
  try {
    parseJsonMatcher(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return (error as ExpressionError).message;
  }
  throw new Error('parseJsonMatcher accepted the path');
}

/** Freezes a value and everything in it, so that any write to the input throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

const store = {
  store: {
    book: [
      { category: 'reference', author: 'Nigel Rees', price: 8.95 },
      { category: 'fiction', author: 'Evelyn Waugh', price: 12.99 },
      { category: 'fiction', author: 'Herman Melville', isbn: '0-553-21311-3', price: 8.99 },
    ],
    bicycle: { color: 'red', price: 19.95 },
  },
};

describe('parseJsonMatcher', () => {
  it.each([
    ['$', []],
    ['$.card', [{ descendant: false, selector: { kind: 'name', name: 'card' } }]],
    ['$.$_a-1', [{ descendant: false, selector: { kind: 'name', name: '$_a-1' } }]],
    ["$['a b']", [{ descendant: false, selector: { kind: 'name', name: 'a b' } }]],
    ['$["a.b"]', [{ descendant: false, selector: { kind: 'name', name: 'a.b' } }]],
    ["$['']", [{ descendant: false, selector: { kind: 'name', name: '' } }]],
    ['$[0]', [{ descendant: false, selector: { kind: 'index', index: 0 } }]],
    ['$[123456789]', [{ descendant: false, selector: { kind: 'index', index: 123456789 } }]],
    ['$[*]', [{ descendant: false, selector: { kind: 'wildcard' } }]],
    ['$.*', [{ descendant: false, selector: { kind: 'wildcard' } }]],
    ['$..number', [{ descendant: true, selector: { kind: 'name', name: 'number' } }]],
    ['$..*', [{ descendant: true, selector: { kind: 'wildcard' } }]],
    ["$..['a b']", [{ descendant: true, selector: { kind: 'name', name: 'a b' } }]],
    ['$..[2]', [{ descendant: true, selector: { kind: 'index', index: 2 } }]],
    ['$..[*]', [{ descendant: true, selector: { kind: 'wildcard' } }]],
    [
      '$.cards[*].number',
      [
        { descendant: false, selector: { kind: 'name', name: 'cards' } },
        { descendant: false, selector: { kind: 'wildcard' } },
        { descendant: false, selector: { kind: 'name', name: 'number' } },
      ],
    ],
  ])('parses %s', (path, segments) => {
    expect(parseJsonMatcher(path)).toEqual({ path, segments });
  });

  it.each([
    ["$['it\\'s']", "it's"],
    ['$["say \\"hi\\""]', 'say "hi"'],
    ["$['back\\\\slash']", 'back\\slash'],
    ["$['a\\/b']", 'a/b'],
    ["$['\\b\\f\\n\\r\\t']", '\b\f\n\r\t'],
    ["$['\\u00e9\\u00E9']", 'éé'],
    ["$['\\ud83d\\ude00']", '😀'],
    ["$['😀 é']", '😀 é'],
    ['$["it\'s"]', "it's"],
    ["$['say \"hi\"']", 'say "hi"'],
  ])('reads the quoted name in %s', (path, name) => {
    expect(parseJsonMatcher(path).segments).toEqual([{ descendant: false, selector: { kind: 'name', name } }]);
  });

  it.each([
    ['', 'Invalid JSONPath matcher: it must start with $.'],
    ['card.number', 'Invalid JSONPath matcher: it must start with $.'],
    ['@.a', 'Invalid JSONPath matcher: it must start with $.'],
    ['$a', "Invalid JSONPath matcher at position 1: expected ., .. or [ (use $, .name, ['name'], [0], [*], .*, ..name or ..*)."],
    ['$.', "Invalid JSONPath matcher at position 2: expected a member name or * after . (a name with other characters goes in brackets: ['a b'])."],
    ['$.1a', "Invalid JSONPath matcher at position 2: expected a member name or * after . (a name with other characters goes in brackets: ['a b'])."],
    ['$..', "Invalid JSONPath matcher at position 3: expected a member name or * after .. (a name with other characters goes in brackets: ['a b'])."],
    ['$...a', "Invalid JSONPath matcher at position 3: expected a member name or * after .. (a name with other characters goes in brackets: ['a b'])."],
    ['$[?(@.price < 10)]', 'Invalid JSONPath matcher at position 2: filter expressions ([?...]) are not supported.'],
    ['$[(@.length-1)]', 'Invalid JSONPath matcher at position 2: script expressions ([(...)]) are not supported.'],
    ['$[-1]', 'Invalid JSONPath matcher at position 2: negative indexes are not supported.'],
    ['$[0:2]', 'Invalid JSONPath matcher at position 3: slices ([a:b]) are not supported.'],
    ['$[:2]', 'Invalid JSONPath matcher at position 2: slices ([a:b]) are not supported.'],
    ['$[0,1]', 'Invalid JSONPath matcher at position 3: unions ([a,b]) are not supported.'],
    ["$['a','b']", 'Invalid JSONPath matcher at position 5: unions ([a,b]) are not supported.'],
    ['$[1234567890]', 'Invalid JSONPath matcher at position 2: an index may have at most 9 digits.'],
    ['$[', "Invalid JSONPath matcher at position 2: expected *, an index or a quoted name after [ (use $, .name, ['name'], [0], [*], .*, ..name or ..*)."],
    ['$[ 0 ]', "Invalid JSONPath matcher at position 2: expected *, an index or a quoted name after [ (use $, .name, ['name'], [0], [*], .*, ..name or ..*)."],
    ['$[a]', "Invalid JSONPath matcher at position 2: expected *, an index or a quoted name after [ (use $, .name, ['name'], [0], [*], .*, ..name or ..*)."],
    ['$[0', 'Invalid JSONPath matcher at position 3: expected ].'],
    ['$[*', 'Invalid JSONPath matcher at position 3: expected ].'],
    ["$['a'", 'Invalid JSONPath matcher at position 5: expected ].'],
    ["$['a", 'Invalid JSONPath matcher at position 2: unterminated quoted name.'],
    ["$['a\\']", 'Invalid JSONPath matcher at position 2: unterminated quoted name.'],
    ["$['\\x']", 'Invalid JSONPath matcher at position 3: invalid escape sequence in a quoted name.'],
    ["$['\\u12']", 'Invalid JSONPath matcher at position 3: invalid escape sequence in a quoted name.'],
    ['$.a b', "Invalid JSONPath matcher at position 3: expected ., .. or [ (use $, .name, ['name'], [0], [*], .*, ..name or ..*)."],
    [' $.a', 'Invalid JSONPath matcher: it must start with $.'],
    ['$.a ', "Invalid JSONPath matcher at position 3: expected ., .. or [ (use $, .name, ['name'], [0], [*], .*, ..name or ..*)."],
  ])('refuses %j', (path, message) => {
    expect(refusal(path)).toBe(message);
  });

  it(`accepts up to ${MAX_JSON_MATCHER_SEGMENTS} segments and refuses more`, () => {
    expect(parseJsonMatcher(`$${'.a'.repeat(MAX_JSON_MATCHER_SEGMENTS)}`).segments).toHaveLength(MAX_JSON_MATCHER_SEGMENTS);
    expect(refusal(`$${'..*'.repeat(MAX_JSON_MATCHER_SEGMENTS + 1)}`)).toBe('Invalid JSONPath matcher: it may have at most 20 segments.');
  });

  it(`accepts up to ${MAX_JSON_MATCHER_LENGTH} characters and refuses more`, () => {
    const name = (length: number): string => `$['${'x'.repeat(length - 5)}']`;
    expect(parseJsonMatcher(name(MAX_JSON_MATCHER_LENGTH)).path).toHaveLength(MAX_JSON_MATCHER_LENGTH);
    expect(refusal(name(MAX_JSON_MATCHER_LENGTH + 1))).toBe('Invalid JSONPath matcher: it may be at most 500 characters.');
  });

  it('never echoes the path in its message', () => {
    expect(refusal("$['4242424242424242',0]")).not.toContain('4242');
    expect(refusal('$.a[?(@.secret == "4242")]')).not.toContain('4242');
  });
});

describe('matchJson', () => {
  it('selects the root with $', () => {
    expect(match(store, '$')).toEqual([[]]);
    expect(match('text', '$')).toEqual([[]]);
    expect(match(undefined, '$')).toEqual([[]]);
  });

  it.each([
    ['$.store.bicycle.color', [['store', 'bicycle', 'color']]],
    ['$.store.book[1].author', [['store', 'book', 1, 'author']]],
    ["$['store']['book'][2]['isbn']", [['store', 'book', 2, 'isbn']]],
    ['$.store.book[*].author', [0, 1, 2].map((i) => ['store', 'book', i, 'author'])],
    ['$.store.book.*.author', [0, 1, 2].map((i) => ['store', 'book', i, 'author'])],
    ['$..author', [0, 1, 2].map((i) => ['store', 'book', i, 'author'])],
    ['$..isbn', [['store', 'book', 2, 'isbn']]],
    ['$.store.*', [['store', 'book'], ['store', 'bicycle']]],
    ['$..book[2].price', [['store', 'book', 2, 'price']]],
    ['$..[2]', [['store', 'book', 2]]],
    [
      '$.store..price',
      [
        ['store', 'book', 0, 'price'],
        ['store', 'book', 1, 'price'],
        ['store', 'book', 2, 'price'],
        ['store', 'bicycle', 'price'],
      ],
    ],
    ['$.store.book[3]', []],
    ['$.store.nothing', []],
    ['$.store.bicycle.color.length', []],
  ])('%s selects %j', (path, expected) => {
    expect(match(store, path)).toEqual(expected);
  });

  it('gives every selected value once, in document order (a node before what it holds)', () => {
    const value = { a: { b: [1, { c: 2 }] }, d: 3 };
    const all = [['a'], ['a', 'b'], ['a', 'b', 0], ['a', 'b', 1], ['a', 'b', 1, 'c'], ['d']];
    expect(match(value, '$..*')).toEqual(all);
    expect(match(value, '$..*..*')).toEqual(all.filter((p) => p.length >= 2));
    expect(match(value, '$..*..*..*..*')).toEqual(all.filter((p) => p.length >= 4));
    expect(match(value, '$..[*]')).toEqual(all);
    expect(match({ a: { a: { a: 1 } } }, '$..a')).toEqual([['a'], ['a', 'a'], ['a', 'a', 'a']]);
    expect(match({ a: { a: { a: 1 } } }, '$..a..a')).toEqual([['a', 'a'], ['a', 'a', 'a']]);
  });

  it('orders members as the parsed object holds them (integer-like keys first, as JavaScript keeps them)', () => {
    expect(match(JSON.parse('{"b":1,"2":2,"a":3,"1":4}'), '$.*')).toEqual([['1'], ['2'], ['b'], ['a']]);
  });

  it('selects names in objects only and indexes in arrays only', () => {
    expect(match({ 0: 'zero' }, '$[0]')).toEqual([]);
    expect(match({ 0: 'zero' }, "$['0']")).toEqual([['0']]);
    expect(match(['zero'], "$['0']")).toEqual([]);
    expect(match(['zero'], '$[0]')).toEqual([[0]]);
    expect(match(['a', 'b'], '$.length')).toEqual([]);
    expect(match('text', '$.length')).toEqual([]);
    expect(match('text', '$[0]')).toEqual([]);
    expect(match('text', '$.*')).toEqual([]);
    expect(match(null, '$..*')).toEqual([]);
  });

  it('treats keys such as __proto__ and constructor as ordinary own members, never inherited ones', () => {
    const body: unknown = JSON.parse('{"__proto__":{"x":"4242"},"constructor":{"prototype":1},"toString":2}');
    expect(match(body, '$.__proto__.x')).toEqual([['__proto__', 'x']]);
    expect(match(body, "$['constructor'].prototype")).toEqual([['constructor', 'prototype']]);
    expect(match(body, '$..*')).toEqual([['__proto__'], ['__proto__', 'x'], ['constructor'], ['constructor', 'prototype'], ['toString']]);
    expect(match({}, '$.constructor')).toEqual([]);
    expect(match({}, '$.__proto__')).toEqual([]);
    expect(match({}, '$..toString')).toEqual([]);
    expect(match([], '$.constructor')).toEqual([]);
  });

  describe('cost', () => {
    /** A spine `depth` levels deep; each level holds the next and `width` leaves: a naive descent revisits them all. */
    function comb(depth: number, width: number): unknown {
      let value: unknown = 'end';
      for (let level = 0; level < depth; level += 1) value = { next: value, leaves: Array.from({ length: width }, (_, i) => i) };
      return value;
    }

    it('descends repeatedly through a 10,000-node document, listing each node once', () => {
      const depth = 96;
      const width = 102;
      const value = comb(depth, width);
      // The spine object of level L lies at depth L, its leaves array at L + 1, their numbers at L + 2; 'end' at 96.
      const nodes = (atLeast: number): number => {
        let count = depth >= atLeast ? 1 : 0;
        for (let level = 0; level < depth; level += 1) {
          count += (level >= atLeast ? 1 : 0) + (level + 1 >= atLeast ? 1 : 0) + (level + 2 >= atLeast ? width : 0);
        }
        return count;
      };
      expect(nodes(0)).toBe(9_985);
      // Listing every way of reaching a node, as a naive descent does, would give billions of paths for these.
      const six = match(value, `$${'..*'.repeat(6)}`);
      expect(six).toHaveLength(nodes(6));
      expect(new Set(six.map((p) => JSON.stringify(p))).size).toBe(six.length);
      expect(match(value, `$${'..*'.repeat(MAX_JSON_MATCHER_SEGMENTS)}`)).toHaveLength(nodes(MAX_JSON_MATCHER_SEGMENTS));
      expect(match(value, `$${'..next'.repeat(MAX_JSON_MATCHER_SEGMENTS)}`)).toHaveLength(depth - MAX_JSON_MATCHER_SEGMENTS + 1);
      expect(match(value, `$${'..next'.repeat(10)}..leaves[*]`)).toHaveLength((depth - 10) * width);
    });

    it('reads a document nested a million levels deep without running out of stack', () => {
      const deep: unknown = JSON.parse(`${'['.repeat(1_000_000)}1${']'.repeat(1_000_000)}`);
      expect(match(deep, '$..missing')).toEqual([]);
      expect(match(deep, '$[0][0]')).toEqual([[0, 0]]);
    });

    it(`refuses to select values deeper than ${MAX_JSON_MATCH_DEPTH} levels`, () => {
      const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
      expect(match(nested(MAX_JSON_MATCH_DEPTH), '$..*')).toHaveLength(MAX_JSON_MATCH_DEPTH);
      expect(() => match(nested(MAX_JSON_MATCH_DEPTH + 1), '$..*')).toThrow(
        new ExpressionError('The JSONPath matcher selects a value nested deeper than 100 levels.'),
      );
      expect(() => match(nested(10_000), '$..*')).toThrow(ExpressionError);
    });

    it(`refuses to select more than ${MAX_JSON_MATCHES} values`, () => {
      expect(match(new Array(MAX_JSON_MATCHES).fill(0), '$[*]')).toHaveLength(MAX_JSON_MATCHES);
      expect(() => match(new Array(MAX_JSON_MATCHES + 1).fill(0), '$[*]')).toThrow(
        new ExpressionError('The JSONPath matcher selects more than 10000 values.'),
      );
    });
  });
});

describe('replaceJson', () => {
  it('replaces each selected value and leaves the rest', () => {
    const value = deepFreeze({ card: { number: '4242424242424242', cvc: '123' }, list: ['a', 'b'], keep: true });
    const result = replaceJson(value, [['card', 'number'], ['list', 1]], (current) => `tok(${String(current)})`);
    expect(result).toEqual({ card: { number: 'tok(4242424242424242)', cvc: '123' }, list: ['a', 'tok(b)'], keep: true });
  });

  it('does not mutate the input and shares what it does not change', () => {
    const value = { a: { b: 1 }, c: { d: 2 } };
    const before = JSON.stringify(value);
    const result = replaceJson(deepFreeze(value), [['a', 'b']], () => 9) as typeof value;
    expect(JSON.stringify(value)).toBe(before);
    expect(result).not.toBe(value);
    expect(result.a).not.toBe(value.a);
    expect(result.c).toBe(value.c);
  });

  it('keeps the key order of every object', () => {
    const value: unknown = JSON.parse('{"z":1,"3":2,"a":{"y":1,"b":2,"1":3},"m":4}');
    const result = replaceJson(value, [['a', 'b'], ['z']], () => 'x');
    expect(JSON.stringify(result)).toBe('{"3":2,"z":"x","a":{"1":3,"y":1,"b":"x"},"m":4}');
  });

  it('treats __proto__ and constructor in the data as ordinary keys', () => {
    const body: unknown = JSON.parse('{"__proto__":{"x":"4242"},"constructor":"c","a":"v"}');
    const result = replaceJson(body, match(body, '$..*'), (current) => (typeof current === 'string' ? '***' : current)) as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(result)).toBe('{"__proto__":{"x":"***"},"constructor":"***","a":"***"}');
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__', 'constructor', 'a']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();

    const replaced = replaceJson(body, [['__proto__']], () => ({ polluted: true })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(replaced)).toBe(Object.prototype);
    expect(replaced.polluted).toBeUndefined();
    expect(JSON.stringify(replaced)).toBe('{"__proto__":{"polluted":true},"constructor":"c","a":"v"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('ignores paths that lead to no value rather than creating them', () => {
    const value = { a: [1], b: { c: 1 } };
    const calls: JsonPath[] = [];
    const result = replaceJson(value, [['x'], ['a', 5], ['a', '0'], ['b', 0], ['b', 'c', 'd'], ['constructor'], ['a', 'length']], (c, p) => {
      calls.push(p);
      return c;
    });
    expect(result).toEqual(value);
    expect(calls).toEqual([]);
  });

  it('replaces the root for the empty path', () => {
    expect(replaceJson({ a: 1 }, [[]], (current) => ({ wrapped: current }))).toEqual({ wrapped: { a: 1 } });
  });

  it('returns the value itself when there is nothing to replace', () => {
    const value = { a: 1 };
    expect(replaceJson(value, [], () => 0)).toBe(value);
  });

  it('replaces a path given twice once', () => {
    const replace = jest.fn(() => 'x');
    expect(replaceJson({ a: 1 }, [['a'], ['a']], replace)).toEqual({ a: 'x' });
    expect(replace).toHaveBeenCalledTimes(1);
  });

  it('replaces inner values first and hands the outer one the value holding them', () => {
    const calls: Array<[unknown, JsonPath]> = [];
    const value = { a: { b: 1, c: 2 }, d: 3 };
    const result = replaceJson(value, match(value, '$..*'), (current, path) => {
      calls.push([current, path]);
      return typeof current === 'number' ? current * 10 : current;
    });
    expect(result).toEqual({ a: { b: 10, c: 20 }, d: 30 });
    expect(calls).toEqual([
      [1, ['a', 'b']],
      [2, ['a', 'c']],
      [{ b: 10, c: 20 }, ['a']],
      [3, ['d']],
    ]);
  });

  it('replaces a value a hundred thousand levels deep without running out of stack', () => {
    const depth = 100_000;
    const deep: unknown = JSON.parse(`${'['.repeat(depth)}"4242"${']'.repeat(depth)}`);
    const path = new Array<number>(depth).fill(0);
    const result = replaceJson(deep, [path], () => 'tok');
    expect(jsonValueAt(result, path)).toBe('tok');
    expect(jsonValueAt(deep, path)).toBe('4242');
  });

  it('replaces every value of a wide object in one pass', () => {
    const value = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    const result = replaceJson(value, match(value, '$.*'), (current) => (current as number) + 1) as Record<string, number>;
    expect(result.k0).toBe(1);
    expect(result.k9999).toBe(10_000);
    expect(Object.keys(result)).toEqual(Object.keys(value));
  });
});

describe('jsonValueAt', () => {
  it('reads own members and elements only', () => {
    const body: unknown = JSON.parse('{"__proto__":{"x":1},"a":[0,{"b":"v"}]}');
    expect(jsonValueAt(body, ['a', 1, 'b'])).toBe('v');
    expect(jsonValueAt(body, ['__proto__', 'x'])).toBe(1);
    expect(jsonValueAt(body, [])).toBe(body);
    expect(jsonValueAt(body, ['constructor'])).toBeUndefined();
    expect(jsonValueAt(body, ['a', 'length'])).toBeUndefined();
    expect(jsonValueAt(body, ['a', '1'])).toBeUndefined();
    expect(jsonValueAt(body, ['a', 2])).toBeUndefined();
  });
});
