import type { Context } from 'liquidjs';

/**
 * A bound on the work of rendering, counted rather than timed, so the same template on the same data always
 * passes or always fails: a GC pause or a stalled event loop cannot fail a valid template. (liquidjs's own
 * `renderLimit` is a wall-clock deadline taken when the render starts.)
 *
 * Units are item-steps. liquidjs reports a step each time it enters a block and each time it renders one
 * tag, output or piece of text; a step evaluates at most the template's own items (values, operators,
 * filters, arguments), so each step of a template costs its size in items. A render therefore evaluates at
 * most `limit` items whatever the template's shape: a long condition inside a loop pays for its length.
 * One budget may be shared by several renders (all the templates of one mask).
 */
export class WorkBudget {
  private used = 0;

  /** `within`: a budget this one's spending also counts against (a bulk call's, for each of its tokens' masks). */
  constructor(
    private readonly limit: number,
    private readonly within?: WorkBudget,
  ) {}

  /** True once a spend has gone past the limit (this one's or the one it is within): every later one fails too. */
  get exhausted(): boolean {
    return this.used > this.limit || (this.within?.exhausted ?? false);
  }

  spend(units: number): void {
    if (!(units > 0)) return;
    this.within?.spend(units);
    this.used += units;
    // The message ends like liquidjs's own limit errors, so it is reported as one (a 400, no data in it).
    if (this.used > this.limit) throw new Error('render work limit exceeded');
  }

  /** The meter liquidjs's Context takes as its `renderLimit`, for a template of `size` items. */
  meter(size: number): Context['renderLimit'] {
    const meter = {
      // liquidjs passes a timestamp; only the call itself counts.
      check: (): void => this.spend(size),
      use: (units: number): void => this.spend(units),
    };
    // liquidjs types renderLimit as its (unexported) Limiter class; check() and use() are all it calls.
    return meter as unknown as Context['renderLimit'];
  }
}
