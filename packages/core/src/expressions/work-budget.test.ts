import { ValidationError } from '../shared/errors';
import { ExpressionEngine } from './engine';
import { SequenceRandomSource } from '../../testing/sequence-random-source';
import { WorkBudget } from './work-budget';

const TOO_MUCH = 'The expression exceeds the allowed size, time or memory.';
const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const small = (workLimit: number): ExpressionEngine => new ExpressionEngine({ random: new SequenceRandomSource(), limits: { workLimit } });

/** The message the render fails with, or undefined when it succeeds. */
function failure(action: () => unknown): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors['mask']?.[0];
  }
}

describe('WorkBudget', () => {
  it('throws a limit error once more than its limit is spent, and not before', () => {
    const budget = new WorkBudget(10);
    budget.spend(4);
    budget.spend(6);
    expect(() => budget.spend(1)).toThrow(/limit exceeded$/);
  });

  it('charges a template its size for every step liquidjs reports, whatever timestamp comes with it', () => {
    const budget = new WorkBudget(9);
    const meter = budget.meter(3);
    meter.check(Number.MAX_SAFE_INTEGER);
    meter.check(0);
    meter.use(3);
    expect(() => meter.check(0)).toThrow(/limit exceeded$/);
  });
});

describe('The render bound', () => {
  afterEach(() => jest.restoreAllMocks());

  it('does not depend on the clock: a render that stalls (GC pause, busy event loop) still succeeds', () => {
    let now = 0;
    // Every reading of the clock is a second later, as if the process stalled between every two steps.
    jest.spyOn(performance, 'now').mockImplementation(() => (now += 1000));
    const template = '{% for i in (1..50) %}{{ i }}{% endfor %}:{{ data | reveal_last: 4 }}';
    expect(engine.render('mask', template, { data: '4242424242424242' })).toMatch(/^1234.*50:XXXXXXXXXXXX4242$/);
    expect(engine.evaluate('mask', '{{ data | last4 }}', { data: '4242424242424242' })).toBe('4242');
  });

  it('fails the same huge loop every time, with the size message', () => {
    const template = '{% for i in (1..200000) %}{% endfor %}{{ data | last4 }}';
    for (let run = 0; run < 3; run++) expect(failure(() => engine.render('mask', template, { data: 'abcd' }))).toBe(TOO_MUCH);
  });

  it('refuses nested loops quickly', () => {
    const started = Date.now();
    const loops = '{% for a in (1..2000) %}{% for b in (1..2000) %}{{ b }}{% endfor %}{% endfor %}';
    expect(failure(() => engine.render('mask', loops, { data: 'x' }))).toBe(TOO_MUCH);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('prices each step at the template size, so a long condition in a loop runs out sooner than a short one', () => {
    const bounded = small(20_000);
    const loop = (condition: string): string => `{% for i in (1..300) %}{% if ${condition} %}{% endif %}{% endfor %}`;
    expect(failure(() => bounded.render('mask', loop('data'), { data: 'x' }))).toBeUndefined();
    const long = Array.from({ length: 40 }, () => 'data').join(' or ');
    expect(failure(() => bounded.render('mask', loop(long), { data: 'x' }))).toBe(TOO_MUCH);
  });

  it('charges a loop for the collection it enumerates, so a large object cannot be walked over and over', () => {
    const data = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const template = '{% for i in (1..1000) %}{% for x in data limit: 1 %}{% endfor %}{% endfor %}';
    expect(failure(() => engine.render('mask', template, { data }))).toBe(TOO_MUCH);
  });

  it('charges comparisons for their operands, so a large array cannot be compared over and over', () => {
    const data = Array.from({ length: 20_000 }, (_, i) => [i]);
    expect(failure(() => engine.render('mask', '{% for i in (1..1000) %}{% if data == data %}{% endif %}{% endfor %}', { data }))).toBe(TOO_MUCH);
    expect(failure(() => engine.render('mask', '{% for i in (1..1000) %}{% case data %}{% when data %}{% endcase %}{% endfor %}', { data }))).toBe(TOO_MUCH);
  });

  it('charges filters for their input, so a large value cannot be filtered over and over', () => {
    const data = { list: Array.from({ length: 20_000 }, (_, i) => ({ id: i })), needle: { zz: 1 } };
    const template = "{% for i in (1..1000) %}{% assign y = data.list | map: 'id' %}{% endfor %}";
    expect(failure(() => engine.render('mask', template, { data }))).toBe(TOO_MUCH);
    // `json` walks its path only, so it pays for its path, not for the value it starts from.
    expect(engine.render('mask', "{% for i in (1..1000) %}{% assign y = data | json: '$.needle.zz' %}{% endfor %}{{ y }}", { data })).toBe('1');
  });

  it('bounds the text a cheap loop builds, in the output or in a capture', () => {
    const data = 'x'.repeat(100_000);
    expect(failure(() => engine.render('mask', '{% for i in (1..100) %}{{ data }}{% endfor %}', { data }))).toBe(TOO_MUCH);
    const captured = '{% for i in (1..100) %}{% capture c %}{{ c }}{{ data }}{% endcapture %}{% endfor %}{{ c | size }}';
    expect(failure(() => engine.render('mask', captured, { data }))).toBe(TOO_MUCH);
  });

  it('still fingerprints the largest token a 1 MiB body can carry', () => {
    const data = Array.from({ length: 524_000 }, () => 1);
    expect(engine.render('fingerprint_expression', '{{ data | stringify }}', { data })).toHaveLength(1_048_001);
    expect(engine.render('fingerprint_expression', '{{ data }}', { data: 'x'.repeat(1_000_000) })).toHaveLength(1_000_000);
  });

  it('lets the templates of one mask share one budget', () => {
    const template = '{% for i in (1..1000) %}{% endfor %}{{ data | last4 }}';
    expect(small(20_000).render('mask', template, { data: 'abcd' })).toBe('abcd');
    const shared = new WorkBudget(20_000);
    expect(small(20_000).render('mask', template, { data: 'abcd' }, shared)).toBe('abcd');
    expect(failure(() => small(20_000).evaluate('mask', template, { data: 'abcd' }, shared))).toBe(TOO_MUCH);
  });
});

describe('filters that go over text a character at a time', () => {
  // Their cost per character, measured on 100,000 characters (Node 20; /tmp measurements written into
  // work-charges.ts). Charged as one unit per KiB like the native string filters, a loop of any of them over a large
  // token ran for seconds within one budget (15 s for alias_preserve_format over 600 KB) while every request waited.
  const NS_PER_CHARACTER: Readonly<Record<string, number>> = {
    alias_preserve_format: 79,
    alias_preserve_length: 34,
    card_mask: 68,
    'reveal_last: 2': 54,
    'reveal: 2': 43,
    sample: 450,
    slugify: 28,
    url_encode: 23,
    "replace: 'a', 'b'": 15,
    last4: 10,
  };
  const data = 'abcdef'.repeat(100_000);
  /** The most passes of `filter` over `data` one render may make (0 to 64). */
  const passes = (filter: string): number => {
    let lo = 0;
    let hi = 65;
    while (hi - lo > 1) {
      const n = (lo + hi) >> 1;
      const template = `{% for i in (1..${n}) %}{% assign y = data | ${filter} %}{% endfor %}{{ y | size }}`;
      if (failure(() => engine.render('mask', template, { data })) === undefined) lo = n;
      else hi = n;
    }
    return lo;
  };

  it.each(Object.keys(NS_PER_CHARACTER))('bounds a loop of %s over 600 KB to what a render may cost (about 0.3 s)', (filter) => {
    const n = passes(filter);
    expect(n).toBeLessThan(64);
    expect(n * data.length * NS_PER_CHARACTER[filter]!).toBeLessThanOrEqual(0.35e9);
  });
});

describe('searching one text for another', () => {
  // V8's search takes up to the product of the two lengths: `contains` on these took 2 s, charged as 5,000 units.
  const data = { h: 'a'.repeat(600_000), n: `${'a'.repeat(10_000)}b${'a'.repeat(10_000)}` };

  it.each([
    ['the contains operator', '{% if data.h contains data.n %}y{% endif %}'],
    ['split', '{{ data.h | split: data.n | size }}'],
    ['replace', "{{ data.h | replace: data.n, 'x' | size }}"],
    ['remove', '{{ data.h | remove: data.n | size }}'],
    ['remove_first', '{{ data.h | remove_first: data.n | size }}'],
    ['replace_last', "{{ data.h | replace_last: data.n, 'x' | size }}"],
  ])('charges %s for the product of the lengths: a long needle in a long text is refused before it runs', (_name, template) => {
    expect(failure(() => engine.render('mask', template, { data }))).toBe(TOO_MUCH);
  });

  it('still charges a short needle about nothing more than the text', () => {
    expect(engine.render('mask', "{{ data.h | split: '-' | size }}", { data })).toBe('1');
    expect(engine.render('mask', "{% if data.h contains 'ab' %}y{% else %}n{% endif %}", { data })).toBe('n');
  });
});

describe('reading a template', () => {
  it('is charged at its length on every render, cached or not, so the same template passes or fails alike', () => {
    const long = 'a{{ data }}'.repeat(100);
    const tight = small(8 * long.length - 1);
    for (let i = 0; i < 2; i++) expect(failure(() => tight.render('mask', long, { data: 'x' }))).toBe(TOO_MUCH);
    const roomy = small(8 * long.length + 100_000);
    for (let i = 0; i < 2; i++) expect(roomy.render('mask', long, { data: 'x' })).toBe('ax'.repeat(100));
  });
});

describe('an id expression checked for being an alias', () => {
  it('pays for reading it from the budget it is given, before it is read', () => {
    const template = `ref-{{ data | alias_preserve_length }}${'x'.repeat(4_000)}`;
    expect(() => engine.requireAlias('id', template, new WorkBudget(8 * template.length - 1))).toThrow(ValidationError);
    expect(() => engine.requireAlias('id', template, new WorkBudget(8 * template.length))).not.toThrow();
  });

  it('is refused past the length any expression may have (16,384 characters), unread', () => {
    expect(() => engine.requireAlias('id', `{{ data | alias_card }}${'{{1}}'.repeat(3_300)}`)).toThrow(ValidationError);
  });
});
