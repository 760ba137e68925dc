import type { FilterSet } from '../filters';

/**
 * What a filter accepts: at most `maxArguments` positional arguments, and the keyword arguments it reads.
 * JavaScript ignores arguments a function does not declare, so without this `{{ data | append: '', last4 }}`
 * (a `,` typed for a `|`) would hand `last4` to `append` as an unused argument and print the data unmasked.
 */
export interface FilterSignature {
  readonly maxArguments: number;
  readonly keywords: readonly string[];
}

export type FilterSignatures = ReadonlyMap<string, FilterSignature>;

/**
 * liquidjs's filters, whose handlers hide their parameters behind defaults and rest parameters, so their
 * arity is stated here (from liquidjs 10.30's sources). A liquidjs filter missing from this table makes the
 * engine fail at start-up rather than accept it unchecked.
 */
const LIQUID_ARGUMENTS: Readonly<Record<string, number>> = {
  escape: 0, xml_escape: 0, escape_once: 0, newline_to_br: 0, strip_html: 0,
  abs: 0, at_least: 1, at_most: 1, ceil: 0, divided_by: 2, floor: 0, minus: 1, plus: 1, modulo: 1, times: 1, round: 1,
  url_decode: 0, url_encode: 0, cgi_escape: 0, uri_escape: 0, slugify: 2,
  join: 1, last: 0, first: 0, reverse: 0, sort: 1, sort_natural: 1, size: 0, map: 1, sum: 1, compact: 0, concat: 1,
  push: 1, unshift: 1, pop: 0, shift: 0, slice: 2, where: 2, reject: 2, group_by: 1, has: 2, find_index: 2, find: 2,
  uniq: 0, sample: 1,
  date: 2, date_to_xmlschema: 0, date_to_rfc822: 0, date_to_string: 2, date_to_long_string: 2,
  append: 1, prepend: 1, lstrip: 1, downcase: 0, upcase: 0, remove: 1, remove_first: 1, remove_last: 1, rstrip: 1,
  split: 1, strip: 1, strip_newlines: 0, squish: 0, capitalize: 0, replace: 2, replace_first: 2, replace_last: 2,
  truncate: 2, truncatewords: 2, normalize_whitespace: 0, number_of_words: 1, array_to_sentence_string: 1,
  base64_encode: 0, base64_decode: 0, sha256: 0, hmac_sha256: 1,
  // jsonify and inspect take no indent: indentation grows with the square of the nesting depth, past the memory bound.
  default: 1, raw: 0, jsonify: 0, to_integer: 0, json: 1, inspect: 0,
};

const KEYWORDS: Readonly<Record<string, readonly string[]>> = { default: ['allow_false'] };

/**
 * Signatures of every filter the engine offers: liquidjs's from the table above, ours from their declared
 * parameters (our filters declare each one plainly, with no defaults or rest parameters, so `length` is
 * exact). Ours win where both exist, as they do in the engine.
 */
export function filterSignatures(liquidFilters: readonly string[], own: FilterSet): FilterSignatures {
  const signatures = new Map<string, FilterSignature>();
  for (const name of liquidFilters) {
    const maxArguments = LIQUID_ARGUMENTS[name];
    if (maxArguments === undefined) throw new Error(`The liquidjs filter '${name}' has no known signature.`);
    signatures.set(name, { maxArguments, keywords: KEYWORDS[name] ?? [] });
  }
  for (const [name, filter] of Object.entries(own)) signatures.set(name, { maxArguments: filter.length - 1, keywords: [] });
  return signatures;
}
