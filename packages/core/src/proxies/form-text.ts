/**
 * A form body (`application/x-www-form-urlencoded`) read into its fields and written out again after the proxy
 * replaced some values, without touching the rest: a field whose value did not change goes on as the caller wrote it
 * (its percent-encoding, its order among repeated fields, bytes in another charset), and only the values that changed
 * are encoded anew, as a form encodes them (spaces as `+`).
 */

/** One `name=value` of the text, as written and as read. */
interface FormPair {
  readonly raw: string;
  readonly rawName: string;
  readonly name: string;
  readonly value: string;
}

/** A form's text read: its fields, a repeated one as a list in order, and its pairs as written. */
export interface ReadForm {
  readonly fields: Record<string, string | string[]>;
  readonly pairs: readonly FormPair[];
  /** The text split on `&`, empty pieces kept, so that a rewrite keeps them too. */
  readonly pieces: readonly string[];
}

/** Percent-decoding as forms decode (URLSearchParams: `+` is a space, bytes that are not UTF-8 become U+FFFD). */
const decodeLoosely = (raw: string): string => new URLSearchParams(`x=${raw}`).get('x')!;

/**
 * The value as the bytes it names, or undefined when they are not UTF-8 (a `%` not followed by two hex digits is
 * itself). Reading loosely would put U+FFFD in their place, and writing the value anew would send that.
 */
export function decodeStrictly(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ').replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  } catch {
    return undefined;
  }
}

/** The fields of a form's text, split on `&` as the form encoding does (empty pieces skipped, no leading `?` dropped). */
export function readForm(text: string): ReadForm {
  const fields: Record<string, string | string[]> = Object.create(null);
  const pairs: FormPair[] = [];
  const pieces = text.split('&');
  for (const raw of pieces) {
    if (raw === '') continue;
    const at = raw.indexOf('=');
    const rawName = at < 0 ? raw : raw.slice(0, at);
    const name = decodeLoosely(rawName);
    const value = at < 0 ? '' : decodeLoosely(raw.slice(at + 1));
    pairs.push({ raw, rawName, name, value });
    // Pushed, not copied: a form repeating one name 250,000 times held the event loop for minutes.
    const seen = fields[name];
    if (Array.isArray(seen)) seen.push(value);
    else fields[name] = seen === undefined ? value : [seen, value];
  }
  return { fields, pairs, pieces };
}

/** The raw value of a pair (what follows its first `=`). */
export const rawValueOf = (pair: FormPair): string => (pair.raw.length > pair.rawName.length ? pair.raw.slice(pair.rawName.length + 1) : '');

/**
 * The form's text with the values of `fields` (same names, as many of each) in place of those read: an unchanged pair
 * is copied as written, a changed one written as `name=value` with its name as written and its value encoded. Undefined
 * when `fields` no longer matches the pairs (a field added or dropped): the caller encodes it whole.
 */
export function rewriteFormText(form: ReadForm, fields: Readonly<Record<string, unknown>>, asText: (value: unknown) => string): string | undefined {
  const counts = new Map<string, number>();
  for (const pair of form.pairs) counts.set(pair.name, (counts.get(pair.name) ?? 0) + 1);
  if (Object.keys(fields).length !== counts.size) return undefined;
  for (const [name, count] of counts) {
    // A field sent once was read as one value, whatever it is now (a token's data may be a list); a repeated one as a
    // list of as many values.
    const now = fields[name];
    if (!Object.hasOwn(fields, name) || (count > 1 && !(Array.isArray(now) && now.length === count))) return undefined;
  }
  const taken = new Map<string, number>();
  let next = 0;
  return form.pieces
    .map((piece) => {
      if (piece === '') return piece;
      const pair = form.pairs[next++]!;
      const index = taken.get(pair.name) ?? 0;
      taken.set(pair.name, index + 1);
      const field = fields[pair.name];
      const now = asText(counts.get(pair.name)! > 1 ? (field as unknown[])[index] : field);
      if (now === pair.value) return pair.raw;
      return `${pair.rawName}=${new URLSearchParams([['x', now]]).toString().slice(2)}`;
    })
    .join('&');
}
