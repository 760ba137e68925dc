/** MongoDB's error code for a write that would break a unique index (E11000). */
const DUPLICATE_KEY = 11000;

/**
 * Whether `error` is a duplicate-key error. Checked by shape rather than `instanceof MongoServerError`, so an error
 * class loaded by another module registry (jest isolates test files) is still recognised.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === DUPLICATE_KEY;
}

/** The server's error code, when `error` carries one. */
export function errorCode(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number' ? error.code : undefined;
}

/** MongoDB's error code for a write that met a concurrent transaction's write to the same document. */
const WRITE_CONFLICT = 112;

/**
 * Whether `error` says a transaction lost to a concurrent one: a write conflict (as a command error or a bulk write's
 * write error), or any error labelled TransientTransactionError. By shape, like {@link isDuplicateKeyError}.
 */
export function isTransactionConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (errorCode(error) === WRITE_CONFLICT) return true;
  if ('hasErrorLabel' in error && typeof error.hasErrorLabel === 'function' && error.hasErrorLabel('TransientTransactionError') === true) return true;
  if ('errorLabels' in error && Array.isArray(error.errorLabels) && error.errorLabels.includes('TransientTransactionError')) return true;
  return 'writeErrors' in error && Array.isArray(error.writeErrors) && error.writeErrors.some((w: unknown) => errorCode(w) === WRITE_CONFLICT);
}
