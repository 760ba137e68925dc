/** Token fields searched by exact, case-sensitive value. */
export type TermQueryField = 'id' | 'type' | 'fingerprint' | 'created_by' | 'modified_by';

/** Token timestamps that accept dates, date-times and ranges. */
export type DateQueryField = 'created_at' | 'modified_at';

/**
 * A typed, validated token search query; stores compile it natively (SQL, Mongo filter, predicate).
 *
 * - `all`: matches every token (an empty query).
 * - `term`: exact, case-sensitive match on a token field.
 * - `data`: `value` is lower-cased; it is matched against keyed hashes of the lower-cased search indexes, never
 *   against decrypted data. The value is token data: never log it or put it in an error.
 * - `metadata`: `key` and `value` are lower-cased; a case-insensitive exact match of `metadata[key]`.
 * - `container`: `path` is lower-cased and starts and ends with `/`. `prefix: false` matches tokens directly in
 *   that container; `prefix: true` (written `/pci/*`) matches that container and every container below it.
 * - `range`: instants in UTC; at most one lower bound (`gte` or `gt`) and one upper bound (`lte` or `lt`).
 *   No bound at all matches every token that has the field.
 * - `and`, `or`: at least two items, never directly nested in an item of the same kind.
 * - `not`: the complement of `item`.
 * - `id_prefix`: ids starting with `value`. Never parsed from a query: it scopes sessions whose rules say
 *   `id starts_with …`.
 *
 * Stores receive `data` terms already blinded: `value` is then the keyed hash of the lower-cased value.
 */
export type TokenQuery =
  | { readonly kind: 'all' }
  | { readonly kind: 'term'; readonly field: TermQueryField; readonly value: string }
  | { readonly kind: 'data'; readonly value: string }
  | { readonly kind: 'metadata'; readonly key: string; readonly value: string }
  | { readonly kind: 'container'; readonly path: string; readonly prefix: boolean }
  | {
      readonly kind: 'range';
      readonly field: DateQueryField;
      readonly gte?: Date;
      readonly gt?: Date;
      readonly lte?: Date;
      readonly lt?: Date;
    }
  | { readonly kind: 'and'; readonly items: readonly TokenQuery[] }
  | { readonly kind: 'or'; readonly items: readonly TokenQuery[] }
  | { readonly kind: 'not'; readonly item: TokenQuery }
  | { readonly kind: 'id_prefix'; readonly value: string };

/** The bounds part of a `range` query. */
export type DateBounds = Pick<Extract<TokenQuery, { kind: 'range' }>, 'gte' | 'gt' | 'lte' | 'lt'>;
