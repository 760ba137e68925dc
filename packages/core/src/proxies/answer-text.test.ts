import fc from 'fast-check';
import { answerText, unreadableCharset } from './answer-text';

/** A label in a random case, quoted or not, with spaces around the `=` or not. */
const spelled = (label: string) =>
  fc
    .tuple(fc.array(fc.boolean(), { minLength: label.length, maxLength: label.length }), fc.boolean(), fc.constantFrom('', ' '))
    .map(([upper, quoted, space]) => {
      const cased = [...label].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
      return `charset${space}=${space}${quoted ? `"${cased}"` : cased}`;
    });

const OTHER = ['utf-16', 'utf-16le', 'utf-16be', 'utf-32', 'iso-8859-1', 'latin1', 'windows-1252', 'shift_jis', 'utf-7', 'ucs-2', 'gb18030', 'x-user-defined', ''];

describe('what a mask may read', () => {
  it('reads a declared UTF-8 or US-ASCII answer, however the charset is spelled', () => {
    fc.assert(
      fc.property(fc.constantFrom('utf-8', 'utf8', 'us-ascii').chain(spelled), fc.constantFrom('text/plain', 'application/json', 'text/html'), (param, type) =>
        unreadableCharset(`${type}; ${param}`) === undefined && unreadableCharset([`${type};${param}`]) === undefined,
      ),
      { seed: 1, numRuns: 200 },
    );
    expect(unreadableCharset(undefined)).toBeUndefined();
    expect(unreadableCharset('text/plain')).toBeUndefined();
  });

  it('refuses any other declared charset, however it is spelled, wherever it stands among the parameters', () => {
    fc.assert(
      fc.property(fc.constantFrom(...OTHER).chain(spelled), fc.constantFrom('', 'format=flowed; ', 'x="a"; '), (param, before) =>
        unreadableCharset(`text/plain; ${before}${param}`) !== undefined && unreadableCharset(['text/plain; charset=utf-8', `text/plain; ${param}`]) !== undefined,
      ),
      { seed: 2, numRuns: 300 },
    );
  });

  it('reads UTF-8 text without NUL bytes as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\0')), (text) => answerText(Buffer.from(text, 'utf8')) === text),
      { seed: 3, numRuns: 300 },
    );
  });

  it('refuses text with a NUL byte: UTF-16 or UTF-32 text is valid UTF-8 byte by byte, card numbers and all', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Za-z ]{1,40}$/), fc.constantFrom<BufferEncoding>('utf16le', 'ucs2'), (text, encoding) => {
        const bytes = Buffer.from(text, encoding);
        return answerText(bytes) === undefined;
      }),
      { seed: 4, numRuns: 200 },
    );
    expect(answerText(Buffer.from('card 4242424242424242\0'))).toBeUndefined();
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(answerText(Buffer.from([0x34, 0x32, 0xff]))).toBeUndefined();
    expect(answerText(Buffer.from('café', 'latin1'))).toBeUndefined();
  });
});
