import { Liquid } from 'liquidjs';
import { ValidationError } from '../shared/errors';
import { ExpressionEngine } from './engine';
import { SequenceRandomSource } from '../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });

/** The ValidationError thrown by `action`, or a failed expectation if none (or another error) is thrown. */
function validationErrorOf(action: () => unknown): ValidationError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('ExpressionEngine.isExpression', () => {
  it.each([
    ['{{ data }}', true],
    ['prefix-{{ data | last4 }}', true],
    ['{% if data %}x{% endif %}', true],
    ['plain-id-123', false],
    ['{ data }', false],
  ])('%s → %s', (value, expected) => {
    expect(ExpressionEngine.isExpression(value)).toBe(expected);
  });
});

describe('ExpressionEngine.check', () => {
  it('accepts a valid expression', () => {
    expect(() => engine.check('mask', "{{ data | reveal: 0, 4, 'X', '-' }}")).not.toThrow();
  });

  it('rejects an unknown filter, naming the field and the filter', () => {
    const error = validationErrorOf(() => engine.check('mask.number', '{{ data.number | reveal_lst: 4 }}'));
    expect(Object.keys(error.errors)).toEqual(['mask.number']);
    expect(error.errors['mask.number']?.[0]).toContain('reveal_lst');
  });

  it.each(['{{ data | ', '{% if data %}', '{% for x %}{% endfor %}', '{% endfor %}'])('rejects %s, which does not parse', (template) => {
    const error = validationErrorOf(() => engine.check('fingerprint_expression', template));
    expect(error.errors).toHaveProperty(['fingerprint_expression']);
  });

  it.each(['{{ data | }}', '{{ data | last4 |}}', '{{- data | -}}', '{% assign x = data | %}{{ x }}'])(
    'rejects %s rather than print the data unfiltered',
    (template) => {
      expect(() => engine.render('mask', template, { data: '4242424242424242' })).toThrow(ValidationError);
    },
  );

  it('rejects a template longer than the parse limit', () => {
    const small = new ExpressionEngine({ random: new SequenceRandomSource(), limits: { parseLimit: 50 } });
    expect(() => small.check('id', `{{ data }}${'x'.repeat(100)}`)).toThrow(ValidationError);
  });

  it('parses each template text once', () => {
    const parse = jest.spyOn(Liquid.prototype, 'parse');
    const fresh = new ExpressionEngine({ random: new SequenceRandomSource() });
    fresh.check('mask', '{{ data | last4 }}');
    fresh.render('mask', '{{ data | last4 }}', { data: '4242424242424242' });
    fresh.evaluate('mask', '{{ data | last4 }}', { data: '4242424242424242' });
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
  });
});

describe('ExpressionEngine sandbox', () => {
  it.each([
    "{% include 'package.json' %}",
    "{% render 'package.json' %}",
    "{% layout 'package.json' %}x",
    "{% include '/etc/passwd' %}",
    '{% include data %}',
  ])('%s cannot read files', (template) => {
    const error = validationErrorOf(() => engine.render('mask', template, { data: 'package.json' }));
    expect(JSON.stringify(error.errors)).not.toContain('"name"');
  });

  it('sees own properties only', () => {
    expect(engine.render('mask', '[{{ data.constructor }}|{{ data.__proto__ }}|{{ data.toString }}]', { data: { a: 1 } })).toBe('[||]');
  });

  it('bounds huge ranges', () => {
    const template = '{% for i in (1..100000000) %}{{ i }}{% endfor %}';
    expect(() => engine.render('mask', template, { data: 'x' })).toThrow(ValidationError);
  });

  it('bounds render work', () => {
    const slow = new ExpressionEngine({ random: new SequenceRandomSource(), limits: { workLimit: 1000 } });
    const loops = '{% for a in (1..2000) %}{% for b in (1..2000) %}{{ b }}{% endfor %}{% endfor %}';
    expect(() => slow.render('mask', loops, { data: 'x' })).toThrow(ValidationError);
  });

  it('does not let tags change the caller’s scope', () => {
    const scope = { data: { n: 1 } };
    engine.render('mask', '{% increment data %}{% assign data = 5 %}', scope);
    expect(scope).toEqual({ data: { n: 1 } });
  });
});

describe('ExpressionEngine.render', () => {
  it('renders text around outputs', () => {
    expect(engine.render('id', 'card-{{ data | last4 }}', { data: '4242424242424242' })).toBe('card-4242');
  });

  it('binds metadata when given', () => {
    const scope = { data: '123', metadata: { customer: 'c-1' } };
    expect(engine.render('fingerprint_expression', '{{ metadata.customer }}:{{ data }}', scope)).toBe('c-1:123');
  });

  it.each([
    ['{{ data.account_number }}|{{ data.routing_number }}', { account_number: '000123456789', routing_number: '110000000' }, '000123456789|110000000'],
    ["{{ data | remove: '-' }}", '123-45-6789', '123456789'],
    ['{{ data.number }}', { number: '4242424242424242' }, '4242424242424242'],
    ['{{ data.items.size }}:{{ data.items.first }}', { items: [7, 8] }, '2:7'],
  ])('renders the default or standard expression %s', (template, data, expected) => {
    expect(engine.render('fingerprint_expression', template, { data })).toBe(expected);
  });

  it('renders a missing value as empty text', () => {
    expect(engine.render('mask', '{{ data.nonexistent }}', { data: {} })).toBe('');
  });

  it('renders numbers as text', () => {
    expect(engine.render('mask', '{{ data.expiration_month }}', { data: { expiration_month: 12 } })).toBe('12');
  });
});

describe('ExpressionEngine.evaluate', () => {
  const card = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, nested: { a: [1, 2] } };
  const evaluate = (template: string, data: unknown = card): unknown => engine.evaluate('mask', template, { data });

  it('keeps the type of a sole output', () => {
    expect(evaluate('{{ data.expiration_month }}')).toBe(12);
    expect(evaluate('  {{ data.expiration_year }}\n')).toBe(2030);
    expect(evaluate('{{ data.nested }}')).toEqual({ a: [1, 2] });
    expect(evaluate('{{ data.nested.a }}')).toEqual([1, 2]);
    expect(evaluate('{{ data.number | slice: 0, 4 | to_number }}')).toBe(4242);
    expect(evaluate('{{ data.expiration_month | to_string }}')).toBe('12');
  });

  it('gives null for null and missing values', () => {
    expect(evaluate('{{ data.nonexistent }}')).toBeNull();
    expect(evaluate('{{ data }}', null)).toBeNull();
  });

  it('renders to text when the template is more than one output', () => {
    expect(evaluate('{{ data.expiration_month }}/{{ data.expiration_year }}')).toBe('12/2030');
    expect(evaluate('month {{ data.expiration_month }}')).toBe('month 12');
    expect(evaluate('{% if data %}{{ data.expiration_month }}{% endif %}')).toBe('12');
  });

  it('masks with the card_number default', () => {
    expect(evaluate('{{ data | reveal_last: 4 }}', '4242424242424242')).toBe('XXXXXXXXXXXX4242');
  });

  it('reports failures as ValidationError naming the field', () => {
    const error = validationErrorOf(() => engine.evaluate('mask.expiration_month', '{{ data | to_number }}', { data: 'abc' }));
    expect(Object.keys(error.errors)).toEqual(['mask.expiration_month']);
  });
});

describe('ExpressionEngine errors', () => {
  const secret = '4111-SECRET-9876';

  it.each([
    ['{{ data | to_number }}', 'a cast'],
    ["{{ data | json: '$.missing' }}", 'a JSONPath with no match'],
    ['{{ data | card_bin }}', 'a value that is not a card'],
    ['{{ data | alias_card }}', 'an alias of a non-card'],
    ['{{ data | reveal_last: data }}', 'an argument taken from the data'],
    ["{{ data | card_exp: 'MM' }}", 'a value that is not a card object'],
    ['{{ data | to_boolean }}', 'a boolean cast'],
  ])('never include the data: %s (%s)', (template) => {
    for (const run of [() => engine.render('mask', template, { data: secret }), () => engine.evaluate('mask', template, { data: secret })]) {
      const error = validationErrorOf(run);
      expect(error.errors).toHaveProperty(['mask']);
      const text = `${error.message} ${JSON.stringify(error.errors)}`;
      expect(text).not.toContain('SECRET');
      expect(text).not.toContain('9876');
    }
  });

  it('turns unexpected errors into a generic message', () => {
    const throwing = {
      get boom(): string {
        throw new TypeError(`cannot read ${secret}`);
      },
    };
    const error = validationErrorOf(() => engine.render('mask', '{{ data.boom }}', { data: throwing }));
    expect(error.errors).toEqual({ mask: ['The expression could not be evaluated.'] });
  });

  it('explains the failing filter', () => {
    const error = validationErrorOf(() => engine.render('mask', '{{ data | to_number }}', { data: 'abc' }));
    expect(error.errors).toEqual({ mask: ['to_number: the value cannot be cast to a number.'] });
  });
});

describe('ExpressionEngine plain paths ({{ data }}, {{ data.a.b }}: rendered without Liquid)', () => {
  const fc = require('fast-check') as typeof import('fast-check');

  it('renders exactly what Liquid renders, for any data', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }));
    const data = fc.oneof(
      value,
      fc.record({ a: fc.oneof(value, fc.record({ b: value })), constructor: value }, { requiredKeys: [] }),
      fc.constant(Object.create({ a: 'inherited' }) as unknown),
    );
    fc.assert(
      fc.property(data, fc.constantFrom('{{ data }}', '{{data}}', '{{ data.a }}', '{{ data.a.b }}', '{{ data.constructor }}', '{{ data.length }}'), (d, template) => {
        const outcome = (t: string): unknown => {
          try {
            return { ok: engine.render('f', t, { data: d }) };
          } catch (error) {
            return { error: (error as ValidationError).errors };
          }
        };
        // The same output after an empty one is no plain path: Liquid renders it.
        expect(outcome(template)).toEqual(outcome(`{{ '' }}${template}`));
      }),
      { seed: 20261123, numRuns: 2000 },
    );
  });
});
