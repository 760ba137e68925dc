import { ExpressionError } from '../expressions/expression-error';
import type { ExpressionEngine } from '../expressions';
import { collectFieldErrors, ValidationError } from '../shared/errors';
import type { CreateTokenInput } from '../tokens/create-token';
import { parseJsonMatcher } from './json-matcher';
import { compileMask } from './mask';
import { tokenTemplateErrors } from './token-template';
import { MAX_PROXY_TRANSFORMS, type ProxyTransform } from './proxy';
import { isHopByHop } from './proxy-headers';

/** A transform as the edge read it: a type and whichever fields came with it; their rules are checked here. */
export interface ProxyTransformInput {
  readonly type: string;
  readonly matcher?: string | undefined;
  readonly expression?: string | undefined;
  readonly replacement?: string | undefined;
  readonly name?: string | undefined;
  readonly value?: string | undefined;
  readonly token?: Readonly<Record<string, unknown>> | undefined;
}

/** Reads a token create request as POST /tokens takes it (the edge's schema); throws a ValidationError naming fields. */
export type TokenRequestReader = (body: unknown) => CreateTokenInput;

const MAX_TEXT = 1_000;
const MAX_HEADER_VALUE = 4_000;
/** RFC 9110 token characters: what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,100}$/;
/**
 * Headers a transform may not set: the connection's own (every name proxy-headers.ts strips from a call as hop-by-hop,
 * `Proxy-*` among them; `Expect` would make the outbound client refuse every request), and what svc computes for the
 * request (its host and the body's length).
 */
const isReserved = (name: string): boolean => {
  const lower = name.toLowerCase();
  return lower === 'host' || lower === 'content-length' || isHopByHop(lower);
};
/** Fields a tokenize transform's token may not hold: the data comes from the body, and a fixed id would clash. */
const TEMPLATE_FORBIDDEN = ['data', 'id', 'token_intent_id'];

export interface TransformRules {
  readonly expressions: ExpressionEngine;
  readonly readTokenRequest: TokenRequestReader;
  /** When the proxy is saved: a tokenize transform's token must expire after it. */
  readonly now: Date;
}

/**
 * What a header value can carry on the wire: tab, visible ASCII and the Latin-1 bytes RFC 9110 calls obs-text. No
 * control characters (CR and LF would split the request; NUL is refused by every parser), and nothing past U+00FF,
 * which has no byte to be sent as (the outbound client refuses it, which would read as an unreachable destination).
 */
export function isHeaderValue(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[^\t\u0020-\u007e\u0080-\u00ff]/.test(value);
}

export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

/**
 * The request or response transforms of a proxy, checked: at most 20; on requests `tokenize`, `detokenize` (once)
 * and `append_header`; on answers `mask`. Every broken field is named (`request_transforms[1].matcher`).
 */
export function validateTransforms(
  rules: TransformRules,
  field: 'request_transforms' | 'response_transforms',
  input: readonly ProxyTransformInput[],
  errors: Record<string, string[]>,
): ProxyTransform[] {
  if (input.length > MAX_PROXY_TRANSFORMS) {
    errors[field] = [`At most ${MAX_PROXY_TRANSFORMS} transforms.`];
    return [];
  }
  const allowed = field === 'request_transforms' ? ['tokenize', 'detokenize', 'append_header'] : ['mask'];
  const out: ProxyTransform[] = [];
  input.forEach((t, i) => {
    const at = `${field}[${i}]`;
    const fail = (name: string, message: string) => (errors[`${at}.${name}`] ??= []).push(message);
    if (!allowed.includes(t.type)) {
      fail('type', `Must be one of ${allowed.join(', ')} on ${field === 'request_transforms' ? 'requests' : 'answers'}.`);
      return;
    }
    switch (t.type) {
      case 'detokenize':
        if (out.some((o) => o.type === 'detokenize')) fail('type', 'Detokenize may be listed once.');
        else out.push({ type: 'detokenize' });
        return;
      case 'tokenize': {
        const matcher = checkMatcher(t.matcher, fail);
        const token = checkTemplate(rules, t.token, fail);
        if (matcher !== undefined && token !== undefined) out.push({ type: 'tokenize', matcher, token });
        return;
      }
      case 'append_header': {
        const name = t.name?.trim();
        if (!name) fail('name', 'A header name is required.');
        else if (!isHeaderName(name)) fail('name', 'Must be a header name (letters, digits and !#$%&\'*+-.^_`|~, at most 100).');
        else if (isReserved(name)) fail('name', `The header '${name}' belongs to the connection or is set by svc, and cannot be appended.`);
        const value = t.value;
        if (value === undefined || value === '') fail('value', 'A value is required.');
        else if (value.length > MAX_HEADER_VALUE) fail('value', `Must be at most ${MAX_HEADER_VALUE} characters.`);
        else if (!collectFieldErrors(errors, () => rules.expressions.check(`${at}.value`, value))) return;
        if (name && isHeaderName(name) && !isReserved(name) && value && value.length <= MAX_HEADER_VALUE) {
          out.push({ type: 'append_header', name, value });
        }
        return;
      }
      case 'mask': {
        const matcher = t.matcher?.trim();
        let ok = true;
        if (!matcher) {
          fail('matcher', "A matcher is required: 'regex' or a JSONPath.");
          ok = false;
        } else if (matcher !== 'regex' && checkMatcher(matcher, fail) === undefined) ok = false;
        if (matcher === 'regex' && (t.expression === undefined || t.expression === '')) {
          fail('expression', "A regular expression is required with matcher 'regex'.");
          ok = false;
        }
        if (t.expression !== undefined && t.expression !== '') {
          try {
            compileMask(t.expression);
          } catch (error) {
            if (!(error instanceof ExpressionError)) throw error;
            fail('expression', error.message);
            ok = false;
          }
        }
        if (t.replacement === undefined) {
          fail('replacement', 'A replacement is required.');
          ok = false;
        } else if (t.replacement.length > MAX_TEXT) {
          fail('replacement', `Must be at most ${MAX_TEXT} characters.`);
          ok = false;
        }
        if (ok) {
          out.push({
            type: 'mask',
            matcher: matcher!,
            ...(t.expression ? { expression: t.expression } : {}),
            replacement: t.replacement!,
          });
        }
        return;
      }
    }
  });
  return out;
}

function checkMatcher(matcher: string | undefined, fail: (name: string, message: string) => void): string | undefined {
  const path = matcher?.trim();
  if (!path) {
    fail('matcher', 'A JSONPath matcher is required, such as $.card.number.');
    return undefined;
  }
  try {
    parseJsonMatcher(path);
    return path;
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    fail('matcher', error.message);
    return undefined;
  }
}

/** A tokenize transform's token: a create request as POST /tokens takes it, without data, id or token intent. */
function checkTemplate(
  rules: TransformRules,
  token: Readonly<Record<string, unknown>> | undefined,
  fail: (name: string, message: string) => void,
): Readonly<Record<string, unknown>> | undefined {
  if (token === undefined) {
    fail('token', 'A token to create is required, such as { "type": "card_number" }.');
    return undefined;
  }
  let ok = true;
  if (typeof token.type !== 'string' || token.type === '') {
    fail('token.type', 'The type of the tokens to create is required.');
    ok = false;
  }
  for (const key of TEMPLATE_FORBIDDEN) {
    if (Object.hasOwn(token, key)) {
      fail(`token.${key}`, key === 'data' ? 'The data comes from the matched value; leave it out.' : `A tokenize transform's token may not set ${key}.`);
      ok = false;
    }
  }
  if (!ok) return undefined;
  let request: CreateTokenInput;
  try {
    request = rules.readTokenRequest({ ...token, data: null });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const [key, messages] of Object.entries(error.errors)) for (const m of messages) fail(`token.${key}`, m);
    return undefined;
  }
  const errors = Object.entries(tokenTemplateErrors(rules.expressions, request, rules.now));
  for (const [key, messages] of errors) for (const m of messages) fail(`token.${key}`, m);
  return errors.length === 0 ? token : undefined;
}

/**
 * The `append_header` values of a proxy's request transforms, rendered with its configuration as each call will
 * render them, strictly: a value naming a configuration key that is not set (anywhere in it: `Bearer {{
 * configuration.MISSING }}`), rendering what is not text (`{{ configuration }}`), rendering empty, or rendering what
 * no header may carry is refused, naming `request_transforms[i].value`, rather than failing or sending an empty
 * credential at every call.
 */
export function checkAppendedHeaders(
  expressions: ExpressionEngine,
  transforms: readonly ProxyTransform[],
  configuration: Readonly<Record<string, string>>,
  errors: Record<string, string[]>,
): void {
  transforms.forEach((t, i) => {
    if (t.type !== 'append_header') return;
    const field = `request_transforms[${i}].value`;
    collectFieldErrors(errors, () => {
      const value = renderHeaderValue(expressions, field, t.value, configuration);
      if (value.trim() === '') (errors[field] ??= []).push('Renders empty: does it name a configuration key that is empty?');
      else if (!isHeaderValue(value)) (errors[field] ??= []).push('Renders to a value no header may carry (line breaks, control characters or characters past U+00FF).');
    });
  });
}

/** An `append_header` value rendered over the proxy's configuration, strictly (see ExpressionEngine.renderText). */
export function renderHeaderValue(expressions: ExpressionEngine, field: string, template: string, configuration: Readonly<Record<string, string>>): string {
  return expressions.renderText(field, template, { data: null, configuration });
}
