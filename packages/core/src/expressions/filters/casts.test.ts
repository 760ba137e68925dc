import { ValidationError } from '../../shared/errors';
import { ExpressionEngine } from '../engine';
import { SequenceRandomSource } from '../../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const evaluate = (template: string, data: unknown): unknown => engine.evaluate('mask', template, { data });

describe('to_boolean', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['TRUE', true],
    [true, true],
    [0, false],
    [null, null],
  ])('casts %p to %p', (data, expected) => {
    expect(evaluate('{{ data | to_boolean }}', data)).toBe(expected);
  });

  it('works on the documented object', () => {
    const data = { true_string: 'true', false_string: 'false' };
    expect(evaluate('{{ data.true_string | to_boolean }}', data)).toBe(true);
    expect(evaluate('{{ data.false_string | to_boolean }}', data)).toBe(false);
  });

  it('rejects other values', () => {
    expect(() => evaluate('{{ data | to_boolean }}', 'yes')).toThrow(ValidationError);
    expect(() => evaluate('{{ data | to_boolean }}', { a: 1 })).toThrow(ValidationError);
  });
});

describe('to_number', () => {
  it.each([
    ['42', 42],
    ['3.14159', 3.14159],
    [' -7 ', -7],
    ['1e3', 1000],
    [12, 12],
    [null, null],
  ])('casts %p to %p', (data, expected) => {
    expect(evaluate('{{ data | to_number }}', data)).toBe(expected);
  });

  it.each(['abc', '', '0x10', '1,000', 'Infinity'])('rejects %p', (data) => {
    expect(() => evaluate('{{ data | to_number }}', data)).toThrow(ValidationError);
  });

  it('rejects booleans and objects', () => {
    expect(() => evaluate('{{ data | to_number }}', true)).toThrow(ValidationError);
    expect(() => evaluate('{{ data | to_number }}', [1])).toThrow(ValidationError);
  });
});

describe('to_string', () => {
  const data = { numeric_value: 3.14159, boolean_value: true, string_value: 'foo', object_value: { a: 1 } };

  it.each([
    ['{{ data.numeric_value | to_string }}', '3.14159'],
    ['{{ data.boolean_value | to_string }}', 'true'],
    ['{{ data.string_value | to_string }}', 'foo'],
    ['{{ data.missing | to_string }}', null],
  ])('%s gives %p', (template, expected) => {
    expect(evaluate(template, data)).toBe(expected);
  });

  it('rejects objects', () => {
    expect(() => evaluate('{{ data.object_value | to_string }}', data)).toThrow(ValidationError);
  });
});
