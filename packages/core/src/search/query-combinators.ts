import type { TokenQuery } from './token-query';

/** AND of `items`, with nested ANDs merged and a single item returned as is. */
export function allOf(items: readonly TokenQuery[]): TokenQuery {
  const flat = items.flatMap((item) => (item.kind === 'and' ? item.items : [item]));
  return flat.length === 1 ? flat[0]! : { kind: 'and', items: flat };
}

/** OR of `items`, with nested ORs merged and a single item returned as is. */
export function anyOf(items: readonly TokenQuery[]): TokenQuery {
  const flat = items.flatMap((item) => (item.kind === 'or' ? item.items : [item]));
  return flat.length === 1 ? flat[0]! : { kind: 'or', items: flat };
}

/** NOT of `item`; a double negation cancels out. */
export function negate(item: TokenQuery): TokenQuery {
  return item.kind === 'not' ? item.item : { kind: 'not', item };
}
