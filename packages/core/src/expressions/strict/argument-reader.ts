import { Tokenizer, TypeGuards, type Liquid, type Token } from 'liquidjs';
import { checkValueToken } from './check-value-token';
import type { FilterSignature, FilterSignatures } from './filter-signatures';
import { describeAt, ExpressionSyntaxError } from './expression-syntax-error';
import { isWordChar } from './liquid-chars';

/** Filters that may only end a chain (expressions.md). */
const LAST_ONLY: ReadonlySet<string> = new Set(['json_stringify', 'stringify']);

type OperatorToken = NonNullable<ReturnType<Tokenizer['readOperator']>>;

/** The liquidjs instance templates are read for (its operators, its tokenizer options) and its filters' signatures. */
export interface StrictGrammar {
  readonly liquid: Liquid;
  readonly filters: FilterSignatures;
}

/**
 * Reads the inside of one output (`{{ … }}`) or the arguments of one tag under a strict grammar, with
 * liquidjs's own Tokenizer so every piece is read exactly as liquidjs will read it. liquidjs itself stops
 * quietly where its grammar ends (at `,` or `)`, after a second operand, at a dangling `|`) and ignores the
 * rest; a caller here must account for every character, so the rest of a tag can never be silently dropped.
 *
 *   filtered-value := expression filter*
 *   expression     := 'not'* value (binary-operator 'not'* value)*    ('not' only after and/or)
 *   filter         := '|' name (':' argument (',' argument)*)?
 *   argument       := value | keyword ':' value
 *
 * A filter gets no more positional arguments than it takes and only the keywords it reads (see
 * FilterSignature): an argument it would ignore is a filter lost to a typo.
 *
 * `items` counts what was read (values, operators, filters): the template's size, which prices each step
 * of its render (see WorkBudget).
 */
export class ArgumentReader {
  private readonly t: Tokenizer;
  private readonly end: number;
  items = 0;

  constructor(
    private readonly input: string,
    range: readonly [number, number],
    private readonly grammar: StrictGrammar,
  ) {
    this.t = new Tokenizer(input, grammar.liquid.options.operators, undefined, [range[0], range[1]]);
    this.end = range[1];
  }

  /** True when only blanks remain. */
  atEnd(): boolean {
    this.t.skipBlank();
    return this.t.end();
  }

  /** Refuses anything but blanks from here to the end of the tag. */
  expectEnd(): void {
    if (!this.atEnd()) throw this.unexpected();
  }

  peek(): string {
    this.t.skipBlank();
    return this.t.peek();
  }

  /** Consumes `char` (after blanks) if it is next. */
  accept(char: string): boolean {
    if (this.peek() !== char) return false;
    this.t.advance();
    return true;
  }

  expect(char: string, what: string): void {
    if (!this.accept(char)) throw this.syntax(`expected ${what} but found ${describeAt(this.input, this.t.p, this.end)}`);
  }

  /** Consumes the word `word` if it is next and whole (`or` but not `order`). */
  acceptWord(word: string): boolean {
    this.t.skipBlank();
    const { p } = this.t;
    if (this.input.slice(p, p + word.length) !== word) return false;
    if (p + word.length < this.end && isWordChar(this.input.charAt(p + word.length))) return false;
    this.t.advance(word.length);
    return true;
  }

  /** A name as liquidjs reads it (letters, digits, `_`, `-`, `?`); refused when empty. */
  identifier(what: string): string {
    this.t.skipBlank();
    const name = this.t.readIdentifier();
    if (!name.size()) throw this.syntax(`expected ${what} but found ${describeAt(this.input, name.begin, this.end)}`);
    this.items++;
    return name.content;
  }

  /** Where the reader stands, after blanks (for messages). */
  position(): number {
    this.t.skipBlank();
    return this.t.p;
  }

  /** A quoted string, closed. */
  quoted(): void {
    this.t.skipBlank();
    const token = this.t.readQuoted();
    if (!token) throw this.unexpected();
    this.items += checkValueToken(token, this.input);
  }

  /** One operand: a literal, a quoted string, a number, a range or a variable with its properties. */
  value(after?: string): Token {
    this.t.skipBlank();
    const begin = this.t.p;
    const token = this.t.readValue();
    if (!token) {
      const where = after === undefined ? '' : ` after ${after}`;
      throw this.syntax(`expected a value${where} but found ${describeAt(this.input, begin, this.end)}`, begin);
    }
    this.items += checkValueToken(token, this.input);
    return token;
  }

  /** Operands joined by operators, in the only shapes liquidjs evaluates as written (see the class comment). */
  expression(): void {
    let previous: OperatorToken | undefined;
    let expectOperand = true;
    for (;;) {
      if (this.atEnd()) break;
      const at = this.t.p;
      const operator = this.t.readOperator();
      if (operator) {
        this.operator(operator, previous, expectOperand, at);
        previous = operator;
        expectOperand = true;
        this.items++;
        continue;
      }
      // Another operand right after one is what liquidjs silently drops (`data.number reveal_last`).
      if (!expectOperand) break;
      this.value(previous ? `'${previous.operator}'` : undefined);
      expectOperand = false;
    }
    if (expectOperand) {
      const after = previous ? ` after '${previous.operator}'` : '';
      throw this.syntax(`expected a value${after} but found ${describeAt(this.input, this.t.p, this.end)}`);
    }
  }

  /** Zero or more filters; stops before anything that is not `|` (the caller decides whether that may follow). */
  filters(): void {
    let last: string | undefined;
    while (this.accept('|')) {
      this.t.skipBlank();
      const name = this.t.readIdentifier();
      if (!name.size()) throw this.syntax(`expected a filter name after '|' but found ${describeAt(this.input, name.begin, this.end)}`, name.begin);
      // expressions.md: json_stringify (alias stringify) must be the last filter.
      if (last !== undefined && LAST_ONLY.has(last)) throw this.syntax(`'${last}' must be the last filter`, name.begin);
      last = name.content;
      const signature = this.grammar.filters.get(name.content);
      if (!signature) throw this.syntax(`unknown filter '${name.content}'`, name.begin);
      this.items++;
      if (this.accept(':')) this.filterArguments(name.content, signature);
    }
  }

  /** An expression and its filters, with nothing after them: the value of an output, `if`, `assign`, `echo`, `case`. */
  filteredValue(): void {
    this.expression();
    this.filters();
    this.expectEnd();
  }

  syntax(problem: string, at = this.t.p): ExpressionSyntaxError {
    return new ExpressionSyntaxError(problem, this.input, at);
  }

  unexpected(): ExpressionSyntaxError {
    this.t.skipBlank();
    return this.syntax(`unexpected ${describeAt(this.input, this.t.p, this.end)}`);
  }

  private operator(operator: OperatorToken, previous: OperatorToken | undefined, expectOperand: boolean, at: number): void {
    if (operator.operator === 'not') {
      // liquidjs's precedence makes `a == not b` drop `a`; after and/or (or at the start) `not` means what it says.
      const placed = expectOperand && (previous === undefined || ['and', 'or', 'not'].includes(previous.operator));
      if (!placed) throw this.syntax(`'not' may only start a condition or follow 'and' or 'or'`, at);
      return;
    }
    if (expectOperand) {
      const where = previous ? `after '${previous.operator}'` : 'at the start';
      throw this.syntax(`expected a value ${where} but found '${operator.operator}'`, at);
    }
  }

  private filterArguments(filter: string, signature: FilterSignature): void {
    let positional = 0;
    const keywords = new Set<string>();
    let separator = "':'";
    do {
      const at = this.position();
      const key = this.value(separator);
      separator = "','";
      if (!this.accept(':')) {
        if (keywords.size > 0) throw this.syntax(`a positional argument of '${filter}' after a keyword argument`, at);
        if (++positional > signature.maxArguments) throw this.syntax(`'${filter}' takes ${plural(signature.maxArguments, 'argument')}`, at);
        continue;
      }
      // A keyword argument (`allow_false: true`): only one the filter reads, given once, with its value.
      const keyword = TypeGuards.isPropertyAccessToken(key) && !key.variable && key.props.length === 1 ? key.getText() : undefined;
      if (keyword === undefined || !signature.keywords.includes(keyword)) throw this.syntax(`'${filter}' takes no keyword argument '${key.getText()}'`, at);
      if (keywords.has(keyword)) throw this.syntax(`'${keyword}' is given twice`, at);
      keywords.add(keyword);
      this.value(`'${keyword}:'`);
    } while (this.accept(','));
  }
}

function plural(count: number, noun: string): string {
  if (count === 0) return `no ${noun}s`;
  return count === 1 ? `at most 1 ${noun}` : `at most ${count} ${noun}s`;
}
