/**
 * Work bounds for one expression, so a hostile template (huge ranges, nested loops, giant padding)
 * fails with a 400 instead of tying up the server. All of them count; none is a clock, so whether a
 * template passes never depends on how busy the server is.
 */
export interface ExpressionLimits {
  /** Longest template accepted, in characters. */
  readonly parseLimit: number;
  /**
   * Work budget for one render, in units of about one item evaluated (see WorkBudget): each render step
   * costs the template's size in items (`{{ data | last4 }}` is 3 items and takes 2 steps), and loops,
   * filters and comparisons add a unit per element, entry or KiB of the values they go over.
   */
  readonly workLimit: number;
  /** Allocation budget for one render, in Liquid's units (characters of strings built, array elements). */
  readonly memoryLimit: number;
}

export const DEFAULT_EXPRESSION_LIMITS: ExpressionLimits = {
  // Real expressions are tens of characters. Reading one costs about 3 µs a character of dense tags, so 16,384 bound
  // it to about 50 ms (100,000 let one public create spend 0.3-0.6 s reading an id expression it then refused).
  parseLimit: 16_384,
  // Real expressions use tens of units; one pass over the data of the largest token a 1 MiB body can carry
  // (the `token` type's default fingerprint, `{{ data | stringify }}`) about 525 000. The costliest units
  // measured (JSONPath over a large token) take about 0.4 µs, so no render goes much past 0.3 s. An empty
  // 200 000-step loop costs over 2 million and fails.
  workLimit: 750_000,
  memoryLimit: 2_000_000,
};
