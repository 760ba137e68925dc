import { Context, type Filter, Output, TokenKind, toValue, toValueSync, TypeGuards, type Liquid, type Template, type Token } from 'liquidjs';
import type { RandomSource } from '../shared/random';
import { ChargingEmitter, type Outputs } from './charging-emitter';
import { BYTES_OUTPUT, HmacBytes } from './hmac-bytes';
import { createLiquid } from './create-liquid';
import { DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './expression-limits';
import { createFilters } from './filters';
import type { StrictGrammar } from './strict/argument-reader';
import { readStrictly } from './strict/read-strictly';
import { TemplateCache } from './template-cache';
import { toValidationError } from './to-validation-error';
import { ValidationError } from '../shared/errors';
import { ExpressionError } from './expression-error';
import { WorkBudget } from './work-budget';

/**
 * The variables an expression can see. `data` is the token's data (secret); `metadata` is only bound
 * inside fingerprint expressions.
 */
export interface ExpressionScope {
  data: unknown;
  metadata?: Record<string, string>;
  /** A proxy's configuration, bound only in its `append_header` values (destination credentials). */
  configuration?: Readonly<Record<string, string>>;
}

/** What the engine needs: randomness for the alias filters, and optionally tighter or looser work bounds. */
export interface ExpressionEngineDeps {
  readonly random: RandomSource;
  readonly limits?: Partial<ExpressionLimits>;
}

/** A template read strictly and parsed, with its size in items (what each render step costs). */
interface Parsed {
  readonly templates: Template[];
  readonly size: number;
  /** For a template that is exactly `{{ data }}` or `{{ data.a.b }}`: the members after `data` (see plainValue). */
  readonly plainPath?: readonly string[];
}

/** `{{ data }}`, `{{ data.number }}`: the default fingerprints of most token types, rendered without Liquid. */
const PLAIN_PATH = /^\{\{ *data((?:\.[A-Za-z_][A-Za-z0-9_]*)*) *\}\}$/;

/**
 * The string a plain path names in the scope, when it names one through own properties only (as the engine's
 * `ownPropertyOnly` reads them); undefined for anything else, which Liquid then renders. Liquid prints a string as it is.
 */
function plainValue(path: readonly string[], data: unknown): string | undefined {
  let value = data;
  for (const member of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, member)) return undefined;
    value = (value as Record<string, unknown>)[member];
  }
  return typeof value === 'string' ? value : undefined;
}

/**
 * Parsed templates kept: at most 1,000, and at most 250,000 characters of them together. A parsed template holds
 * about 140 bytes a character of dense tags (a 98 KB one, 13.6 MB), so a cache bounded by count alone grew by 50 MB
 * a request under distinct large templates until the heap ran out.
 */
const CACHE_SIZE = 1000;
const CACHE_CHARACTERS = 250_000;

/** Units charged for reading a template, per character (see `parse`). */
const PARSE_UNITS_PER_CHARACTER = 8;

/**
 * Evaluates Liquid expressions (ids, masks, fingerprints, search indexes) with Basis Theory's filters,
 * in a sandbox: no files, unknown filters are errors, work is bounded. Templates are read strictly
 * (strict/read-strictly.ts): one that liquidjs would read only in part is refused, never half-evaluated.
 * Every failure is a `ValidationError` naming the field, whose message never contains token data.
 */
export class ExpressionEngine {
  private readonly grammar: StrictGrammar;
  private readonly liquid: Liquid;
  private readonly limits: ExpressionLimits;
  private readonly parsed = new TemplateCache<Parsed>(CACHE_SIZE, CACHE_CHARACTERS);

  constructor(deps: ExpressionEngineDeps) {
    this.limits = { ...DEFAULT_EXPRESSION_LIMITS, ...deps.limits };
    this.grammar = createLiquid(createFilters(deps.random), this.limits);
    this.liquid = this.grammar.liquid;
  }

  /**
   * A work budget for several renders to share: one expression's limit, or `times` it. A token's expressions share
   * one, and a bulk call's tokens one between them, so that the work of a request, not only of each expression, is
   * bounded (rendering runs on the event loop: every other request waits for it).
   */
  budget(times = 1): WorkBudget {
    return new WorkBudget(this.limits.workLimit * times);
  }

  /** True when the string contains a Liquid output or tag (`{{` or `{%`). */
  static isExpression(value: string): boolean {
    return value.includes('{{') || value.includes('{%');
  }

  /**
   * Throws a ValidationError naming `field` unless the template makes an alias of the data (an id expression,
   * expressions.md: "They appear in `id` (aliases)"): text and `{{ … }}` outputs only, no tags; every output that
   * reads a variable reads it alone and passes it through an alias filter first; every filter argument is a literal.
   * So `{{ data | alias_card: true, true }}` or `ref-{{ data.number | alias_preserve_format: 0, 4 | upcase }}`, but
   * not the data sliced, reversed, split and joined, or appended to an alias, each of which would put it in an id
   * that every reader and the audit log see in the clear.
   */
  requireAlias(field: string, template: string, budget?: WorkBudget): void {
    const parsed = this.parse(field, template, budget);
    let aliases = 0;
    for (const part of parsed.templates) {
      if (part.token.kind === TokenKind.HTML) continue;
      if (!(part instanceof Output)) throw ValidationError.field(field, 'An id expression holds text and {{ … }} outputs only, no {% … %} tags.');
      const { initial, filters } = part.value;
      if (filters.some((filter) => filter.args.some((arg) => readsVariable(Array.isArray(arg) ? arg[1] : arg)))) {
        throw ValidationError.field(field, 'The filters of an id expression take literal arguments only.');
      }
      if (!initial.postfix.some(readsVariable)) continue;
      if (initial.postfix.length !== 1 || !ALIAS_FILTERS.has(filters[0]?.name ?? '')) {
        throw ValidationError.field(field, `An id expression makes an alias: pass the data through ${[...ALIAS_FILTERS].join(', ')} first.`);
      }
      // Two aliases of one value, one keeping its head and one its tail, would put the whole of it in the id.
      if (++aliases > 1) throw ValidationError.field(field, 'An id expression makes one alias of the data, not several.');
      requireModestAlias(field, filters[0]!);
    }
  }

  /** Throws a ValidationError naming `field` when the template does not parse (unknown filters included). */
  check(field: string, template: string): void {
    this.parse(field, template);
  }

  /**
   * Renders the template to text. `budget` lets several renders share one bound (a mask's templates);
   * by default each render gets its own.
   */
  render(field: string, template: string, scope: ExpressionScope, budget: WorkBudget = this.budget()): string {
    const parsed = this.parse(field, template, budget);
    try {
      return this.plain(parsed, scope) ?? this.emit(parsed, scope, 'any', budget);
    } catch (error) {
      throw toValidationError(field, error, 'render');
    }
  }

  /**
   * Like {@link render}, for one value that must be text (a search index: "a single value that is not null and not
   * empty", interface.md §4.6): an output that is an object or a list (`{{ data }}` of an object, a `split`) is an
   * error, not `[object Object]` or its items run together. A nil output prints nothing, as Liquid prints it; a value
   * empty as a whole is the caller's to refuse.
   */
  renderSingle(field: string, template: string, scope: ExpressionScope, budget: WorkBudget = this.budget()): string {
    const parsed = this.parse(field, template, budget);
    try {
      return this.plain(parsed, scope) ?? this.emit(parsed, scope, 'single', budget);
    } catch (error) {
      throw toValidationError(field, error, 'render');
    }
  }

  /**
   * Like {@link render}, for text that must come out whole (a proxy's header value, its credential): reading a
   * variable or member that is not set is an error rather than nothing (`Bearer {{ configuration.MISSING }}` would
   * send `Bearer `), and so is an output that is no text (nil, an object, a list: `{{ configuration }}` would print
   * `[object Object]`). The message names no value (a member read through an expression could be one).
   */
  renderText(field: string, template: string, scope: ExpressionScope): string {
    const budget = this.budget();
    const parsed = this.parse(field, template, budget);
    try {
      return this.emit(parsed, scope, 'text', budget, true);
    } catch (error) {
      if (causes(error).some((e) => (e as { name?: unknown }).name === 'InternalUndefinedVariableError')) {
        throw ValidationError.field(field, 'Names a variable or member that is not set (a configuration key that is not set?).');
      }
      throw toValidationError(field, error, 'render');
    }
  }

  /**
   * Like {@link render}, but a template that is exactly one output tag (`{{ expr }}`, blank text around it
   * allowed) gives the evaluated value itself: numbers stay numbers, null stays null, objects stay objects.
   * A missing value is null.
   */
  evaluate(field: string, template: string, scope: ExpressionScope, budget: WorkBudget = this.budget()): unknown {
    const parsed = this.parse(field, template, budget);
    const output = soleOutput(parsed.templates);
    if (!output) {
      try {
        return this.emit(parsed, scope, 'any', budget);
      } catch (error) {
        throw toValidationError(field, error, 'render');
      }
    }
    try {
      const ctx = this.context(scope, parsed, budget);
      // One step, as rendering it would have cost.
      ctx.renderLimit.check(0);
      const value: unknown = toValue(toValueSync(output.value.value(ctx, false)));
      if (value instanceof HmacBytes) throw new ExpressionError(BYTES_OUTPUT);
      return value === undefined ? null : value;
    } catch (error) {
      throw toValidationError(field, error, 'render');
    }
  }

  /**
   * The template read and parsed, from the cache when it is there. With a `budget` (every render), reading it is
   * charged first, at its length, cached or not: reading costs about 2-4 µs a character of dense tags (a 99,000
   * character template took 0.9 s before any unit was counted), and charging it every time keeps the same template
   * passing or failing whatever the cache holds.
   */
  private parse(field: string, template: string, budget?: WorkBudget): Parsed {
    if (budget) {
      try {
        budget.spend(template.length * PARSE_UNITS_PER_CHARACTER);
      } catch (error) {
        throw toValidationError(field, error, 'render');
      }
    }
    const cached = this.parsed.get(template);
    if (cached) return cached;
    let parsed: Parsed;
    try {
      // Checked before reading, so an oversized template costs nothing; liquidjs checks it again.
      if (template.length > this.limits.parseLimit) throw new Error('parse length limit exceeded');
      const { size } = readStrictly(template, this.grammar);
      const plain = PLAIN_PATH.exec(template);
      parsed = { templates: this.liquid.parse(template), size, ...(plain ? { plainPath: plain[1]!.split('.').slice(1) } : {}) };
    } catch (error) {
      throw toValidationError(field, error, 'parse');
    }
    this.parsed.set(template, parsed, template.length);
    return parsed;
  }

  /** The string a plain `{{ data.a.b }}` names, read without Liquid; undefined when the template is more than that. */
  private plain(parsed: Parsed, scope: ExpressionScope): string | undefined {
    return parsed.plainPath && plainValue(parsed.plainPath, scope.data);
  }

  /** Renders a parsed template into an emitter taking `outputs` (see charging-emitter.ts); returns its text. */
  private emit(parsed: Parsed, scope: ExpressionScope, outputs: Outputs, budget?: WorkBudget, strictVariables = false): string {
    const ctx = this.context(scope, parsed, budget, strictVariables);
    const emitter = new ChargingEmitter(ctx.memoryLimit, outputs);
    toValueSync(this.liquid.renderer.renderTemplates(parsed.templates, ctx, emitter));
    return emitter.buffer;
  }

  /** A render context whose step meter is a WorkBudget (liquidjs's default is a wall-clock deadline). */
  private context(scope: ExpressionScope, parsed: Parsed, budget = new WorkBudget(this.limits.workLimit), strictVariables = false): Context {
    return new Context(environment(scope), this.liquid.options, { sync: true, strictVariables }, { liquid: this.liquid, renderLimit: budget.meter(parsed.size) });
  }
}

/** A fresh top-level object per render, so tags like `increment` cannot touch the caller's objects. */
function environment(scope: ExpressionScope): Record<string, unknown> {
  const env: Record<string, unknown> = scope.metadata === undefined ? { data: scope.data } : { data: scope.data, metadata: scope.metadata };
  if (scope.configuration !== undefined) env.configuration = { ...scope.configuration };
  return env;
}

/** An error and the errors it wraps (liquidjs wraps what a render throws). */
function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 20; e = Reflect.get(e as object, 'originalError') ?? (e as { cause?: unknown }).cause) {
    out.push(e);
  }
  return out;
}

/** The filters that make an alias of a value: random characters in its shape, a few of its own kept at most. */
const ALIAS_FILTERS: ReadonlySet<string> = new Set(['alias_preserve_format', 'alias_preserve_length', 'alias_card']);

/** The most an alias in an id keeps in clear: a BIN's 8 characters at the head, the last 4 at the tail. */
const ID_ALIAS_HEAD = 8;
const ID_ALIAS_TAIL = 4;

/**
 * An alias filter in an id keeps little of the value in clear: `alias_preserve_format` and `alias_preserve_length`
 * take their counts as plain numbers, at most ID_ALIAS_HEAD first and ID_ALIAS_TAIL last characters (as `alias_card`
 * keeps a BIN and the last four); more would leave the few characters between to be guessed.
 */
function requireModestAlias(field: string, filter: Filter): void {
  if (filter.name === 'alias_card') return;
  const limits = [ID_ALIAS_HEAD, ID_ALIAS_TAIL];
  if (filter.args.length > limits.length) throw ValidationError.field(field, `${filter.name} takes two counts at most.`);
  filter.args.forEach((arg, i) => {
    const token = Array.isArray(arg) ? undefined : arg;
    const count = token && TypeGuards.isNumberToken(token) ? Number(token.getText()) : Number.NaN;
    if (!Number.isInteger(count) || count < 0 || count > limits[i]!) {
      throw ValidationError.field(field, `An alias in an id keeps at most the first ${ID_ALIAS_HEAD} and the last ${ID_ALIAS_TAIL} characters in clear: ${filter.name} takes whole numbers up to those.`);
    }
  });
}

/** Whether a value token reads a variable (`data`, `data.number`, `x`, a range over one), rather than being a literal. */
function readsVariable(token: Token | undefined): boolean {
  if (token === undefined) return false;
  if (TypeGuards.isPropertyAccessToken(token)) return true;
  if (TypeGuards.isRangeToken(token)) return readsVariable(token.lhs) || readsVariable(token.rhs);
  return false;
}

function soleOutput(templates: readonly Template[]): Output | undefined {
  const significant = templates.filter((t) => !(t.token.kind === TokenKind.HTML && t.token.getText().trim() === ''));
  const [only] = significant;
  return significant.length === 1 && only instanceof Output ? only : undefined;
}
