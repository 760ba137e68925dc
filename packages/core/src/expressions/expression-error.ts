/**
 * A failure inside an expression whose message is safe to show to the caller.
 *
 * Filters throw it with a fixed message that names the filter and the problem, never the value being
 * filtered or an argument's value: those may be token data. Any other error raised while rendering is
 * reported with a generic message instead, because its text cannot be trusted to be free of data.
 */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}
