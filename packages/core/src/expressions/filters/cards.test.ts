import { ValidationError } from '../../shared/errors';
import { ExpressionEngine } from '../engine';
import { SequenceRandomSource } from '../../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const render = (template: string, data: unknown): string => engine.render('mask', template, { data });
const card = { number: '3622720627165567', expiration_month: 12, expiration_year: 2030 };

describe('card_bin', () => {
  it.each([
    ['3622720627165567', '{{ data | card_bin }}', '36227206'],
    ['36227206271667', '{{ data | card_bin }}', '362272'],
    ['4242424242424242', '{{ data | card_bin }}', '42424242'],
    ['3622-7206-2716-5567', "{{ data | card_bin: '-' }}", '36227206'],
    ['3622 7206 2716 67', "{{ data | card_bin: ' ' }}", '362272'],
  ])('of %s with %s is %s', (data, template, expected) => {
    expect(render(template, data)).toBe(expected);
  });

  it('works on the number of a card object', () => {
    expect(render('{{ data.number | card_bin }}', card)).toBe('36227206');
  });

  it('rejects something that is not a card number', () => {
    expect(() => render('{{ data | card_bin }}', '3622-7206-2716-5567')).toThrow(ValidationError);
    expect(() => render('{{ data | card_bin }}', '12345')).toThrow(ValidationError);
  });
});

describe('card_exp', () => {
  it.each([
    ['MM', '12'],
    ['MMYY', '1230'],
    ['YYYY', '2030'],
    ['YYYY-MM', '2030-12'],
    ['YYYY/MM', '2030/12'],
    ['MM/YY', '12/30'],
    ['MM/YYYY', '12/2030'],
    ['MM_YYYY', '12_2030'],
    ['MM-YYYY', '12-2030'],
  ])("formats with '%s' as %s", (format, expected) => {
    expect(render(`{{ data | card_exp: '${format}' }}`, card)).toBe(expected);
  });

  it('pads a one-digit month', () => {
    expect(render("{{ data | card_exp: 'MM/YY' }}", { expiration_month: 3, expiration_year: 2028 })).toBe('03/28');
  });

  it('accepts numeric strings', () => {
    expect(render("{{ data | card_exp: 'MM/YYYY' }}", { expiration_month: '10', expiration_year: '2028' })).toBe('10/2028');
  });

  it('rejects an unknown format, a missing format and a card without a valid month', () => {
    expect(() => render("{{ data | card_exp: 'DD/MM' }}", card)).toThrow(ValidationError);
    expect(() => render('{{ data | card_exp }}', card)).toThrow(ValidationError);
    expect(() => render("{{ data | card_exp: 'MM' }}", { expiration_month: 13, expiration_year: 2030 })).toThrow(ValidationError);
    expect(() => render("{{ data | card_exp: 'MM' }}", '12/30')).toThrow(ValidationError);
  });
});

describe('card_mask', () => {
  it.each([
    ['{{ data | card_mask }}', 'XXXXXXXXXXXX5567'],
    ["{{ data | card_mask: 'false', 'false', 'X', '-' }}", 'XXXXXXXXXXXXXXXX'],
    ["{{ data | card_mask: 'true', 'false', 'X', '-' }}", '36227206XXXXXXXX'],
    ["{{ data | card_mask: 'true', 'true', '#', '-' }}", '36227206####5567'],
    ["{{ data | card_mask: 'false', 'true', 'X', '-' }}", 'XXXXXXXXXXXX5567'],
    ['{{ data | card_mask: true, true }}', '36227206XXXX5567'],
  ])('%s on 3622720627165567 gives %s', (template, expected) => {
    expect(render(template, '3622720627165567')).toBe(expected);
  });

  it.each([
    ["{{ data | card_mask: 'false', 'false', 'X', '-' }}", 'XXXX-XXXX-XXXX-XXXX'],
    ["{{ data | card_mask: 'true', 'false', 'X', '-' }}", '3622-7206-XXXX-XXXX'],
    ["{{ data | card_mask: 'true', 'true', '#', '-' }}", '3622-7206-####-5567'],
    ["{{ data | card_mask: 'false', 'true', 'X', '-' }}", 'XXXX-XXXX-XXXX-5567'],
  ])('%s on 3622-7206-2716-5567 gives %s', (template, expected) => {
    expect(render(template, '3622-7206-2716-5567')).toBe(expected);
  });

  it('uses a 6-digit BIN under 16 digits', () => {
    expect(render('{{ data | card_mask: true, true }}', '36227206271667')).toBe('362272XXXX1667');
  });

  it('masks everything when nothing would be hidden', () => {
    expect(render('{{ data | card_mask: true, true }}', '1234567890')).toBe('XXXXXXXXXX');
  });

  it("does not take the string 'false' for true", () => {
    expect(render("{{ data | card_mask: 'false', 'false' }}", '4242424242424242')).toBe('X'.repeat(16));
  });

  it('rejects a flag that is not true or false', () => {
    expect(() => render("{{ data | card_mask: 'yes' }}", '4242424242424242')).toThrow(ValidationError);
  });
});
