import fc from 'fast-check';
import { Liquid, Tokenizer, TypeGuards, type Token } from 'liquidjs';
import { ValidationError } from '../shared/errors';
import { ExpressionEngine } from './engine';
import { SequenceRandomSource } from '../../testing/sequence-random-source';

/**
 * Properties of strict reading, each over templates close to the grammar, where typos live:
 * - whatever the template, the engine accepts it or refuses it with a ValidationError, nothing else;
 * - an accepted template is read whole by liquidjs itself: no text left after the value, no operand, pipe or
 *   argument dropped (checked with liquidjs's own reader, independently of the strict one);
 * - junk after a value, a filter name or an argument is always refused;
 * - a mask ending in `reveal_last: 4`, typed with any one slip, never shows the whole secret.
 */

const engine = new ExpressionEngine({ random: new SequenceRandomSource() });
const SECRET = Array.from({ length: 120 }, (_, i) => String((i * 7 + 3) % 10)).join('');
const card = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, list: [1, 2, 3] };

const VALID = [
  '{{ data.number | reveal_last: 4 }}',
  "{{ data.number | reveal: 6, 4, '#', '-' }}",
  "{{ data['number'] | slice: 0, 4 | append: '-' }}",
  "{{ data.missing | default: 'none', allow_false: true }}",
  '{{ data.list | join: "," }}',
  '{{ data.expiration_month }}/{{ data.expiration_year | slice: 2, 2 }}',
  '{% if data.expiration_month > 6 and data.number contains "42" %}late{% elsif data %}early{% else %}none{% endif %}',
  '{% unless data.missing %}{{ data.number | last4 }}{% endunless %}',
  '{% for x in data.list limit: 2 reversed %}{{ x }}{% else %}none{% endfor %}',
  '{% case data.expiration_month %}{% when 1, 2 or 3 %}q1{% when 12 %}q4{% else %}other{% endcase %}',
  '{% assign n = data.number | slice: 0, 6 %}{% capture c %}{{ n }}-{% endcapture %}{{ c }}{% echo n %}',
  '{% comment %}note{% endcomment %}{% raw %}{{ x }}{% endraw %}{% # inline %}{{ data.number | card_bin }}',
];

const ALPHABET = [...'{}%|:,()[].\'"-=<>! \nadtnor04'];
const WORDS = ['data', 'not', 'and', 'or', 'if', 'endif', 'for', 'in', 'reveal_last', 'last4', 'append', 'x', '{{', '}}', '{%', '%}'];

type Mutation = { readonly op: 'insert' | 'delete' | 'replace'; readonly at: number; readonly text: string };
const mutation = fc.record({ op: fc.constantFrom<Mutation['op']>('insert', 'delete', 'replace'), at: fc.nat(), text: fc.constantFrom(...ALPHABET) });

function mutate(template: string, { op, at, text }: Mutation): string {
  const i = at % (template.length + 1);
  if (op === 'insert') return template.slice(0, i) + text + template.slice(i);
  if (op === 'delete') return template.slice(0, i) + template.slice(i + 1);
  return template.slice(0, i) + text + template.slice(i + 1);
}

/** `template` with the n-th (modulo their number) match of `pattern` replaced by `by`. */
function replaceNth(template: string, pattern: RegExp, by: string, n: number): string {
  const count = template.match(pattern)?.length ?? 0;
  let seen = 0;
  return template.replace(pattern, (match) => (count > 0 && seen++ === n % count ? by : match));
}

/** Runs the engine on `template`: the outputs if accepted, undefined if refused; any other exception fails. */
function outcomes(template: string, data: unknown): string[] | undefined {
  try {
    engine.check('mask', template);
    return [engine.render('mask', template, { data }), JSON.stringify(engine.evaluate('mask', template, { data }) ?? null)];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    expect(JSON.stringify(error.errors)).not.toContain(SECRET.slice(0, 12));
    return undefined;
  }
}

/** Whether the engine accepts the template's syntax (what it evaluates to is not the question). */
function parses(template: string): boolean {
  try {
    engine.check('mask', template);
    return true;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return false;
  }
}

// --- The independent check: what liquidjs's own (lenient) reader makes of each value of the template.
const lenient = new Liquid();
const FILTERED_TAGS = ['if', 'elsif', 'unless', 'case', 'echo'];

/** Top-level occurrences of `char` in template[from, to), outside quoted strings. */
function countOutsideQuotes(template: string, from: number, to: number, char: string): number {
  let count = 0;
  let quote: string | undefined;
  for (let i = from; i < to; i++) {
    const c = template.charAt(i);
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === char) count++;
  }
  return count;
}

/** Operands and operators in postfix order evaluate to exactly one value, with no operator short of operands. */
function wellFormed(postfix: readonly Token[]): boolean {
  let depth = 0;
  for (const token of postfix) {
    if (!TypeGuards.isOperatorToken(token)) depth++;
    else if (token.operator !== 'not') depth -= depth >= 2 ? 1 : Infinity;
    else if (depth < 1) return false;
  }
  return depth === 1;
}

function readsWhole(template: string, range: [number, number]): boolean {
  const t = new Tokenizer(template, lenient.options.operators, undefined, range);
  const value = t.readFilteredValue();
  t.skipBlank();
  if (!t.end() || !wellFormed(value.initial.postfix)) return false;
  if (value.filters.length !== countOutsideQuotes(template, range[0], range[1], '|')) return false;
  return value.filters.every((filter) => {
    const colon = countOutsideQuotes(template, filter.begin, filter.end, ':') > 0;
    const commas = countOutsideQuotes(template, filter.begin, filter.end, ',');
    return filter.args.length === (colon ? commas + 1 : 0) && filter.args.every((arg) => (Array.isArray(arg) ? arg[1] !== undefined : true));
  });
}

function liquidReadsAllOf(template: string): boolean {
  let inComment = false;
  for (const token of new Tokenizer(template, lenient.options.operators).readTopLevelTokens(lenient.options)) {
    if (TypeGuards.isTagToken(token)) {
      if (token.name === 'comment' || token.name === 'endcomment') inComment = token.name === 'comment';
      const end = token.contentRange[1];
      if (!inComment && FILTERED_TAGS.includes(token.name) && !readsWhole(template, [end - token.args.length, end])) return false;
    } else if (TypeGuards.isOutputToken(token) && !inComment && !readsWhole(template, token.contentRange)) return false;
  }
  return true;
}

describe('Strict reading, property-based', () => {
  it('accepts or refuses with a ValidationError any Liquid-like text, and what it accepts liquidjs reads whole', () => {
    const chunk = fc.oneof(fc.constantFrom(...ALPHABET), fc.constantFrom(...WORDS));
    const text = fc.array(chunk, { maxLength: 30 }).map((parts) => parts.join(''));
    const template = fc.oneof(text, text.map((t) => `{{ ${t} }}`), text.map((t) => `{% ${t} %}{% endif %}`), fc.string({ maxLength: 40 }));
    fc.assert(
      fc.property(template, (t) => {
        if (outcomes(t, card)) expect(liquidReadsAllOf(t)).toBe(true);
      }),
      { seed: 4242, numRuns: 3000 },
    );
  });

  it('turns every one-character slip in a valid template into a refusal or a template liquidjs reads whole', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VALID), mutation, (valid, slip) => {
        const template = mutate(valid, slip);
        if (outcomes(template, card)) expect(liquidReadsAllOf(template)).toBe(true);
      }),
      { seed: 1717, numRuns: 4000 },
    );
  });

  const VALUES = ['data', 'data.number', "data['number']", 'data.list.first', '"text"', '42'];
  const FILTERS = ['upcase', 'last4', 'reveal_last: 4', "reveal: 6, 4, '#'", "append: 'x'", "replace: 'a', 'b'", 'slice: 0, 4', "default: 'z'"];
  const GARBAGE = [',', ', x', ')', ']', ' x', " 'x'", ' 4', '|', '| ', ',|', ' ,'];
  const output = fc.record({ value: fc.constantFrom(...VALUES), filters: fc.array(fc.constantFrom(...FILTERS), { maxLength: 4 }) });

  it('refuses junk after the value, after a filter name or after an argument, wherever it stands', () => {
    fc.assert(
      fc.property(output, fc.nat(), fc.constantFrom(...GARBAGE), ({ value, filters }, pick, garbage) => {
        const parts = [value, ...filters.map((f) => ` | ${f}`)];
        // Junctions: after the value, after each filter's name, after each of its arguments.
        const junctions = parts.flatMap((part, index) => {
          const end = parts.slice(0, index + 1).join('').length;
          const name = index > 0 && part.includes(':') ? end - part.length + part.indexOf(':') : undefined;
          return name === undefined ? [end] : [name, end];
        });
        const at = junctions[pick % junctions.length] ?? 0;
        const body = parts.join('');
        const afterArgument = parts.some((part, index) => index > 0 && part.includes(':') && at === parts.slice(0, index + 1).join('').length);
        // After an argument, `, x` is simply the next argument: no junk there.
        fc.pre(!(afterArgument && /^,\s*\S/.test(garbage) && garbage !== ',|'));
        expect(parses(`{{ ${body} }}`)).toBe(true);
        expect(parses(`{{ ${body.slice(0, at)}${garbage}${body.slice(at)} }}`)).toBe(false);
      }),
      { seed: 2718, numRuns: 2000 },
    );
  });

  it('never shows the whole secret through a reveal_last: 4 mask typed with one slip', () => {
    const SAFE = ['upcase', 'downcase', 'strip', "append: 'x'", "prepend: 'y'", "remove: '-'", "replace: 'a', 'b'", 'slice: 0, 200', "default: 'z'"];
    // The slips of the Basis Theory SDK's mask and its neighbours: a comma or a blank where a pipe belongs,
    // a doubled pipe, a colon or a comma between arguments left out.
    const SLIPS: ReadonlyArray<readonly [RegExp, string]> = [[/ \| /g, ', '], [/ \| /g, ' '], [/ \| /g, ','], [/\|/g, '||'], [/: /g, ' '], [/, /g, ' ']];
    const mask = fc.array(fc.constantFrom(...SAFE), { maxLength: 4 }).map((chain) => `{{ ${['data', ...chain, 'reveal_last: 4'].join(' | ')} }}`);
    const slipped = fc.tuple(mask, fc.constantFrom(...SLIPS), fc.nat()).map(([template, [pattern, by], n]) => replaceNth(template, pattern, by, n));
    const typed = fc.oneof(slipped, fc.tuple(mask, mutation).map(([template, m]) => mutate(template, m)));
    fc.assert(
      fc.property(typed, (template) => {
        for (const shown of outcomes(template, SECRET) ?? []) expect(shown).not.toContain(SECRET);
      }),
      { seed: 31337, numRuns: 4000 },
    );
  });
});
