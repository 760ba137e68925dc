import type { Transform } from '../access/access-rule';
import { type ExpressionEngine, WorkBudget } from '../expressions';
import { ValidationError } from '../shared/errors';
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

/** The most templates one mask may hold, and the most characters its evaluation may produce in all. */
export const MAX_MASK_TEMPLATES = 50;
export const MAX_MASK_OUTPUT = 1_048_576;
/**
 * Work one mask may do, all its templates together (and reading them), in the expression engine's units (about one
 * item evaluated; see WorkBudget). Counted, not timed, so a GC pause cannot turn a valid create into a 400. Real masks
 * use hundreds of units (a card's default about 400, reading included); `reveal_last` fits on text up to about 120 KB.
 * The bound (about 10 ms at worst) keeps planted masks from stalling every request while a page of 100 of them is
 * shown: 100,000 units, once a unit was honest about per-character filters, held the event loop for 3 s a page.
 */
export const MASK_WORK_LIMIT = 32_000;

const outputSize = (value: unknown): number => (typeof value === 'string' ? value.length : (JSON.stringify(value) ?? '').length);

/**
 * Evaluates a mask (a template, or an object/array of them) against the data. Bounded: a mask with more than
 * MAX_MASK_TEMPLATES templates, whose results exceed MAX_MASK_OUTPUT characters together, or whose templates do more
 * than MASK_WORK_LIMIT units of work together, is a 400 on `mask`, so no mask can make reads of a token expensive for everyone.
 */
export function evaluateMask(engine: ExpressionEngine, mask: unknown, data: unknown, within?: WorkBudget): unknown {
  const budget = { templates: MAX_MASK_TEMPLATES, output: MAX_MASK_OUTPUT };
  const work = new WorkBudget(MASK_WORK_LIMIT, within);
  const walk = (node: unknown, field: string): unknown => {
    if (typeof node === 'string') {
      if (--budget.templates < 0) throw ValidationError.field('mask', `A mask may hold at most ${MAX_MASK_TEMPLATES} expressions.`);
      const value = engine.evaluate(field, node, { data }, work);
      budget.output -= outputSize(value);
      if (budget.output < 0) throw ValidationError.field('mask', `A mask may produce at most ${MAX_MASK_OUTPUT} characters.`);
      return value;
    }
    if (Array.isArray(node)) return node.map((m, i) => walk(m, `${field}[${i}]`));
    if (isObject(node)) return Object.fromEntries(Object.entries(node).map(([k, m]) => [k, walk(m, `${field}.${k}`)]));
    return node;
  };
  return walk(mask, 'mask');
}

export function viewToken(engine: ExpressionEngine, token: Token, transform: Transform, policy: TokenPolicy, now: Date): TokenView {
  if (transform === 'redact') return { token, hasData: false };
  const data = liveData(token, policy, now);
  if (transform === 'reveal') return { token, data, hasData: true };
  if (token.mask === undefined || token.mask === null) return { token, hasData: false };
  try {
    // A card's mask never shows its cvc (decisions.md §5), whatever its expressions read (`{{ data | json: '$.cvc' }}`).
    return { token, data: evaluateMask(engine, token.mask, withoutCvc(token.type, data)), hasData: true };
  } catch {
    // A mask that cannot be evaluated on this data hides it rather than failing the read.
    return { token, hasData: false };
  }
}
