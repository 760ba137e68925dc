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
