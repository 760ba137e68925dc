import type { Transform } from '../access/access-rule';
import type { ExpressionEngine } from '../expressions';
import type { Token, TokenAttributes } from './token';
import { withoutCvc } from './token-types';

/** How long a card cvc lives after creation, in milliseconds. */
export interface TokenPolicy {
  readonly cvcRetentionMs: number;
}

/**
 * A token as one caller may see it. `data` is present only when the transform lets it be: the plaintext for
 * reveal, the evaluated mask for mask (absent when there is no mask), absent for redact.
 */
export interface TokenView {
  readonly token: TokenAttributes;
  readonly data?: unknown;
  readonly hasData: boolean;
  /** True for a deduplicated token returned to a caller without read access: only identity fields may be shown. */
  readonly identityOnly?: boolean;
}

/** The data as it may still be shown: a card's cvc vanishes once the retention has passed, even before the sweep. */
export function liveData(token: Token, policy: TokenPolicy, now: Date): unknown {
  const cvcGone = now.getTime() >= token.createdAt.getTime() + policy.cvcRetentionMs;
  return cvcGone ? withoutCvc(token.type, token.data) : token.data;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Evaluates a mask (a template, or an object/array of them) against the data. */
export function evaluateMask(engine: ExpressionEngine, mask: unknown, data: unknown, field = 'mask'): unknown {
  if (typeof mask === 'string') return engine.evaluate(field, mask, { data });
  if (Array.isArray(mask)) return mask.map((m, i) => evaluateMask(engine, m, data, `${field}[${i}]`));
  if (isObject(mask)) {
    return Object.fromEntries(Object.entries(mask).map(([k, m]) => [k, evaluateMask(engine, m, data, `${field}.${k}`)]));
  }
  return mask;
}

export function viewToken(engine: ExpressionEngine, token: Token, transform: Transform, policy: TokenPolicy, now: Date): TokenView {
  if (transform === 'redact') return { token, hasData: false };
  const data = liveData(token, policy, now);
  if (transform === 'reveal') return { token, data, hasData: true };
  if (token.mask === undefined || token.mask === null) return { token, hasData: false };
  try {
    return { token, data: evaluateMask(engine, token.mask, data), hasData: true };
  } catch {
    // A mask that cannot be evaluated on this data hides it rather than failing the read.
    return { token, hasData: false };
  }
}
