import { CaseTag, defaultOperators, evalToken, ForTag, toValue, type Context, type Emitter, type FilterImplOptions, type Liquid, type Operators, type Template } from 'liquidjs';

/**
 * Charges to the render's WorkBudget the work that is proportional to the values an expression handles
 * rather than to its size: a loop enumerating a collection, a filter or a comparison going over its inputs.
 * Without these, a short template could repeat an expensive step on a large token until the step budget ran
 * out (a `for` over an object of 50 000 keys, nested in a loop, enumerates it every time).
 *
 * A value's work is one unit for itself and for every element, entry and nested value inside it, plus one
 * per 128 characters of text: about what going over it once costs (the native string filters, `upcase` to
 * `to_base64`, take up to 2 ns a character; one unit per KiB let a filter loop over a large token run for
 * seconds within its budget). Counting stops past `cap`.
 */
export function workOf(value: unknown, cap: number): number {
  let units = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && units <= cap) {
    const current = pending.pop();
    units++;
    if (typeof current === 'string') units += current.length >> 7;
    else if (typeof current === 'object' && current !== null) {
      for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push(child);
    }
  }
  return units;
}

const COMPARISONS = ['==', '!=', '<', '>', '<=', '>=', 'contains'] as const;

type Comparison = (lhs: unknown, rhs: unknown, ctx: Context) => ReturnType<Operators[string]>;

/** liquidjs's operators, with each comparison charging the work of its operands. */
export function chargedOperators(cap: number): Operators {
  const operators: Operators = { ...defaultOperators };
  for (const name of COMPARISONS) {
    const compare = defaultOperators[name] as Comparison;
    const charged: Comparison = (lhs, rhs, ctx) => {
      ctx.renderLimit.use(workOf(lhs, cap) + workOf(rhs, cap) + (name === 'contains' ? searchWork(lhs, rhs) : 0));
      return compare(lhs, rhs, ctx);
    };
    operators[name] = charged;
  }
  return operators;
}

/**
 * Units per unit of input for filters that do several times the usual work per element: they call back
 * into liquidjs for each element (property lookups, comparisons, natural-order compares). Measured on
 * liquidjs 10.30 at about 1-2 µs per element, against about 0.25 µs for the cheapest units.
 *
 * The second group goes over text a character at a time in JavaScript, each at its measured cost per character
 * (100,000 characters, Node 20) against the 2 ns of a unit of text: `sample` 450 ns, the aliases 34-79, `card_mask`
 * 68, `reveal_last` 54, `reveal` 43, `slugify` 28, `url_encode` 23, `replace` 15, `last4` and the dates 10. Charged
 * as one unit, `{% for i in (1..2500) %}{% assign y = data | alias_preserve_format %}{% endfor %}` on a 600 KB token
 * ran 15 s within its budget, blocking every other request.
 */
const FILTER_WEIGHTS: Readonly<Record<string, number>> = {
  // `json` takes member and index paths only (filters/json.ts): it walks its path, never the whole value, so it
  // pays for its path alone (4 times its value's work refused `{{ data | json: '$.ssn' }}` masks on large objects).
  json: 0, sort: 4, sort_natural: 8, map: 4, where: 4, reject: 4, group_by: 4, has: 4, find: 4, find_index: 4,
  sample: 256, alias_preserve_format: 48, alias_card: 48, card_mask: 40, reveal_last: 32, reveal: 24,
  alias_preserve_length: 40, slugify: 16, url_encode: 16, replace: 10, replace_first: 10, replace_last: 10, cgi_escape: 8,
  last4: 6, card_bin: 6, card_exp: 6, date: 6, date_to_xmlschema: 6, date_to_rfc822: 6, date_to_string: 6,
  date_to_long_string: 6, remove: 6, remove_first: 6, remove_last: 6, number_of_words: 4, truncatewords: 4, squish: 4,
  url_decode: 4, uri_escape: 4, normalize_whitespace: 4, base64_decode: 4, to_base16: 4,
};

/**
 * Looking for one text in another takes, at worst, the product of their lengths (V8's search on `a`×600,000 for
 * `a`×10,000 + `b` + `a`×10,000: 2 s for one `contains`), where a unit of text is 128 characters gone over once. The
 * filters and the operator that search are charged that product too: a unit for about 2,048 character comparisons
 * (0.17 ns each, measured), nothing for a needle of a few characters beyond the text's own units.
 */
export function searchWork(text: unknown, needle: unknown): number {
  return typeof text === 'string' && typeof needle === 'string' ? Math.floor((text.length * needle.length) / 2048) : 0;
}

/** The filters that search their input for their first argument. */
const SEARCHING = new Set(['split', 'replace', 'replace_first', 'replace_last', 'remove', 'remove_first', 'remove_last']);

/** Wraps every filter of `liquid` (its own and ours) so each call charges the work of its input and arguments. */
export function chargeFilters(liquid: Liquid, cap: number): void {
  for (const [name, filter] of Object.entries(liquid.filters)) {
    liquid.registerFilter(name, chargedFilter(filter, FILTER_WEIGHTS[name] ?? 1, cap, SEARCHING.has(name)));
  }
}

function chargedFilter(filter: FilterImplOptions, weight: number, cap: number, searching: boolean): FilterImplOptions {
  const handler = typeof filter === 'function' ? filter : filter.handler;
  const charged: typeof handler = function (value, ...args) {
    this.context.renderLimit.use((weight === 0 ? 0 : weight * workOf(value, cap)) + workOf(args, cap) + (searching ? searchWork(value, args[0]) : 0));
    return handler.call(this, value, ...args);
  };
  return typeof filter === 'function' ? charged : { ...filter, handler: charged };
}

/** liquidjs's `for`, charging one unit per element of the collection (enumerating, slicing and reversing it). */
export class ChargedForTag extends ForTag {
  override *render(ctx: Context, emitter: Emitter): Generator<unknown, void | string, Template[]> {
    const collection: unknown = toValue(yield evalToken(this.collection, ctx));
    ctx.renderLimit.use(collectionSize(collection));
    const rendered: unknown = yield super.render(ctx, emitter);
    return rendered as void | string;
  }
}

function collectionSize(collection: unknown): number {
  if (Array.isArray(collection)) return collection.length;
  if (typeof collection === 'object' && collection !== null) return Object.keys(collection).length;
  return 1;
}

/**
 * liquidjs's `case`, charging for its comparisons: each `when` value is compared with the case's value
 * (element by element when both are arrays), so the case's value costs its work once per `when` value.
 */
export function chargedCaseTag(cap: number): typeof CaseTag {
  return class ChargedCaseTag extends CaseTag {
    constructor(...args: ConstructorParameters<typeof CaseTag>) {
      super(...args);
      const comparisons = this.branches.reduce((count, branch) => count + branch.values.length, 0);
      const { value } = this;
      const evaluate = value.value.bind(value);
      value.value = function* (ctx: Context, lenient?: boolean): Generator<unknown, unknown, unknown> {
        const target: unknown = yield evaluate(ctx, lenient);
        ctx.renderLimit.use(comparisons * workOf(toValue(target), cap));
        return target;
      };
    }
  };
}
