import { ValidationError } from '../../shared/errors';
import { ExpressionEngine } from '../engine';
import { SequenceRandomSource } from '../../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const render = (template: string, data: unknown): string => engine.render('fingerprint_expression', template, { data });
const evaluate = (template: string, data: unknown): unknown => engine.evaluate('mask', template, { data });

const store = {
  number: '4242424242424242',
  books: [
    { category: 'fiction', author: 'Herman Melville', title: 'Moby Dick', isbn: '0-553-21311-3', price: 8.99 },
    { category: 'fantasy', author: 'J. R. R. Tolkien', title: 'The Lord of the Rings', isbn: '0-395-19395-8', price: 22.99 },
  ],
  bicycle: { color: 'red', price: 19.95 },
  bicycles: [
    { color: 'red', price: 19.95 },
    { color: 'blue', price: 24.95 },
  ],
};

describe('json', () => {
  it.each([
    ["{{ data | json: '$.number' }}", '4242424242424242'],
    ["{{ data | json: '$.bicycle.color' }}", 'red'],
    ["{{ data | json: '$.bicycle.price' }}", '19.95'],
    ["{{ data | json: '$.books[0].author' }}", 'Herman Melville'],
    ["{{ data | json: '$[\"books\"][1][\"title\"]' }}", 'The Lord of the Rings'],
  ])('%s gives %s', (template, expected) => {
    expect(render(template, store)).toBe(expected);
  });

  it('keeps the type of the single match', () => {
    expect(evaluate("{{ data | json: '$.bicycle.price' }}", store)).toBe(19.95);
    expect(evaluate("{{ data | json: '$.bicycle' }}", store)).toEqual({ color: 'red', price: 19.95 });
  });

  it.each([
    ["{{ data | json: '$.book..author' }}", 'no match'],
    ["{{ data | json: '$.books..author' }}", 'two matches'],
    ["{{ data | json: '$.missing' }}", 'no match'],
    ['{{ data | json }}', 'no path'],
    ["{{ data | json: '$.books[?(@.price <' }}", 'a broken path'],
    ["{{ data | json: '$.books[?(@.price < 10)].title' }}", 'a filter script, whose cost grows with its length'],
    ["{{ data | json: '$..title' }}", 'recursive descent, whose cost grows with the nesting'],
    ["{{ data | json: '$.books[*]' }}", 'a wildcard'],
    ["{{ data | json: '$.books[0:1]' }}", 'a slice'],
    ["{{ data | json: '$.number.length' }}", 'a string has no members'],
    ["{{ data | json: '$.number[0]' }}", 'a string is not indexable'],
    ["{{ data | json: '$.books.length' }}", 'an array has no length'],
    ["{{ data | json: '$.books[2]' }}", 'an index past the end'],
    ["{{ data | json: '$.bicycle.constructor' }}", 'an inherited property'],
    ["{{ data | json: '$.bicycle.toString' }}", 'an inherited method'],
    ["{{ data | json: '$.bicycle.color.length' }}", 'a member of a string member'],
  ])('%s is an error (%s)', (template) => {
    expect(() => render(template, store)).toThrow(ValidationError);
  });

  it("follows members and indexes as JSON has them: own keys, elements, quoted and escaped names, numeric keys", () => {
    const data = { 'a b': [10, 20], "it's": 'quoted', '0': 'zero key', list: [['x']] };
    expect(render("{{ data | json: \"$['a b'][1]\" }}", data)).toBe('20');
    expect(render("{{ data | json: \"$['a b']['0']\" }}", data)).toBe('10');
    expect(render("{{ data | json: '$[\"it\\'s\"]' }}", data)).toBe('quoted');
    expect(render("{{ data | json: '$[0]' }}", data)).toBe('zero key');
    expect(render("{{ data | json: '$.list[0][0]' }}", data)).toBe('x');
    expect(render("{{ data | json: '$' }}", 'plain')).toBe('plain');
    expect(() => render("{{ data | json: '$.length' }}", 'secret')).toThrow(ValidationError);
    expect(() => render("{{ data | json: '$[0]' }}", 'secret')).toThrow(ValidationError);
  });

  it('refuses a path of recursive descents over deeply nested data at once, instead of exhausting the heap', () => {
    const deep = JSON.parse(`${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`) as unknown;
    expect(() => render("{{ data | json: '$..*..*' }}", deep)).toThrow(ValidationError);
  });

  it('cannot run code from a filter script', () => {
    const attack = "{{ data | json: '$..[?(@.constructor.constructor(\"return process\")().exit(1))]' }}";
    expect(() => render(attack, store)).toThrow(ValidationError);
  });
});

describe('json_stringify and stringify', () => {
  it.each([
    ['{{ data.books[0].price | stringify }}', '8.99'],
    ['{{ data.books[1].title | stringify }}', '"The Lord of the Rings"'],
    ['{{ data.bicycles[1] | stringify }}', '{"color":"blue","price":24.95}'],
    ['{{ data.bicycles | json_stringify }}', '[{"color":"red","price":19.95},{"color":"blue","price":24.95}]'],
    ['{{ data.missing | stringify }}', 'null'],
  ])('%s gives %s', (template, expected) => {
    expect(render(template, store)).toBe(expected);
  });

  it('serializes the whole token data for the default fingerprint', () => {
    expect(render('{{ data | stringify }}', { a: 1, b: [true, null] })).toBe('{"a":1,"b":[true,null]}');
    expect(render('{{ data | stringify }}', null)).toBe('null');
    expect(render('{{ data | stringify }}', 'text')).toBe('"text"');
  });
});
