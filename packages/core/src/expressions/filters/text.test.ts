import { ValidationError } from '../../shared/errors';
import { ExpressionEngine } from '../engine';
import { SequenceRandomSource } from '../../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const render = (template: string, data: unknown): string => engine.render('search_indexes[0]', template, { data });

describe('pad_left and pad_right', () => {
  it.each([
    ["{{ data | pad_left: 6, '0' }}", '001234'],
    ["{{ data | pad_left: 6, 'X' }}", 'XX1234'],
    ["{{ data | pad_left: 4, '0' }}", '1234'],
    ["{{ data | pad_left: 2, '0' }}", '1234'],
    ["{{ data | pad_right: 6, '0' }}", '123400'],
    ["{{ data | pad_right: 6, 'X' }}", '1234XX'],
    ["{{ data | pad_right: 4, '0' }}", '1234'],
    ["{{ data | pad_right: 2, '0' }}", '1234'],
  ])('%s on 1234 gives %s', (template, expected) => {
    expect(render(template, '1234')).toBe(expected);
  });

  it('keeps null as null', () => {
    expect(engine.evaluate('mask', "{{ data | pad_left: 6, '0' }}", { data: null })).toBeNull();
  });

  it.each(['{{ data | pad_left }}', '{{ data | pad_left: 6 }}', "{{ data | pad_right: 6, '00' }}", "{{ data | pad_right: 'a', '0' }}"])(
    '%s is an error: both arguments are required',
    (template) => {
      expect(() => render(template, '1234')).toThrow(ValidationError);
    },
  );

  it('cannot allocate without bound', () => {
    expect(() => render("{{ data | pad_left: 900000000, '0' }}", '1')).toThrow(ValidationError);
  });
});

describe('replace', () => {
  it('with one argument removes the text', () => {
    expect(render("{{ data | replace: '-' }}", '123-45-6789')).toBe('123456789');
    expect(render("{{ data | replace: '-' }}", '123-45-6789')).toBe(render("{{ data | remove: '-' }}", '123-45-6789'));
  });

  it('with two arguments replaces every occurrence, as standard', () => {
    expect(render("{{ data | replace: '-', ' ' }}", '123-45-6789')).toBe('123 45 6789');
  });
});

describe('standard filters', () => {
  it('slice: 0 gives the first character', () => {
    expect(render('{{ data.last_name | slice: 0 }}.', { last_name: 'Doe' })).toBe('D.');
  });

  it('split, last and upcase chain', () => {
    expect(render("{{ data.name | split: ' ' | last | upcase }}", { name: 'John Doe' })).toBe('DOE');
  });

  it.each([
    ["{{ data | remove: '-' }}", '123456789'],
    ['{{ data | size }}', '11'],
    ["{{ data | append: '!' | prepend: '>' }}", '>123-45-6789!'],
    ['{{ data | downcase }}', '123-45-6789'],
    ['{{ data.missing | default: "none" }}', 'none'],
  ])('%s works', (template, expected) => {
    expect(render(template, '123-45-6789')).toBe(expected);
  });
});
