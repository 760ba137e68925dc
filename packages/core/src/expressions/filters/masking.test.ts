import { ValidationError } from '../../shared/errors';
import { ExpressionEngine } from '../engine';
import { SequenceRandomSource } from '../../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const render = (template: string, data: unknown): string => engine.render('mask', template, { data });

describe('last4', () => {
  it.each([
    ['4242424242424242', '4242'],
    ['3622720627165567', '5567'],
    ['36227206271667', '1667'],
    ['123', '123'],
  ])('gives the last 4 characters of %s', (data, expected) => {
    expect(render('{{ data | last4 }}', data)).toBe(expected);
  });

  it('works after slice, as in the documentation', () => {
    expect(render('{{ data | slice: 12, 2 | last4 }}', '36227206271667')).toBe('67');
  });

  it('keeps null as null', () => {
    expect(engine.evaluate('mask', '{{ data | last4 }}', { data: null })).toBeNull();
  });
});

describe('reveal_last', () => {
  it.each([
    ['{{ data | reveal_last: 6 }}', '36227206271667', 'XXXXXXXX271667'],
    ["{{ data | reveal_last: 3, '#' }}", '36227206271667', '###########667'],
    ['{{ data | reveal_last: 4 }}', '4242424242424242', 'XXXXXXXXXXXX4242'],
    ['{{ data | reveal_last: 4 }}', '123-45-6789', 'XXX-XX-6789'],
    ['{{ data | reveal_last: 4 }}', '12-3456789', 'XX-XXX6789'],
    ["{{ data | reveal_last: 4, '#' }}", '4242-4242-4242-4242', '####-####-####-4242'],
    ['{{ data | reveal_last: 4 }}', '1234', '1234'],
    ['{{ data | reveal_last: 6 }}', '12', '12'],
  ])('%s on %s gives %s', (template, data, expected) => {
    expect(render(template, data)).toBe(expected);
  });

  it('requires a length', () => {
    expect(() => render('{{ data | reveal_last }}', '1234')).toThrow(ValidationError);
  });

  it('rejects a mask_char longer than one character', () => {
    expect(() => render("{{ data | reveal_last: 4, 'XX' }}", '123456789')).toThrow(ValidationError);
  });
});

describe('reveal', () => {
  const card = '3622-7206-2716-5567';

  it.each([
    ['{{ data | reveal: 6 }}', '3622-7XXXXXXXXXXXXX'],
    ['{{ data | reveal: 7, 5 }}', '3622-72XXXXXXX-5567'],
    ["{{ data | reveal: 7, 5, '#' }}", '3622-72#######-5567'],
    ["{{ data | reveal: 7, 4, '#', '-' }}", '3622-72##-####-5567'],
    ['{{ data | reveal: 10, 9 }}', 'X'.repeat(19)],
    ['{{ data | reveal: 30, 30 }}', 'X'.repeat(19)],
    ['{{ data | reveal }}', 'X'.repeat(19)],
  ])('%s gives %s', (template, expected) => {
    expect(render(template, card)).toBe(expected);
  });

  it.each([
    ['123-45-6789', 'XXX-XX-6789'],
    ['123456789', 'XXXXX6789'],
    ['12-3456789', 'XX-XXX6789'],
  ])("masks the SSN/EIN %s with the default mask as %s", (data, expected) => {
    expect(render("{{ data | reveal: 0, 4, 'X', '-' }}", data)).toBe(expected);
  });

  it('masks everything when masking would change nothing', () => {
    expect(render("{{ data | reveal: 1, 1, 'X', '-' }}", '1--2')).toBe('XXXX');
  });

  it('rejects a negative count', () => {
    expect(() => render('{{ data | reveal: -1 }}', card)).toThrow(ValidationError);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(render('{{ data | reveal: 0, 1 }}', 'a😀b')).toBe('XXb');
  });
});
