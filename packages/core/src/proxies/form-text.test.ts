import fc from 'fast-check';
import { asText } from '../detokenization/grammar';
import { decodeStrictly, readForm, rewriteFormText } from './form-text';

const SEED = 20261125;
/** Pieces of form text: escapes good and bad, separators, `+`, unicode, bytes of another charset. */
const piece = fc.constantFrom('a', 'b', 'n', '=', '&', '+', '%20', '%2B', '%E9', '%C3%A9', '%zz', '%', '%7B%7B', '{{ t }}', 'é', '😀', '?', '~', '*', '');
const formText = fc.array(piece, { maxLength: 16 }).map((p) => p.join(''));

/** What URLSearchParams reads from the text (its leading `?` aside), fields grouped as readForm groups them. */
function modelFields(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text.startsWith('?') ? `&${text}` : text)) {
    const seen = fields[name];
    fields[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

/** The text's pairs in order, as URLSearchParams reads them (its leading `?` aside). */
const pairsOf = (text: string): string[][] => [...new URLSearchParams(text.startsWith('?') ? `&${text}` : text)];

describe('form bodies, read and rewritten', () => {
  it('reads the fields URLSearchParams reads, and writes the text back byte for byte when nothing changed', () => {
    fc.assert(
      fc.property(formText, (text) => {
        const form = readForm(text);
        expect(form.fields).toEqual(modelFields(text));
        expect(rewriteFormText(form, { ...form.fields }, asText)).toBe(text);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('writes changed values anew and copies every other pair as it was written', () => {
    fc.assert(
      fc.property(formText, fc.func(fc.oneof(fc.string(), fc.constant('x y&z=1'))), (text, f) => {
        const form = readForm(text);
        const change = (v: string): string => (v.length % 2 === 1 ? f(v) : v);
        const fields = Object.fromEntries(Object.entries(form.fields).map(([k, v]) => [k, Array.isArray(v) ? v.map(change) : change(v)]));
        const out = rewriteFormText(form, fields, asText)!;
        // Read back, the pairs are the same names in the same order, each with its changed value.
        const seen = new Map<string, number>();
        const expected = form.pairs.map((p) => {
          const nth = seen.get(p.name) ?? 0;
          seen.set(p.name, nth + 1);
          const v = fields[p.name]!;
          return [p.name, Array.isArray(v) ? v[nth] : v];
        });
        expect(pairsOf(out)).toEqual(expected);
        for (const pair of form.pairs) if (pair.value.length % 2 === 0) expect(`&${out}&`).toContain(`&${pair.raw}&`);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('keeps a value in another charset as sent beside a changed one, and a token list in one field as one value', () => {
    const form = readForm('name=Jos%E9&card={{ t }}&n=1+2&n=%2A');
    expect(rewriteFormText(form, { ...form.fields, card: '4242 4242' }, asText)).toBe('name=Jos%E9&card=4242+4242&n=1+2&n=%2A');
    expect(rewriteFormText(readForm('l={{ t }}'), { l: ['a', 'b'] }, asText)).toBe('l=%5B%22a%22%2C%22b%22%5D');
  });

  it('tells UTF-8 percent-encoding from bytes of another charset', () => {
    expect(decodeStrictly('Jos%C3%A9+%zz%')).toBe('José %zz%');
    expect(decodeStrictly('Jos%E9')).toBeUndefined();
  });
});
