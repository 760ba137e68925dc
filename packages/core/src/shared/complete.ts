/**
 * Every property of `T`, none left optional: an object literal of this type must name each one, `undefined` where
 * there is none, so the compiler refuses a field-by-field copy that misses a property added to `T` later. Hot paths
 * copy objects this way because V8 copies a spread among other fields (`{ ...x, more }`) on a slow path: about 3 µs
 * for a token, 1.5 µs for an audit event, against a few dozen nanoseconds for a literal (docs/benchmarks.md, issue 17).
 */
export type Complete<T> = { readonly [K in keyof Required<T>]: T[K] };
