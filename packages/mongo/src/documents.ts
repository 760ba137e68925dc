import { Binary, type Document, type UpdateFilter } from 'mongodb';

/**
 * Helpers shared by the document mappings. Documents leave optional fields out rather than storing null, so a
 * partial index on `{ field: { $exists: true } }` holds only the documents that have a value; reads accept both
 * (a document written by another tool may carry null).
 */

/** `value` unless it is null or missing. */
export const optional = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/** A copy of `doc` without its undefined fields, so none is ever written as null. */
export function compact<T extends object>(doc: T): T {
  return Object.fromEntries(Object.entries(doc).filter(([, value]) => value !== undefined)) as T;
}

/** Bytes as BSON binary (subtype 0). */
export const toBinary = (bytes: Uint8Array): Binary => new Binary(bytes);

/** BSON binary back to a plain byte array (a copy: the driver's buffer may be a view into a larger one). */
export const fromBinary = (binary: Binary): Uint8Array => Uint8Array.from(binary.value());

/**
 * An update that sets the defined fields and removes the undefined ones, so a field cleared on the entity is
 * cleared in the document rather than left behind or written as null.
 */
export function setOrUnset<D extends Document>(fields: { readonly [K in keyof D]?: D[K] | undefined }): UpdateFilter<D> {
  const $set: Record<string, unknown> = {};
  const $unset: Record<string, ''> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) $unset[key] = '';
    else $set[key] = value;
  }
  return (Object.keys($unset).length === 0 ? { $set } : { $set, $unset }) as UpdateFilter<D>;
}
