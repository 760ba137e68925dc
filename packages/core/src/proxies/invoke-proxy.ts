import { isApplicationExpired } from '../applications/application';
import type { ApplicationRepository } from '../applications/application.repository';
import { type Audit, auditOf } from '../audit/audit';
import type { AuditActor } from '../audit/audit-effects';
import type { Actor } from '../auth/actor';
import { applicationActor } from '../auth/authenticate';
import { hashKey } from '../auth/api-key';
import { requirePermission } from '../auth/authorize';
import type { Keyring } from '../crypto/keyring';
import type { Detokenize } from '../detokenization/detokenize';
import { asText, readDetokenization } from '../detokenization/grammar';
import { decodeStrictly, rawValueOf, type ReadForm, readForm, rewriteFormText } from './form-text';
import type { ExpressionEngine } from '../expressions';
import { ExpressionError } from '../expressions/expression-error';
import { OutboundError, type OutboundHttp, type OutboundRequest, type OutboundStream } from '../outbound/outbound-http';
import type { OutboundPolicy } from '../outbound/outbound-policy';
import type { Clock } from '../shared/clock';
import {
  BadGatewayError,
  ConflictError,
  GatewayTimeoutError,
  UnauthenticatedError,
  ValidationError,
} from '../shared/errors';
import { fieldPath } from '../shared/field-path';
import type { Tokenize, TokenizeItem } from '../tokens/tokenize';
import type { TokenView } from '../tokens/token-view';
import { type JsonPath, jsonValueAt, matchJson, parseJsonMatcher, replaceJson } from './json-matcher';
import { jsonTextDepth, rewriteJsonText } from './json-text';
import { answerText, unreadableCharset } from './answer-text';
import { compileMask, maskText } from './mask';
import type { Proxy, ProxyRepository, ProxyTransform } from './proxy';
import { proxyFact } from './manage-proxies';
import { answeredHeaders, forwardedRequestHeaders, isHopByHop } from './proxy-headers';
import { isHeaderValue, renderHeaderValue, type TokenRequestReader } from './proxy-transforms';

/** The most distinct tokens one proxied request may name (beyond.md §7). */
export const PROXY_TOKEN_LIMIT = 20;

/** A request to pass on, as the edge received it. */
export interface ProxyCall {
  readonly method: string;
  /** What follows `/proxy` in the path, as received (percent-encoded): `''` or `/charges/1`. */
  readonly path: string;
  /** The query as received, without `?` and without the proxy key parameter. */
  readonly query: string;
  /** Lower-case names, repeated headers joined as Node joins them. */
  readonly headers: Readonly<Record<string, string>>;
  /** Undefined when the request has none. */
  readonly body: Uint8Array | undefined;
  /** The request's trace id, for the events it causes (a call without an API key has no actor to carry it). */
  readonly traceId?: string | undefined;
  /** Aborts when the caller goes away: the call to the destination ends with it (OutboundRequest.signal). */
  readonly signal?: AbortSignal | undefined;
}

/** The destination's answer, to pass back. */
export interface ProxyAnswer {
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Bytes when svc rewrote the body (a mask), a stream otherwise. */
  readonly body: Uint8Array | AsyncIterable<Uint8Array>;
  /** Stops reading the destination's answer (the caller went away). */
  cancel(): void;
}

/** Where a call goes: a URL the caller names (ephemeral), or a pre-configured proxy. */
export type ProxyTarget = { readonly kind: 'ephemeral'; readonly url: string } | { readonly kind: 'configured'; readonly proxy: Proxy };

export interface InvokeProxyDeps {
  readonly proxies: ProxyRepository;
  readonly applications: ApplicationRepository;
  readonly keyring: Keyring;
  readonly expressions: ExpressionEngine;
  readonly outbound: OutboundHttp;
  /** Judges the destination URL before any token is read for it (the outbound client judges it again, and each address). */
  readonly policy: OutboundPolicy;
  readonly clock: Clock;
  readonly detokenize: Detokenize;
  readonly tokenize: Tokenize;
  readonly readTokenRequest: TokenRequestReader;
  /** How `{{ token: <id> }}` shows a whole token (the API's token answer). */
  readonly presentToken: (view: TokenView) => unknown;
  /** Milliseconds to wait for a destination's answer (SVC_PROXY_TIMEOUT) unless a proxy sets its own. */
  readonly timeoutMs: number;
  /** The body limit (SVC_BODY_LIMIT), for answers as for requests. */
  readonly bodyLimitBytes: number;
  readonly audit?: Audit | undefined;
}

/** How a body is read for detokenization expressions and transforms. */
type BodyKind = 'json' | 'form' | 'text' | 'opaque';

function bodyKind(contentType: string | undefined, body: Uint8Array): BodyKind {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.startsWith('text/') || type === 'application/xml' || type.endsWith('+xml')) return 'text';
  // No type: text when it reads as UTF-8 text, otherwise bytes passed on untouched.
  if (type === '') return isUtf8(body) ? 'text' : 'opaque';
  return 'opaque';
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    decoder.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function utf8(bytes: Uint8Array, field: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw ValidationError.field(field, 'The body is not valid UTF-8.');
  }
}

/** The destination URL of a call: the target's URL with the call's path appended and the queries joined. */
export function destinationOf(base: string, call: Pick<ProxyCall, 'path' | 'query'>): string | undefined {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return undefined;
  }
  if (call.path !== '') url.pathname = `${url.pathname.replace(/\/+$/, '')}${call.path}`;
  if (call.query !== '') url.search = url.search === '' ? `?${call.query}` : `${url.search}&${call.query}`;
  return url.toString();
}

/** How deep a JSON body the proxy rewrites may nest: deeper, and writing it out again would exhaust the stack. */
export const MAX_PROXY_JSON_DEPTH = 100;

/** The values of a call's tokenize steps, checked and waiting for their tokens, and where each goes. */
interface PendingTokens {
  readonly items: TokenizeItem[];
  readonly paths: JsonPath[];
}

/** What stands in a tokenized value's place until its token is made: no detokenization expression reads it. */
const PENDING_TOKEN = 'token pending';

/** One path is the other, or holds it. */
function nested(a: JsonPath, b: JsonPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A request body being reworked: the parsed form its kind allows, or the bytes as they came. */
interface WorkingBody {
  kind: BodyKind;
  /** The JSON value, the form's pairs, or the text; undefined for no body and for opaque bytes. */
  value: unknown;
  bytes: Uint8Array | undefined;
  changed: boolean;
  /** A JSON body's text and the value it parsed to, so that what no transform changed is sent as it came. */
  json?: { readonly text: string; readonly value: unknown };
  /** A form body's pairs as written, so that the values no transform changed are sent as they came. */
  form?: ReadForm;
}

/**
 * The proxy (beyond.md §7): passes a call on to its destination with detokenization expressions in the body and
 * headers replaced by token values, each token revealed to whoever the call acts for, and a pre-configured proxy's
 * transforms applied; answers with the destination's status, headers and body. Nothing is sent when a token is
 * unknown or may not be revealed, or when the outbound policy refuses the destination.
 */
/**
 * The one 401 of a call with a proxy key: an unknown key, another tenant's, and a real one whose proxy needs an API key
 * that did not come (or was not valid) all answer this, so a proxy key found somewhere cannot be tried for being real.
 */
export const PROXY_KEY_REFUSED = 'The proxy key is invalid, or its proxy needs a valid API key with it.';

export class InvokeProxy {
  constructor(private readonly deps: InvokeProxyDeps) {}

  /** The pre-configured proxy a key names; 401 for a key that names none. */
  async proxyFor(proxyKey: string): Promise<Proxy> {
    const proxy = await this.deps.proxies.findByKeyHash(hashKey(proxyKey));
    if (!proxy) throw new UnauthenticatedError(PROXY_KEY_REFUSED);
    return proxy;
  }

  /**
   * `actor`: who called, when an API key came with the call (required, except for a pre-configured proxy with
   * `require_auth: false`).
   */
  async execute(target: ProxyTarget, actor: Actor | undefined, call: ProxyCall): Promise<ProxyAnswer> {
    const proxy = target.kind === 'configured' ? target.proxy : undefined;
    if (proxy === undefined || proxy.requireAuth) {
      if (!actor) throw new UnauthenticatedError();
      // Another tenant's proxy key is as unknown as one that never existed.
      if (proxy && proxy.tenantId !== actor.tenantId) throw new UnauthenticatedError(PROXY_KEY_REFUSED);
      requirePermission(actor, 'proxy:invoke');
    }
    const urlField = proxy ? 'destination_url' : 'SVC-PROXY-URL';
    const destination = destinationOf(proxy ? proxy.destinationUrl : target.kind === 'ephemeral' ? target.url : '', call);
    if (destination === undefined) throw ValidationError.field(urlField, 'Must be an absolute https URL.');
    // A destination the policy refuses is refused before any token is read or revealed for it.
    const decision = this.deps.policy.checkUrl(destination);
    if (!decision.allowed) throw ValidationError.field(urlField, `The destination ${decision.reason}.`);

    const application = proxy?.applicationId !== undefined ? await this.applicationOf(proxy, call.traceId) : undefined;
    // Tokens are revealed to the caller, and only to a caller who authenticated: a proxy open to anyone
    // (`require_auth: false`) takes data in and never detokenizes, or whoever holds its key could have any token its
    // application may reveal sent to the destination, and read back from a destination that echoes.
    const revealer = proxy === undefined || proxy.requireAuth ? actor : undefined;
    const headers: Record<string, string> = forwardedRequestHeaders(call.headers);
    const body = this.readBody(call);
    const transforms = proxy ? proxy.requestTransforms : [];
    const detokenizing = !(proxy?.disableDetokenization ?? false) && revealer !== undefined;
    const needsBody = detokenizing || transforms.some((t) => t.type === 'tokenize');
    if (needsBody && body.bytes !== undefined && body.kind !== 'opaque') {
      const encoding = call.headers['content-encoding']?.trim().toLowerCase();
      if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
        throw ValidationError.field('Content-Encoding', 'The proxy reads bodies for tokens: send them uncompressed.');
      }
      this.parseBody(body);
    }

    const steps: ProxyTransform[] = [...transforms];
    if (!steps.some((t) => t.type === 'detokenize')) steps.unshift({ type: 'detokenize' });
    // A proxy saved before every Proxy-* name was refused may still append one: it is never sent (docs/proxy.md).
    // Checked before any step, so no token is revealed for a call that cannot go.
    for (const [index, step] of transforms.entries()) {
      if (step.type === 'append_header' && isHopByHop(step.name.toLowerCase())) {
        const field = `request_transforms[${index}].name`;
        throw new ConflictError('PROXY_HEADER_INVALID', `The header '${step.name}' belongs to the connection and is never sent on: update the proxy.`, { [field]: ['A hop-by-hop header.'] });
      }
    }
    let configuration: Readonly<Record<string, string>> | undefined;
    const tokenizing: PendingTokens = { items: [], paths: [] };
    for (const step of steps) {
      if (step.type === 'detokenize') {
        if (detokenizing) await this.detokenize(revealer!, headers, body);
      } else if (step.type === 'tokenize') {
        await this.tokenizeBody(application!, step, body, tokenizing);
      } else if (step.type === 'append_header') {
        configuration ??= await this.configurationOf(proxy!);
        headers[step.name.toLowerCase()] = this.headerValue(step, configuration, transforms.indexOf(step));
      }
    }
    // Every step has passed: the tokens of every tokenize step are made now, together, all or nothing. Made step by
    // step, a later step's 400 or 403 (another tokenize's invalid value, a token the caller may not reveal) left the
    // earlier steps' tokens stored, with their data, behind a refused call.
    if (tokenizing.items.length > 0) await this.createTokens(application!, body, tokenizing);
    const masks = (proxy?.responseTransforms ?? []).filter((t): t is Extract<ProxyTransform, { type: 'mask' }> => t.type === 'mask');
    if (masks.length > 0) {
      // A mask reads the whole answer as text: no compression, and no byte ranges, which would cut a masked value
      // into pieces the mask does not recognise and a caller could put back together.
      headers['accept-encoding'] = 'identity';
      delete headers.range;
      delete headers['if-range'];
    }

    const timeoutMs = proxy?.timeoutSeconds !== undefined ? proxy.timeoutSeconds * 1000 : this.deps.timeoutMs;
    const started = Date.now();
    const stream = await this.send({ method: call.method, url: destination, headers, body: this.encodeBody(body), timeoutMs, signal: call.signal }, urlField);
    const message = `Proxy invoked; the destination answered ${stream.status}`;
    auditOf(this.deps).record(
      actor ?? application ?? anonymousCaller(proxy!, call.traceId),
      this.deps.clock.now(),
      proxy ? proxyFact(proxy.id, 'invoke', message) : { entityType: 'proxy', operation: 'invoke', message },
    );
    if (masks.length === 0) {
      return { status: stream.status, headers: answeredHeaders(stream.headers, false), body: stream.body, cancel: () => stream.cancel() };
    }
    const masked = await this.masked(stream, masks, started + timeoutMs);
    return { status: stream.status, headers: answeredHeaders(stream.headers, true), body: masked, cancel: () => stream.cancel() };
  }

  /** The proxy's application, live, as an actor of its tenant; 409 when it was deleted or has expired since. */
  private async applicationOf(proxy: Proxy, traceId: string | undefined): Promise<Actor> {
    const application = await this.deps.applications.findById(proxy.tenantId, proxy.applicationId!);
    if (!application || isApplicationExpired(application, this.deps.clock.now())) {
      throw new ConflictError('PROXY_APPLICATION_GONE', "The proxy's application no longer exists; update the proxy's application_id.");
    }
    return applicationActor(application, traceId);
  }

  private async configurationOf(proxy: Proxy): Promise<Readonly<Record<string, string>>> {
    const keys = await this.deps.keyring.forTenant(proxy.tenantId);
    return keys.openProxyConfiguration(proxy.id, proxy.sealedConfiguration);
  }

  private readBody(call: ProxyCall): WorkingBody {
    const bytes = call.body !== undefined && call.body.length > 0 ? call.body : undefined;
    const kind = bytes === undefined ? 'opaque' : bodyKind(call.headers['content-type'], bytes);
    return { kind, value: undefined, bytes, changed: false };
  }

  /** Reads a JSON, form or text body into the value transforms work on; 400 naming `body` when it does not read. */
  private parseBody(body: WorkingBody): void {
    const text = utf8(body.bytes!, 'body');
    if (body.kind === 'json') {
      try {
        body.value = JSON.parse(text) as unknown;
      } catch {
        throw ValidationError.field('body', 'The body is not valid JSON (its Content-Type says it is).');
      }
      // Measured on the text: a repeated key's dropped value nests too, and rewriting the text reads it.
      if (jsonTextDepth(text) > MAX_PROXY_JSON_DEPTH) {
        throw ValidationError.field('body', `The proxy reads JSON bodies nested at most ${MAX_PROXY_JSON_DEPTH} levels deep.`);
      }
      body.json = { text, value: body.value };
    } else if (body.kind === 'form') {
      const form = readForm(text);
      // A value the proxy may rewrite must read back as sent: bytes that are not UTF-8 (a form in another charset)
      // would go on as U+FFFD.
      for (const pair of form.pairs) {
        if (readDetokenization(pair.value).expressions.length > 0 && decodeStrictly(rawValueOf(pair)) === undefined) {
          throw ValidationError.field('body', 'A form value holds a detokenization expression and percent-encoded bytes that are not UTF-8: the proxy rewrites only UTF-8 form values.');
        }
      }
      body.value = form.fields;
      body.form = form;
    } else {
      body.value = text;
    }
  }

  /** The body to send: the bytes as they came unless something in it changed. */
  private encodeBody(body: WorkingBody): Uint8Array | string | undefined {
    if (!body.changed) return body.bytes;
    if (body.kind === 'json') return body.json ? rewriteJsonText(body.json.text, body.json.value, body.value) : JSON.stringify(body.value);
    if (body.kind === 'form') {
      const rewritten = body.form && rewriteFormText(body.form, body.value as Record<string, unknown>, asText);
      if (rewritten !== undefined) return rewritten;
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(body.value as Record<string, string | string[]>)) {
        for (const one of Array.isArray(value) ? value : [value]) params.append(name, asText(one));
      }
      return params.toString();
    }
    return asText(body.value);
  }

  /**
   * Replaces every detokenization expression in the headers and the body (one pass, so the 20-token bound and the
   * all-or-nothing checks hold across both): 400 for an unknown token, 403 for one the revealer may not reveal.
   */
  private async detokenize(revealer: Actor, headers: Record<string, string>, body: WorkingBody): Promise<void> {
    const document = { headers: { ...headers }, body: body.value };
    // A call that names no token needs no token permission: proxy:invoke alone passes it on (and an open proxy's
    // application that only creates tokens can capture them).
    if (!holdsExpression(document)) return;
    const done = (await this.deps.detokenize.execute(revealer, document, {
      present: this.deps.presentToken,
      requireReveal: true,
      limit: PROXY_TOKEN_LIMIT,
      limitSetting: 'the proxy’s bound',
      answerLimit: this.deps.bodyLimitBytes,
      answerLimitSetting: 'SVC_BODY_LIMIT',
      audit: { operation: 'proxy', message: 'Token sent through the proxy' },
    })) as { headers: Record<string, unknown>; body: unknown };
    for (const [name, value] of Object.entries(done.headers)) {
      if (value === headers[name]) continue;
      const text = asText(value);
      if (!isHeaderValue(text)) throw ValidationError.field(`headers.${name}`, 'A token value put into this header holds a line break, a control character or a character past U+00FF, which no header can carry.');
      headers[name] = text;
    }
    if (done.body !== body.value) {
      body.value = body.kind === 'json' ? done.body : body.kind === 'form' ? formValues(done.body) : asText(done.body);
      body.changed = true;
    }
  }

  /**
   * A tokenize transform: each selected value of a JSON body is to become the id of a new token of the proxy's
   * application. The values are checked here, as the create will check them, and stand aside (a placeholder with no
   * expression in it, so later steps pass over it as over an id) until {@link createTokens} makes every step's tokens.
   */
  private async tokenizeBody(application: Actor, step: Extract<ProxyTransform, { type: 'tokenize' }>, body: WorkingBody, pending: PendingTokens): Promise<void> {
    if (body.bytes === undefined) return;
    // Fail closed: a body the matcher cannot read would carry its card data on to the destination untouched.
    if (body.kind !== 'json') throw ValidationError.field('Content-Type', 'This proxy tokenizes values of JSON bodies: send the body as application/json.');
    // Sent as read, whatever this step selects: a repeated key's dropped value (which the matcher never saw, and a
    // destination reading first values would take) must not go on untokenized. Unrepeated, the text is unchanged.
    body.changed = true;
    let selected: ReturnType<typeof matchJson>;
    try {
      selected = matchJson(body.value, parseJsonMatcher(step.matcher));
    } catch (error) {
      // Too many values selected, or too deep: the body's fault, as the matcher was checked when the proxy was made.
      if (error instanceof ExpressionError) throw ValidationError.field('body', error.message);
      throw error;
    }
    // A value inside another selected value (`$..*` selects `a` and `a.n`) is tokenized with it, as part of its data:
    // a token of its own would have an id nobody learns, its place gone once the outer value is replaced.
    const values = selected.filter((p) => jsonValueAt(body.value, p) !== null);
    const paths = values.filter((p) => !values.some((q) => q.length < p.length && nested(p, q)));
    if (paths.length === 0) return;
    const items = paths.map((p) => {
      const path = fieldPath(['body', ...p]);
      try {
        return { path, input: this.deps.readTokenRequest({ ...step.token, data: jsonValueAt(body.value, p) }) };
      } catch (error) {
        // The request's own checks name fields of the request (`data`, `data[0]`): named here from the body's root.
        if (!(error instanceof ValidationError)) throw error;
        const under = (key: string): string => (key === 'body' ? path : `${path}${key.startsWith('[') ? '' : '.'}${key}`);
        throw new ValidationError(Object.fromEntries(Object.entries(error.errors).map(([key, messages]) => [under(key), messages])));
      }
    });
    // A value an earlier step tokenizes, or one holding or held by it, has no id yet to tokenize.
    paths.forEach((p, i) => {
      if (pending.paths.some((q) => nested(p, q))) {
        throw ValidationError.field(items[i]!.path, "An earlier tokenize transform of this proxy takes this value: a proxy's transforms tokenize each value once.");
      }
    });
    await this.deps.tokenize.check(application, [...pending.items, ...items]);
    pending.items.push(...items);
    pending.paths.push(...paths);
    body.value = replaceJson(body.value, paths, () => PENDING_TOKEN);
    body.changed = true;
  }

  /** Makes the tokens every tokenize step checked, in one all-or-nothing call, and puts their ids in their places. */
  private async createTokens(application: Actor, body: WorkingBody, pending: PendingTokens): Promise<void> {
    const results = await this.deps.tokenize.execute(application, pending.items);
    let next = 0;
    body.value = replaceJson(body.value, pending.paths, () => results[next++]!.view.token.id);
  }

  private headerValue(step: Extract<ProxyTransform, { type: 'append_header' }>, configuration: Readonly<Record<string, string>>, index: number): string {
    const field = `request_transforms[${index}].value`;
    let value: string;
    try {
      value = renderHeaderValue(this.deps.expressions, field, step.value, configuration);
    } catch (error) {
      // The proxy's configuration does not render: its owner's to fix, not the caller's (409, as for a bad value).
      if (!(error instanceof ValidationError)) throw error;
      throw new ConflictError('PROXY_HEADER_INVALID', `The header '${step.name}' could not be rendered from the proxy's configuration.`, error.errors);
    }
    if (!isHeaderValue(value)) throw new ConflictError('PROXY_HEADER_INVALID', `The header '${step.name}' would hold a line break, a control character or a character past U+00FF.`, { [field]: ['Renders to a value no header may hold.'] });
    return value;
  }

  private async send(request: OutboundRequest, urlField: string): Promise<OutboundStream> {
    try {
      return await this.deps.outbound.open({ ...request, maxBodyBytes: this.deps.bodyLimitBytes });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      switch (error.kind) {
        case 'refused':
          throw ValidationError.field(urlField, error.message);
        case 'timeout':
          throw new GatewayTimeoutError('PROXY_TIMEOUT', error.message);
        case 'response_too_large':
          throw new BadGatewayError('PROXY_ANSWER_TOO_LARGE', error.message);
        case 'unreachable':
          throw new BadGatewayError('PROXY_UNREACHABLE', error.message);
      }
    }
  }

  /**
   * The answer with every mask applied; the masks fail closed (502) on an answer they cannot read. The whole answer
   * must be in by `deadline` (epoch milliseconds: the timeout from when the request was sent): nothing reaches the
   * caller before it is, so a destination trickling its body would otherwise hold the call far past the timeout.
   */
  private async masked(stream: OutboundStream, masks: ReadonlyArray<Extract<ProxyTransform, { type: 'mask' }>>, deadline: number): Promise<Uint8Array> {
    const encoding = String(stream.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      stream.cancel();
      throw new BadGatewayError('PROXY_ANSWER_UNREADABLE', 'The destination answered with an encoded body the proxy’s masks cannot read.');
    }
    const charset = unreadableCharset(stream.headers['content-type']);
    if (charset !== undefined) {
      stream.cancel();
      throw new BadGatewayError('PROXY_ANSWER_UNREADABLE', charset);
    }
    const chunks: Uint8Array[] = [];
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      stream.cancel();
    }, Math.max(0, deadline - Date.now()));
    const tooLate = () => new GatewayTimeoutError('PROXY_TIMEOUT', 'The destination did not send its whole answer in time.');
    try {
      for await (const chunk of stream.body) chunks.push(chunk);
    } catch (error) {
      if (late) throw tooLate();
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'timeout') throw new GatewayTimeoutError('PROXY_TIMEOUT', error.message);
      throw new BadGatewayError(error.kind === 'response_too_large' ? 'PROXY_ANSWER_TOO_LARGE' : 'PROXY_UNREACHABLE', error.message);
    } finally {
      clearTimeout(timer);
    }
    if (late) throw tooLate();
    const bytes = Buffer.concat(chunks);
    if (bytes.length === 0) return bytes;
    let text = answerText(bytes);
    if (text === undefined) {
      throw new BadGatewayError('PROXY_ANSWER_UNREADABLE', 'The destination’s answer is not UTF-8 text without NUL bytes; the proxy’s masks cannot read it.');
    }
    try {
      for (const mask of masks) text = applyMask(text, mask, this.deps.bodyLimitBytes);
    } catch (error) {
      // A mask that cannot be applied fails closed: the answer is not passed on unmasked.
      if (error instanceof ExpressionError) throw new BadGatewayError('PROXY_MASK_FAILED', `The proxy's mask could not be applied to the answer: ${error.message}`);
      throw error;
    }
    return Buffer.from(text, 'utf8');
  }
}

/** A finite number written out in plain decimal digits, never in exponent form (exact for the double it holds). */
function plainDecimal(n: number): string {
  const text = String(n);
  if (!/e/i.test(text)) return text;
  if (Math.abs(n) >= 1) return BigInt(n).toString();
  return n.toFixed(100).replace(/0+$/, '');
}

/** One mask over an answer's text: a regex over the whole text, or a JSONPath over a JSON answer. */
function applyMask(text: string, mask: Extract<ProxyTransform, { type: 'mask' }>, maxLength: number): string {
  if (mask.matcher === 'regex') return maskText(text, compileMask(mask.expression!), mask.replacement, maxLength);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new BadGatewayError('PROXY_ANSWER_UNREADABLE', 'The destination’s answer is not JSON; the proxy’s JSONPath mask cannot read it.');
  }
  if (jsonTextDepth(text) > MAX_PROXY_JSON_DEPTH) {
    throw new BadGatewayError('PROXY_ANSWER_UNREADABLE', `The destination’s answer nests deeper than ${MAX_PROXY_JSON_DEPTH} levels; the proxy’s mask cannot read it.`);
  }
  const paths = matchJson(value, parseJsonMatcher(mask.matcher));
  // Nothing to mask: the text as it is, but with every repeated key once, as read (a value JSON.parse dropped was
  // never looked at by the mask).
  if (paths.length === 0) return rewriteJsonText(text, value, value);
  const within = mask.expression ? compileMask(mask.expression) : undefined;
  const masked = replaceJson(value, paths, (current) => {
    if (!within) return mask.replacement;
    // Within a value, only text is masked: objects and arrays stay as they are (their own values may be selected).
    if (typeof current === 'string') return maskText(current, within, mask.replacement, maxLength);
    if (typeof current === 'number' || typeof current === 'boolean') {
      // A number as its digits: `String` writes 4242424242424242000000 as `4.242424242424242e+21`, which a card
      // number's pattern does not match, and the text (all its digits) would go out as it came.
      const digits = typeof current === 'number' ? plainDecimal(current) : String(current);
      const masked = maskText(digits, within, mask.replacement, maxLength);
      return masked === digits ? current : masked;
    }
    return current;
  });
  const out = rewriteJsonText(text, value, masked);
  if (out.length > maxLength) throw new ExpressionError(`The masked answer would be longer than ${maxLength} characters.`);
  return out;
}

/** True when some string of `value` holds a detokenization expression (walked without recursion). */
function holdsExpression(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (readDetokenization(node).expressions.length > 0) return true;
    } else if (typeof node === 'object' && node !== null) {
      for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push(child);
    }
  }
  return false;
}

/** A detokenized form: every value as text (an object named whole becomes its JSON). */
function formValues(value: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) out[name] = Array.isArray(v) ? v.map(asText) : asText(v);
  return out;
}

/** Who the log names for a call to a proxy open to anyone (`require_auth: false`) without an application. */
function anonymousCaller(proxy: Proxy, traceId: string | undefined): AuditActor {
  return { tenantId: proxy.tenantId, id: 'anonymous', type: 'system', traceId };
}
