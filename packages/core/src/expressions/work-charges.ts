import { CaseTag, defaultOperators, evalToken, ForTag, toValue, type Context, type Emitter, type FilterImplOptions, type Liquid, type Operators, type Template } from 'liquidjs';

/**
 * Charges to the render's WorkBudget the work that is proportional to the values an expression handles
 * rather than to its size: a loop enumerating a collection, a filter or a comparison going over its inputs.
 * Without these, a short template could repeat an expensive step on a large token until the step budget ran
 * out (a `for` over an object of 50 000 keys, nested in a loop, enumerates it every time).
 *
 * A value's work is one unit for itself and for every element, entry and nested value inside it, plus one
 * per KiB of text: about what going over it once costs. Counting stops past `cap`.
 */
export function workOf(value: unknown, cap: number): number {
  let units = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && units <= cap) {
    const current = pending.pop();
    units++;
    if (typeof current === 'string') units += current.length >> 10;
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
      ctx.renderLimit.use(workOf(lhs, cap) + workOf(rhs, cap));
      return compare(lhs, rhs, ctx);
    };
    operators[name] = charged;
  }
  return operators;
}

/**
 * Units per unit of input for filters that do several times the usual work per element: they call back
 * into liquidjs for each element (property lookups, comparisons, natural-order compares) or walk a whole
 * JSON tree (JSONPath). Measured on liquidjs 10.30 and jsonpath-plus 10 at about 1-2 µs per element, against
 * about 0.25 µs for the cheapest units.
 */
const FILTER_WEIGHTS: Readonly<Record<string, number>> = {
  json: 4, sort: 4, sort_natural: 8, map: 4, where: 4, reject: 4, group_by: 4, has: 4, find: 4, find_index: 4,
};

/** Wraps every filter of `liquid` (its own and ours) so each call charges the work of its input and arguments. */
export function chargeFilters(liquid: Liquid, cap: number): void {
  for (const [name, filter] of Object.entries(liquid.filters)) {
    liquid.registerFilter(name, chargedFilter(filter, FILTER_WEIGHTS[name] ?? 1, cap));
  }
}

function chargedFilter(filter: FilterImplOptions, weight: number, cap: number): FilterImplOptions {
  const handler = typeof filter === 'function' ? filter : filter.handler;
  const charged: typeof handler = function (value, ...args) {
    this.context.renderLimit.use(weight * workOf(value, cap) + workOf(args, cap));
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
