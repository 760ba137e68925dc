import fc from 'fast-check';
import { rewriteJsonText } from './json-text';

/** A copy of `value` with some strings replaced (by what `replace` gives), the rest shared or copied. */
function replaced(value: unknown, replace: (s: string) => unknown): unknown {
  if (typeof value === 'string') return replace(value);
  if (Array.isArray(value)) return value.map((v) => replaced(v, replace));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of Object.entries(value)) out[k] = replaced(v, replace);
    return out;
  }
  return value;
}

const SEED = 20261126;
/** A number or literal written exactly as given (digits JSON.stringify would not keep). */
class Raw {
  constructor(readonly text: string) {}
}
const KEYS = ['a', 'b', '0', '1', '__proto__', 'constructor', 'say "hi"', 'é', ''];
const doc = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string(),
    fc.constantFrom('12345678901234567891', '1e400', '-0', '1.50', '0.1e-2', 'true', 'null', '7').map((t) => new Raw(t)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A value JSON.parse drops, put first under each object's first key by `textOf(…, repeat)`. */
const DROPPED = '"\\u0000dropped"';

/** JSON text of a generated document, with some whitespace; `repeat`: each object's first key also comes first with DROPPED. */
function textOf(value: unknown, space: string, repeat = false): string {
  const raw = (v: unknown): string => {
    if (v instanceof Raw) return v.text;
    if (typeof v === 'string') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${space}${v.map(raw).join(`,${space}`)}${space}]`;
    const members = Object.entries(v as object).map(([k, x]) => `${JSON.stringify(k)}${space}:${space}${raw(x)}`);
    const first = Object.keys(v as object)[0];
    if (repeat && first !== undefined) members.unshift(`${JSON.stringify(first)}:${DROPPED}`);
    return `{${space}${members.join(`,${space}`)}${space}}`;
  };
  return `${space}${raw(value)}${space}`;
}

describe('rewriteJsonText', () => {
  it('writes the text back byte for byte when nothing changed, and what changed as JSON.stringify would', () => {
    fc.assert(
      fc.property(doc, fc.constantFrom('', ' ', '\n  ', '\t'), fc.boolean(), fc.func(fc.oneof(fc.string(), fc.constant({ o: 1 }))), (value, space, repeat, f) => {
        const text = textOf(value, space, repeat);
        const before = JSON.parse(text) as unknown;
        const after = replaced(before, (s) => (s.length % 2 === 0 ? f(s) : s));
        for (const [now, out] of [before, replaced(before, (s) => s), after].map((now) => [now, rewriteJsonText(text, before, now)] as const)) {
          // What goes out reads as what was meant, and holds no value JSON.parse dropped.
          expect(JSON.stringify(JSON.parse(out))).toBe(JSON.stringify(now));
          expect(out).not.toContain(DROPPED);
        }
        // Unchanged and without a repeated key, byte for byte.
        if (!text.includes(DROPPED)) {
          expect(rewriteJsonText(text, before, before)).toBe(text);
          expect(rewriteJsonText(text, before, replaced(before, (s) => s))).toBe(text);
        }
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it('keeps numbers, escapes and spacing it did not change', () => {
    const text = '{ "order" : 12345678901234567891, "big": 1e400, "s": "\\u0041", "n": "x", "a": [1.50, "x"] }';
    const before = JSON.parse(text) as Record<string, unknown>;
    const after = replaced(before, (s) => (s === 'x' ? '4242' : s));
    expect(rewriteJsonText(text, before, after)).toBe('{ "order" : 12345678901234567891, "big": 1e400, "s": "\\u0041", "n": "4242", "a": [1.50, "4242"] }');
  });

  it('writes a changed object with a repeated key once, as JSON.parse read it, keeping its numbers', () => {
    const text = '{"a":"x", "n":12345678901234567891,"a":"y","big":1e400, "f":1.50, "o":{"z":1.0,"z":"{{ t }}"}}';
    const before = JSON.parse(text) as unknown;
    expect(rewriteJsonText(text, before, replaced(before, (s) => `${s}!`))).toBe(
      '{"a":"y!","n":12345678901234567891,"big":1e400,"f":1.50,"o":{"z":"{{ t }}!"}}',
    );
    // Unchanged too, the repeated keys go once: a value JSON.parse dropped was never read (by a mask, or for tokens).
    expect(rewriteJsonText(text, before, before)).toBe('{"a":"y","n":12345678901234567891,"big":1e400,"f":1.50,"o":{"z":"{{ t }}"}}');
    // Nested in an unchanged member of a changed object.
    const nested = '{"k":"x", "in":{"pan":"4111111111111111","pan":"n/a"}}';
    const read = JSON.parse(nested) as Record<string, unknown>;
    expect(rewriteJsonText(nested, read, { ...read, k: 'y' })).toBe('{"k":"y", "in":{"pan":"n/a"}}');
  });
});
