/** One end of a range as written: `*` for an open end. `position` is its 0-based offset in the query. */
export interface RangeBound {
  readonly text: string;
  readonly position: number;
}

/** `field:value`, the value unescaped and without its quotes. */
export interface TermOperand {
  readonly kind: 'term';
  readonly field: string;
  /** Offset of the field name. */
  readonly position: number;
  readonly value: string;
  /** Offset in the query of each UTF-16 unit of `value`, so errors inside a value point at the right place. */
  readonly valuePositions: readonly number[];
  readonly quoted: boolean;
  /** Index in `value` of the first unescaped `*` or `?` of an unquoted value. */
  readonly wildcard?: number;
}

/** `field:[min TO max]`; `[`/`]` include the bound, `{`/`}` exclude it. */
export interface RangeOperand {
  readonly kind: 'range';
  readonly field: string;
  /** Offset of the field name. */
  readonly position: number;
  /** Offset of the opening bracket. */
  readonly rangePosition: number;
  readonly min: RangeBound;
  readonly max: RangeBound;
  readonly minInclusive: boolean;
  readonly maxInclusive: boolean;
}

export type QueryOperand = TermOperand | RangeOperand;

/** A parenthesis or a boolean operator as written (`not` also stands for a `!` or `-` prefix). */
export interface SyntaxToken<K extends 'open' | 'close' | 'and' | 'or' | 'not'> {
  readonly kind: K;
  readonly position: number;
  readonly text: string;
}

/** A token of the query, with its 0-based offset. */
export type QueryToken =
  | SyntaxToken<'open'>
  | SyntaxToken<'close'>
  | SyntaxToken<'and'>
  | SyntaxToken<'or'>
  | SyntaxToken<'not'>
  | QueryOperand;
