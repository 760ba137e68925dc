import { ValidationError } from '../shared/errors';
import { ExpressionEngine } from './engine';
import { SequenceRandomSource } from '../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const card = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };

/** The one message of the ValidationError `action` throws for `field`. */
function refusal(field: string, action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const errors = (error as ValidationError).errors;
    expect(Object.keys(errors)).toEqual([field]);
    return errors[field]?.[0] ?? '';
  }
  throw new Error('expected a ValidationError');
}

const refuses = (template: string): string => refusal('mask', () => engine.render('mask', template, { data: card }));

describe('Strict reading of expressions', () => {
  it('refuses the Basis Theory SDK mask {{ data.number, reveal_last: 4 }}, saying where it stops', () => {
    const message = refusal('mask.number', () => engine.evaluate('mask.number', '{{ data.number, reveal_last: 4 }}', { data: card }));
    expect(message).toBe("The expression is invalid: unexpected ',' at column 15.");
  });

  it('refuses a filter written without its pipe rather than print the first operand', () => {
    expect(refuses('{{ data.number reveal_last }}')).toBe("The expression is invalid: unexpected 'reveal_last' at column 16.");
  });

  it.each([
    ['{{ data | reveal_last: 4, }}', 'a trailing comma'],
    ['{{ data | reveal_last: }}', 'a colon with no argument'],
    ['{{ data | reveal_last: 4 4 }}', 'two arguments with no comma'],
    ['{{ data | reveal_last 4 }}', 'an argument with no colon'],
    ['{{ data | reveal_last: 4 ) }}', 'a stray parenthesis after an argument'],
    ['{{ data | }}', 'a dangling pipe'],
    ['{{ data.number | reveal_last: 4 | }}', 'a dangling pipe after a filter'],
    ['{{ data || last4 }}', 'a doubled pipe'],
    ['{{ data ) }}', 'a stray parenthesis'],
    ['{{ data ] }}', 'a stray bracket'],
    ['{{ data : 4 }}', 'a colon after a value'],
    ['{{ data.number[0 junk] }}', 'junk inside brackets'],
    ['{{ data.number. }}', 'a trailing dot'],
    ['{{ data. number }}', 'a blank after a dot'],
    ['{{ [] }}', 'empty brackets'],
    ['{{ }}', 'nothing'],
    ['{{ == data }}', 'an operator with no left operand'],
    ['{{ data.number == }}', 'an operator with no right operand'],
    ['{{ data.number == not data }}', "'not' after a comparison, which liquidjs reads as dropping the left side"],
    ['{{ data | upcase: 1 }}', 'an argument the filter does not take'],
    ["{{ data.number | reveal_last: 4, 'X', 'Y' }}", 'one argument too many'],
    ["{{ data.number | append: '', last4 }}", 'a comma typed for a pipe, which would pass the filter as an unused argument'],
    ["{{ data.number | append: 'x', reveal_last: 4 }}", 'a comma typed for a pipe, which would pass the filter as an unused keyword'],
    ["{{ data | default: 'x', 'allow_false': true }}", 'a keyword that is not a plain name'],
    ["{{ data | default: 'x', allow_false: true, allow_false: true }}", 'a keyword given twice'],
    ["{{ data.number | where_exp: 'x', 'x == 1' }}", 'a filter that evaluates a string as an expression'],
    ['{{ data | stringify | upcase }}', "a filter after 'stringify', which must be the last"],
    ['{{ data | json_stringify | json_stringify }}', "'json_stringify' twice"],
    ["{% assign x = data | stringify | append: 'x' %}{{ x }}", "a filter after 'stringify' in an assigned value"],
  ])('refuses %s (%s)', (template) => {
    expect(refuses(template)).toMatch(/^The expression is invalid: .+ at column \d+\.$/);
  });

  it.each([
    ['{% if data, x %}{% endif %}', 'junk after a condition'],
    ['{% if data %}{% endif junk %}', 'arguments on an end tag'],
    ['{% if data %}{% else junk %}{% endif %}', "arguments on 'else'"],
    ['{% assign x = data, y %}', 'junk after an assigned value'],
    ['{% assign x data %}', "a missing '='"],
    ['{% assign = data %}', 'a missing name'],
    ['{% for x in data foo %}{% endfor %}', 'an unknown loop option'],
    ['{% for x in data limit: %}{% endfor %}', 'a loop option with no value'],
    ['{% for x in data limit: 1 limit: 2 %}{% endfor %}', 'a loop option given twice'],
    ['{% for x in data reversed: 1 %}{% endfor %}', "a value for 'reversed'"],
    ['{% for x in data, limit: 1 %}{% endfor %}', 'a comma before the first option'],
    ['{% for x in data limit: 1, %}{% endfor %}', 'a trailing comma'],
    ['{% case data %}{% when 1 junk %}{% endcase %}', "junk between 'when' values"],
    ['{% case data %}{% when 1 orange %}{% endcase %}', "'or' inside a word"],
    ['{% case data %}{% when 1, %}{% endcase %}', "a trailing ',' in 'when'"],
    ['{% case data %}{% when %}{% endcase %}', "an empty 'when'"],
    ['{% capture x y %}{% endcapture %}', 'junk after the captured name'],
    ['{% increment %}', 'a missing name'],
    ['{% increment x y %}', 'junk after the name'],
    ['{% echo %}', 'an empty echo'],
    ['{% echo data x %}', 'junk after the echoed value'],
    ['{% comment junk %}{% endcomment %}', 'arguments on comment'],
    ['{% raw junk %}{% endraw %}', 'arguments on raw'],
    ['{% assign x = "%}" %}', 'a string cut by the end of the tag'],
  ])('refuses the tag in %s (%s)', (template) => {
    expect(refuses(template)).toMatch(/^The expression is invalid: .+ at column \d+\.$/);
  });

  it.each([
    ['{% if data %}{% else %}{% elsif data %}{% endif %}', "'elsif' after 'else'"],
    ['{% if data %}{% else %}{% else %}{% endif %}', "a second 'else'"],
    ['{% unless data %}{% else %}{% elsif data %}{% endunless %}', "'elsif' after 'else' in unless"],
    ['{% case data %}{% else %}{% when 1 %}{% endcase %}', "'when' after 'else', which liquidjs ignores"],
    ['{% case data %}{% else %}a{% else %}b{% endcase %}', "a second 'else' in case"],
    ['{% case data %}{{ data }}{% when 1 %}{% endcase %}', "output before the first 'when', which liquidjs drops"],
    ['{% case data %}text{% when 1 %}{% endcase %}', "text before the first 'when'"],
    ['{% break %}', "'break' outside a loop"],
    ['{% if data %}{% continue %}{% endif %}', "'continue' outside a loop"],
    ['{% capture x %}{% else %}{% endcapture %}', "'else' in capture"],
    ['{% if data %}{% endfor %}', 'an end tag that closes another block'],
    ['{% endif %}', 'an end tag with nothing open'],
    ['{% when 1 %}', "'when' outside case"],
    ['{% if data %}', 'a block never closed'],
    ['{% comment %}', 'a comment never closed'],
  ])('refuses the structure of %s (%s)', (template) => {
    expect(refuses(template)).toMatch(/^The expression is invalid: .+ at column \d+\.$/);
  });

  it.each(['cycle 1, 2', 'liquid echo data', 'tablerow x in data', 'block name', 'include "x"', 'render "x"', 'layout "x"'])(
    'has no {%% %s %%} tag',
    (tag) => {
      expect(refuses(`{% ${tag} %}`)).toMatch(/^The expression is invalid: unknown tag '\w+' at column 1\.$/);
    },
  );

  it('names the line and column in a template of several lines', () => {
    expect(refuses('{{ data.number | last4 }}\n{{ data.number, x }}')).toBe("The expression is invalid: unexpected ',' at line 2, column 15.");
  });

  it('describes the template, never the data, when it refuses', () => {
    const secret = { number: '4111-SECRET-9876' };
    for (const template of ['{{ data.number, reveal_last: 4 }}', '{{ data.number reveal_last }}', '{% if data.number, x %}{% endif %}']) {
      const message = refusal('mask', () => engine.render('mask', template, { data: secret }));
      expect(message).not.toContain('SECRET');
      expect(message).not.toContain('9876');
    }
  });

  it.each<[string, string]>([
    ['{{ data.number | reveal_last: 4 }}', 'XXXXXXXXXXXX4242'],
    ['{{data.number|reveal_last:4}}', 'XXXXXXXXXXXX4242'],
    ['{{ data.number | reveal_last : 4 }}', 'XXXXXXXXXXXX4242'],
    ["{{ data.number | reveal: 6, 4, '#' }}", '424242######4242'],
    ["{{- data['number'] | slice: 0, 4 -}}", '4242'],
    ["{{ data.missing | default: 'none', allow_false: true }}", 'none'],
    ['{{ (1..3) | join: "," }}', '1,2,3'],
    ['{{ "a}}b" | append: "%}" }}', 'a}}b%}'],
    ["{{ 'it\\'s' }}", "it's"],
    ['{{ not data.missing }}', 'true'],
    ['{{ data.number and not data.missing }}', 'true'],
    ['{% if data.expiration_month > 6 and data.number contains "4242" or data == empty %}late{% endif %}', 'late'],
    ['{% unless data.missing %}a{% elsif data %}b{% else %}c{% endunless %}', 'a'],
    ['{% for x in (1..5) reversed limit: 2 offset: 1 %}{{ x }}{% else %}none{% endfor %}', '32'],
    ['{% for x in (1..5) limit: 2, offset: 1 %}{{ x }}{% endfor %}', '23'],
    ['{% for x in (1..5) %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}', '12'],
    ['{% for x in (1..3) %}{% capture c %}{% continue %}{% endcapture %}{{ x }}{% endfor %}', ''],
    ['{% case data.expiration_month %}{% when 1, 2 or 3 %}q1{% when 12 %}q4{% else %}other{% endcase %}', 'q4'],
    ['{% case data.expiration_month %}\n  {% # which quarter %}{% when 12 %}q4{% endcase %}', 'q4'],
    ["{% capture last %}{{ data.number | last4 }}{% endcapture %}{% capture 'y' %}{{ data.expiration_year }}{% endcapture %}{{ last }}/{{ y }}", '4242/2030'],
    ['{% assign n = data.number | slice: 0, 6 %}{% echo n | append: "-" %}', '424242-'],
    ['{% increment c %}{% increment c %}{% decrement d %}', '01-1'],
    ['{% comment %}{{ data.number, anything }}{% endcomment %}ok', 'ok'],
    ['{% raw %}{{ data.number, as text }}{% endraw %}', '{{ data.number, as text }}'],
    ['{% # an inline comment %}{{ data.expiration_year }}', '2030'],
  ])('still renders %s', (template, expected) => {
    expect(engine.render('mask', template, { data: card })).toBe(expected);
  });
});

describe('Strict reading of text between tags', () => {
  it.each([
    '{{ data.number }}| reveal_last: 4 }}',
    '{{ data.number -}} reveal_last: 4 }}',
    '{% echo data.number %}| reveal_last: 4 %}',
    '{% assign x = data.number %}| reveal_last: 4 %}{{ x }}',
    '{% if data %}{{ data.number}} | last4 }}{% endif %}',
  ])('refuses a stray closing delimiter, a mask typed with one too many: %s', (template) => {
    expect(refuses(template)).toMatch(/^The expression is invalid: a stray '(\}\}|%\})' outside a tag at column \d+\.$/);
  });

  it('takes no indent for jsonify or inspect, whose output would grow with the square of the nesting', () => {
    expect(refuses('{{ data | jsonify: 10 }}')).toMatch(/^The expression is invalid: /);
    expect(refuses('{{ data | inspect: 2 }}')).toMatch(/^The expression is invalid: /);
    expect(engine.render('mask', '{{ data.expiration_month | jsonify }}', { data: card })).toBe('12');
  });
});
