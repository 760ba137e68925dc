import { createHmac } from 'node:crypto';
import { ValidationError } from '../../shared/errors';
import { ExpressionEngine } from '../engine';
import { SequenceRandomSource } from '../../../testing/sequence-random-source';

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const render = (template: string, data: unknown): string => engine.render('fingerprint_expression', template, { data });
const expected = (algorithm: string, key: string, data: string): Buffer => createHmac(algorithm, key).update(data).digest();

describe('hmac with to_base16 and to_base64', () => {
  it('matches the documented sha-256 example', () => {
    expect(render("{{ data | hmac: 'sha-256', 'secretKeyValue' | to_base16 }}", '4242424242424242')).toBe(
      '90A0050E90515101DCAD0F68955370CCA81F6DCB9D299E7E0585CC9746716D9B',
    );
  });

  it.each([
    ['sha-1', 'sha1'],
    ['sha-256', 'sha256'],
    ['sha-512', 'sha512'],
  ])('supports %s', (name, algorithm) => {
    const bytes = expected(algorithm, 'k', 'secretText');
    expect(render(`{{ data | hmac: '${name}', 'k' | to_base16 }}`, 'secretText')).toBe(bytes.toString('hex').toUpperCase());
    expect(render(`{{ data | hmac: '${name}', 'k' | to_base64 }}`, 'secretText')).toBe(bytes.toString('base64'));
  });

  it('defaults to sha-256 when only the key is given', () => {
    expect(render("{{ data | hmac: 'k' | to_base16 }}", 'x')).toBe(expected('sha256', 'k', 'x').toString('hex').toUpperCase());
  });

  it.each([
    ["{{ data | hmac: 'md5', 'k' | to_base16 }}", 'an unsupported algorithm'],
    ["{{ data | hmac: 'sha-256' | to_base16 }}", 'no key'],
    ["{{ data | hmac: 'sha-256', '' | to_base16 }}", 'an empty key'],
    ['{{ data | hmac | to_base16 }}', 'no arguments'],
  ])('%s is an error (%s)', (template) => {
    expect(() => render(template, 'x')).toThrow(ValidationError);
  });
});

describe('to_base64 and to_base16 on text', () => {
  it('encode its UTF-8 bytes', () => {
    expect(render('{{ data | to_base64 }}', 'hello')).toBe('aGVsbG8=');
    expect(render('{{ data | to_base16 }}', 'hello')).toBe('68656C6C6F');
  });

  it('reject null', () => {
    expect(() => render('{{ data | to_base64 }}', null)).toThrow(ValidationError);
  });
});
