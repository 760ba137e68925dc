import fc from 'fast-check';
import { interpolate, readDetokenization } from './grammar';

const SEED = 20261123;
const RUNS = 3000;

describe('detokenization grammar', () => {
  it.each([
    ['{{ abc-123 }}', { id: 'abc-123', wholeToken: false }],
    ['{{abc-123}}', { id: 'abc-123', wholeToken: false }],
    ["{{ abc-123 | json: '$.number' }}", { id: 'abc-123', wholeToken: false, path: '$.number' }],
    ['{{ abc-123|json:"$[\'a b\'][0]" }}', { id: 'abc-123', wholeToken: false, path: "$['a b'][0]" }],
    ['{{ token: abc-123 }}', { id: 'abc-123', wholeToken: true }],
    ['{{token:abc-123}}', { id: 'abc-123', wholeToken: true }],
    ["{{ token: abc-123 | json: '$.data.number' }}", { id: 'abc-123', wholeToken: true, path: '$.data.number' }],
    ['{{ an id with spaces }}', { id: 'an id with spaces', wholeToken: false }],
    ['{{ token }}', { id: 'token', wholeToken: false }],
  ])('reads %s', (text, expected) => {
    const read = readDetokenization(text);
    expect(read.whole).toBe(true);
    expect(read.expressions).toEqual([{ ...expected, start: 0, end: text.length }]);
  });

  it('treats a text of one expression with spaces around it as whole, and one with other text as interpolated', () => {
    expect(readDetokenization('  {{ a-b-c }}\n').whole).toBe(true);
    expect(readDetokenization('Bearer {{ a-b-c }}').whole).toBe(false);
    expect(readDetokenization('{{ a-b-c }}{{ d-e-f }}').expressions.map((e) => e.id)).toEqual(['a-b-c', 'd-e-f']);
  });

  it.each([
    'plain text',
    '{{ }}',
    '{{ token: }}',
    '{{ data.number | last4 }}',
    "{{ abc | json: '$.a' | last4 }}",
    "{{ abc | json: '$.a }}",
    '{ abc }',
    "{{ abc | json: 'it's' }}",
    "{{ abc | json: '$.a' 'b' }}",
  ])('leaves %s alone (not an expression)', (text) => {
    expect(readDetokenization(text).expressions).toEqual([]);
  });

  it('reads the innermost braces of a tripled pair', () => {
    expect(readDetokenization('{{{ abc }}}').expressions).toEqual([{ id: 'abc', wholeToken: false, start: 1, end: 10 }]);
  });

  it('interpolates strings as they are, null as nothing and other values as JSON', () => {
    const text = 'a={{ a-1 }} b={{ b-1 }} c={{ c-1 }} d={{ d-1 }}';
    const values: Record<string, unknown> = { 'a-1': 'x', 'b-1': null, 'c-1': 42, 'd-1': { n: 1 } };
    expect(interpolate(text, readDetokenization(text), (e) => values[e.id])).toBe('a=x b= c=42 d={"n":1}');
  });

  it('never throws, finds expressions only inside the text, and interpolating each by its own text changes nothing', () => {
    const pieces = fc.constantFrom('{{', '}}', '{', '}', '|', 'json', ':', 'token', "'", '"', '$.a', ' ', 'id-1', '\n', '😀', '\ud800');
    const text = fc.oneof(fc.string({ maxLength: 80 }), fc.array(pieces, { maxLength: 20 }).map((p) => p.join('')));
    fc.assert(
      fc.property(text, (t) => {
        const read = readDetokenization(t);
        let at = 0;
        for (const e of read.expressions) {
          expect(e.start).toBeGreaterThanOrEqual(at);
          expect(e.end).toBeLessThanOrEqual(t.length);
          expect(t.slice(e.start, e.start + 2)).toBe('{{');
          expect(t.slice(e.end - 2, e.end)).toBe('}}');
          expect(e.id).toBe(e.id.trim());
          expect(e.id).not.toMatch(/[|{}]/);
          at = e.end;
        }
        expect(interpolate(t, read, (e) => t.slice(e.start, e.end))).toBe(t);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('finds exactly the brace pairs the regex /\\{\\{([^{}]*)\\}\\}/g finds (the scanner against its model)', () => {
    const pieces = fc.constantFrom('{{', '}}', '{', '}', '{{{', '}}}', ' ', 'a', '|', 'json', ':', 'token', "'", '$.x');
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 24 }).map((p) => p.join('')),
        (t) => {
          const model = [...t.matchAll(/\{\{([^{}]*)\}\}/g)]
            .filter((m) => readDetokenization(m[0]).expressions.length === 1)
            .map((m) => [m.index, m.index + m[0].length]);
          expect(readDetokenization(t).expressions.map((e) => [e.start, e.end])).toEqual(model);
        },
      ),
      { seed: SEED, numRuns: RUNS * 4 },
    );
  });

  it('reads a long text in linear time (no backtracking blow-up on many braces)', () => {
    const hostile = `${'{{ '.repeat(20_000)}${'a |'.repeat(20_000)}`;
    expect(readDetokenization(hostile).expressions).toEqual([]);
    const spaces = `{{ a${' '.repeat(200_000)}x | json${' '.repeat(200_000)}: 'y'${' '.repeat(200_000)}z }}`;
    expect(readDetokenization(spaces).expressions).toEqual([]);
    const many = '{{ id-1 }} '.repeat(10_000);
    expect(readDetokenization(many).expressions).toHaveLength(10_000);
  });
});
