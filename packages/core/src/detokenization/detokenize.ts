import { auditOf } from '../audit/audit';
import { requireTokenPermission, transformFor } from '../access/evaluate-access';
import type { Transform } from '../access/access-rule';
import type { Actor } from '../auth/actor';
import { json } from '../expressions/filters/json';
import { ExpressionError } from '../expressions/expression-error';
import { ForbiddenError, ValidationError } from '../shared/errors';
import { fieldPath } from '../shared/field-path';
import type { StoredToken } from '../tokens/token';
import type { TokenDeps } from '../tokens/token-deps';
import { openToken } from '../tokens/token-sealing';
import { type TokenView, viewToken } from '../tokens/token-view';
import { requireWithinLimit } from '../tokens/tokenize';
import { asText, type DetokenizationExpression, interpolate, type ReadText, readDetokenization } from './grammar';
import { isRecord } from '../tokens/data-rules';

/** A string of the body that holds expressions, and where it is. */
interface Found {
  /** Which string of the body it is, counting every string value in document order. */
  readonly ordinal: number;
  /** Its path, as errors name it (`card.number`, `[3]`; the root is `body`). */
  readonly path: string;
  readonly text: string;
  readonly read: ReadText;
}

/** How a detokenizing caller wants the tokens it names checked and shown. */
export interface DetokenizeOptions {
  /** Shows a token as the API would answer it (`{{ token: id }}` and its json paths read this). */
  readonly present: (view: TokenView) => unknown;
  /** The proxy's rule: every token must be revealed to the caller, not only readable (beyond.md §7). */
  readonly requireReveal?: boolean;
  /** The most distinct tokens one call may name, and the setting that sets it (named in the error). */
  readonly limit: number;
  readonly limitSetting: string;
  /**
   * The most characters the values put into the answer may total, each use of a value counted (JSON text for what
   * is not a string), and how the error names that bound. A token named many times is charged each time, so a small
   * body cannot make an answer far larger than itself.
   */
  readonly answerLimit: number;
  readonly answerLimitSetting: string;
  /** How the audit log names what was done with each token (default `detokenize`, `Token detokenized`). */
  readonly audit?: { readonly operation: string; readonly message: string } | undefined;
}

/** One expression's value, worked out once however many strings use it: its size as text, or why it has none. */
interface Rendered {
  readonly value: unknown;
  readonly size: number;
  readonly error?: string;
}


/**
 * POST /detokenize (beyond.md §1), and the proxy's detokenization: every string of a JSON value that holds
 * detokenization expressions is replaced by what they name, rendered under the caller's read transform. All the
 * tokens named are read in one round trip. All or nothing: an unknown, expired or foreign id is a 400 naming the
 * path of each string that names one, and a token the caller may not read a 403 naming those paths.
 */
export class Detokenize {
  constructor(private readonly deps: TokenDeps) {}

  async execute(actor: Actor, body: unknown, options: DetokenizeOptions): Promise<unknown> {
    requireTokenPermission(actor, 'token:read');
    const found = collect(body);
    const firstPath = new Map<string, string>();
    for (const { path, read } of found) for (const e of read.expressions) if (!firstPath.has(e.id)) firstPath.set(e.id, path);
    requireWithinLimit(firstPath.size, options.limit, 'distinct tokens', options.limitSetting);
    if (firstPath.size === 0) return body;

    const now = this.deps.clock.now();
    const stored = await this.deps.tokens.findMany(actor.tenantId, [...firstPath.keys()], now);
    const { views, transforms } = await this.viewsOf(actor, found, stored, options, now);
    const values = new Map<string, Rendered>();
    const invalid: Record<string, string[]> = Object.create(null);
    let budget = options.answerLimit;
    const valueOf = (path: string) => (e: DetokenizationExpression): unknown => {
      const key = `${e.wholeToken ? 't' : 'd'}\u0000${e.id}\u0000${e.path ?? ''}`;
      let rendered = values.get(key);
      if (!rendered) {
        rendered = render(views.get(e.id)!, e, options);
        values.set(key, rendered);
      }
      if (rendered.error !== undefined) note(invalid, path, rendered.error);
      budget -= rendered.size;
      if (budget < 0) {
        throw ValidationError.field(
          'body',
          `The detokenized values may total at most ${options.answerLimit} characters (${options.answerLimitSetting}); this request's come to more.`,
        );
      }
      return rendered.value;
    };
    const rendered = new Map<number, unknown>();
    for (const { ordinal, path, text, read } of found) {
      const render = valueOf(path);
      rendered.set(ordinal, read.whole ? render(read.expressions[0]!) : interpolate(text, read, render));
    }
    if (Object.keys(invalid).length > 0) throw new ValidationError(invalid);
    auditOf(this.deps).record(
      actor,
      now,
      [...firstPath.keys()].map((id) => ({
        entityType: 'token' as const,
        entityId: id,
        operation: options.audit?.operation ?? 'detokenize',
        // What the caller was shown, as a read's event says it: a masked detokenize is not a plaintext one.
        message: `${options.audit?.message ?? 'Token detokenized'} (${SHOWN[views.get(id)?.hasData ? transforms.get(id)! : 'redact']})`,
      })),
    );
    return replaceAt(body, rendered);
  }

  /** Each named token as the caller may see it; 400 for the paths naming missing ones, 403 for those it may not read. */
  private async viewsOf(
    actor: Actor,
    found: readonly Found[],
    stored: ReadonlyMap<string, StoredToken>,
    options: DetokenizeOptions,
    now: Date,
  ): Promise<{ views: Map<string, TokenView>; transforms: ReadonlyMap<string, Transform> }> {
    const missing: Record<string, string[]> = Object.create(null);
    const refused: Record<string, string[]> = Object.create(null);
    const transforms = new Map<string, Transform>();
    for (const { path, read } of found) {
      for (const { id } of read.expressions) {
        const token = stored.get(id);
        if (!token) {
          note(missing, path, `No token '${id}' exists (or it has expired).`);
          continue;
        }
        const transform = transformFor(actor, 'token:read', token);
        if (!transform || (options.requireReveal && transform !== 'reveal')) {
          note(refused, path, `The API key may not ${options.requireReveal ? 'reveal' : 'read'} the token '${id}'.`);
        } else transforms.set(id, transform);
      }
    }
    if (Object.keys(missing).length > 0) throw new ValidationError(missing);
    if (Object.keys(refused).length > 0) throw new ForbiddenError('The API key may not detokenize one or more of these tokens.', refused);

    const views = new Map<string, TokenView>();
    const keys = await this.deps.keyring.forTenant(actor.tenantId);
    for (const [id, transform] of transforms) {
      const token = stored.get(id)!;
      // Redacted tokens are never decrypted.
      views.set(id, transform === 'redact' ? { token, hasData: false } : viewToken(this.deps.expressions, openToken(keys, token), transform, this.deps.policy, now));
    }
    return { views, transforms };
  }
}

/** How a detokenize event says what its caller was shown of a token. */
const SHOWN: Readonly<Record<Transform, string>> = { reveal: 'data revealed', mask: 'data masked', redact: 'data redacted' };

/** What one expression names, as the caller may see it; a json path that matches nothing has no value but an error. */
function render(view: TokenView, e: DetokenizationExpression, options: DetokenizeOptions): Rendered {
  let value: unknown = e.wholeToken ? options.present(view) : (view.data ?? null);
  if (e.path !== undefined) {
    try {
      value = json(value, e.path);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return { value: null, size: 0, error: error.message };
    }
    // A field the token has no value for (`$.expires_at` of one that never expires) is not shown by the API either:
    // it matches nothing, rather than taking the key that held the expression out of the answer.
    if (value === undefined) return { value: null, size: 0, error: 'json: the JSONPath expression must match exactly one value.' };
  }
  return { value, size: asText(value).length };
}

function note(errors: Record<string, string[]>, path: string, message: string): void {
  const messages = (errors[path] ??= []);
  if (!messages.includes(message)) messages.push(message);
}

/**
 * Every string value (not key) of the body that holds an expression, in document order. Paths are for errors only
 * (`{"a.b": …}` and `{"a": {"b": …}}` share one); strings are told apart by their ordinal.
 */
function collect(body: unknown): Found[] {
  const found: Found[] = [];
  let ordinal = 0;
  const stack: Array<{ node: unknown; path: PropertyKey[] }> = [{ node: body, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      const read = readDetokenization(node);
      if (read.expressions.length > 0) found.push({ ordinal, path: fieldPath(path) || 'body', text: node, read });
      ordinal++;
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], path: [...path, i] });
    } else if (isRecord(node)) {
      for (const key of Object.keys(node).reverse()) stack.push({ node: node[key], path: [...path, key] });
    }
  }
  return found;
}

/** The body with the strings of the given ordinals replaced (visited in the order `collect` counts them). */
function replaceAt(body: unknown, rendered: ReadonlyMap<number, unknown>): unknown {
  let ordinal = 0;
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const at = ordinal++;
      return rendered.has(at) ? rendered.get(at) : node;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (isRecord(node)) {
      const out = Object.create(null) as Record<string, unknown>;
      for (const [key, value] of Object.entries(node)) out[key] = walk(value);
      return out;
    }
    return node;
  };
  return walk(body);
}
