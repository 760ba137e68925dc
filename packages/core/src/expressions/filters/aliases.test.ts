import { ValidationError } from '../../shared/errors';
import { ExpressionEngine } from '../engine';
import { SequenceRandomSource } from '../../../testing/sequence-random-source';
import { passesLuhn } from './card-number';

const engineWith = (values?: number[]): ExpressionEngine => new ExpressionEngine({ random: new SequenceRandomSource(values) });
const render = (template: string, data: unknown, values?: number[]): string =>
  engineWith(values).render('id', template, { data });
const digitsOf = (text: string): number[] => text.replace(/\D/g, '').split('').map(Number);

it('draws randomness from the injected source only, never Math.random', () => {
  const spy = jest.spyOn(Math, 'random');
  render('{{ data | alias_preserve_format }}{{ data | alias_preserve_length }}{{ data | alias_card }}', '4242424242424242', [3, 1, 4, 1, 5]);
  expect(spy).not.toHaveBeenCalled();
  spy.mockRestore();
});

describe('alias_preserve_format', () => {
  it('replaces letters with letters and digits with digits, keeping other characters', () => {
    const alias = render('{{ data | alias_preserve_format }}', 'AB-cd 12.9');
    expect(alias).toMatch(/^[A-Z]{2}-[a-z]{2} \d{2}\.\d$/);
    expect(alias).not.toBe('AB-cd 12.9');
  });

  it('is deterministic given the random source', () => {
    expect(render('{{ data | alias_preserve_format }}', 'ABC123', [0, 1, 2, 3, 4, 5])).toBe('ABC345');
    expect(render('{{ data | alias_preserve_format }}', 'ABC123', [1, 1, 1, 9, 9, 9])).toBe('BBB999');
  });

  it.each([
    ['{{ data | alias_preserve_format: 3 }}', /^ABC\d{5}[A-Z]{3}\d{5}$/],
    ['{{ data | alias_preserve_format: 0, 5 }}', /^[A-Z]{3}\d{5}[A-Z]{3}67890$/],
    ['{{ data | alias_preserve_format: 3, 5 }}', /^ABC\d{5}[A-Z]{3}67890$/],
  ])('%s reveals the requested characters', (template, pattern) => {
    expect(render(template, 'ABC12345DEF67890', [7, 3, 1, 8])).toMatch(pattern);
  });

  it('keeps the last 4 of a dashed card number', () => {
    expect(render('{{ data | alias_preserve_format: 0, 4 }}', '4111-1111-1111-1234', [7, 3, 0, 2])).toBe('7302-7302-7302-1234');
  });

  it('reveals nothing when asked to reveal the whole value', () => {
    expect(render('{{ data | alias_preserve_format: 3, 3 }}', '123456', [0])).toBe('000000');
  });
});

describe('alias_preserve_length', () => {
  it('gives random alphanumerics of the same length, without keeping delimiters', () => {
    const alias = render('{{ data | alias_preserve_length }}', '4111-1111', [36 + 10, 5, 27]);
    expect(alias).toHaveLength(9);
    expect(alias).toMatch(/^[a-z0-9]{9}$/);
  });

  it.each([
    ['{{ data | alias_preserve_length: 3 }}', /^ABC[a-z0-9]{13}$/],
    ['{{ data | alias_preserve_length: 0, 5 }}', /^[a-z0-9]{11}67890$/],
    ['{{ data | alias_preserve_length: 3, 5 }}', /^ABC[a-z0-9]{8}67890$/],
  ])('%s reveals the requested characters', (template, pattern) => {
    expect(render(template, 'ABC12345DEF67890')).toMatch(pattern);
  });
});

describe('alias_card', () => {
  const number = '3622720627165567';

  it.each([
    ['{{ data | alias_card }}', /^\d{16}$/],
    ["{{ data | alias_card: 'false', 'false' }}", /^\d{16}$/],
    ["{{ data | alias_card: 'true', 'false' }}", /^36227206\d{8}$/],
    ["{{ data | alias_card: 'true', 'true' }}", /^36227206\d{4}5567$/],
    ["{{ data | alias_card: 'false', 'true' }}", /^\d{12}5567$/],
  ])('%s gives a Luhn-valid alias of the same shape', (template, pattern) => {
    for (const values of [[1, 2, 3], [9, 8, 7, 6, 5], [0]]) {
      const alias = render(template, number, values);
      expect(alias).toMatch(pattern);
      expect(passesLuhn(digitsOf(alias))).toBe(true);
      expect(alias).not.toBe(number);
    }
  });

  it('keeps space and dash delimiters', () => {
    const dashed = render("{{ data | alias_card: 'true', 'true' }}", '3622-7206-2716-5567', [4, 2]);
    expect(dashed).toMatch(/^3622-7206-\d{4}-5567$/);
    expect(passesLuhn(digitsOf(dashed))).toBe(true);
    const spaced = render('{{ data | alias_card }}', '4242 4242 4242 4242', [7, 1, 3]);
    expect(spaced).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
    expect(passesLuhn(digitsOf(spaced))).toBe(true);
  });

  it('uses a 6-digit BIN under 16 digits', () => {
    const alias = render('{{ data | alias_card: true }}', '36227206271667', [5]);
    expect(alias).toMatch(/^362272\d{8}$/);
    expect(passesLuhn(digitsOf(alias))).toBe(true);
  });

  it('fails rather than return the card number when the random source keeps repeating it', () => {
    expect(() => render('{{ data | alias_card }}', '4242 4242 4242 4242', [4, 2])).toThrow(ValidationError);
  });

  it('never returns the card number itself', () => {
    // With the all-zero source the first draft can coincide; the alias must still differ.
    const alias = render('{{ data | alias_card: true, true }}', '362272000001667', [0, 1]);
    expect(alias).not.toBe('362272000001667');
    expect(passesLuhn(digitsOf(alias))).toBe(true);
  });

  it('is an error when the number is too short or not a card number', () => {
    expect(() => render('{{ data | alias_card }}', '4242')).toThrow(ValidationError);
    expect(() => render('{{ data | alias_card: true, true }}', '42424242424')).toThrow(ValidationError);
    expect(() => render('{{ data | alias_card }}', '42424242424242424242')).toThrow(ValidationError);
    expect(() => render('{{ data | alias_card }}', null)).toThrow(ValidationError);
    expect(() => render('{{ data | alias_card }}', '4242x42424242424')).toThrow(ValidationError);
  });
});
