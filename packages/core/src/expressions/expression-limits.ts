/**
 * Work bounds for one expression, so a hostile template (huge ranges, nested loops, giant padding)
 * fails with a 400 instead of tying up the server.
 */
export interface ExpressionLimits {
  /** Longest template accepted, in characters. */
  readonly parseLimit: number;
  /** Wall-clock budget for one render, in milliseconds. */
  readonly renderLimit: number;
  /** Allocation budget for one render, in Liquid's units (characters of strings built, array elements). */
  readonly memoryLimit: number;
}

export const DEFAULT_EXPRESSION_LIMITS: ExpressionLimits = {
  parseLimit: 100_000,
  renderLimit: 10,
  memoryLimit: 2_000_000,
};
