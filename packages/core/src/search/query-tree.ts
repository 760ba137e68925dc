import type { AST, Node, Operator } from 'lucene';
import { allOf, anyOf, negate } from './query-combinators';
import type { TokenQuery } from './token-query';

/** Builds the query of one lucene leaf (a term or a range). Called once per leaf, left to right. */
export type LeafBuilder = (leaf: Node) => TokenQuery;

/**
 * Converts lucene's tree into a `TokenQuery`. Lucene nests `a OP b OP c` to the right with no precedence, so the
 * chain is flattened first and then grouped the usual way: NOT binds tightest, then AND, then OR.
 */
export function fromLuceneTree(ast: AST | Node, leaf: LeafBuilder): TokenQuery {
  if (!isTree(ast)) return leaf(ast);
  const items: TokenQuery[] = [];
  const joins: ('AND' | 'OR')[] = [];
  let node: AST = ast;
  items.push(negateIf(fromLuceneTree(node.left, leaf), startOf(node) === 'NOT'));
  while ('right' in node) {
    const { operator, right } = node;
    const continues = isTree(right) && right.parenthesized !== true;
    joins.push(operator.startsWith('OR') ? 'OR' : 'AND');
    const operand = continues ? right.left : right;
    items.push(negateIf(fromLuceneTree(operand, leaf), operator.endsWith('NOT')));
    if (!continues) break;
    node = right;
  }
  return groupByPrecedence(items, joins);
}

function groupByPrecedence(items: readonly TokenQuery[], joins: readonly ('AND' | 'OR')[]): TokenQuery {
  const groups: TokenQuery[][] = [[items[0]!]];
  joins.forEach((join, index) => {
    if (join === 'OR') groups.push([]);
    groups[groups.length - 1]!.push(items[index + 1]!);
  });
  return anyOf(groups.map(allOf));
}

function isTree(node: AST | Node): node is AST {
  return 'left' in node;
}

/** Lucene's types omit `start` on binary nodes, but `NOT a AND b` carries both `start` and `operator`. */
function startOf(node: AST): Operator | undefined {
  return (node as { readonly start?: Operator }).start;
}

function negateIf(query: TokenQuery, condition: boolean): TokenQuery {
  return condition ? negate(query) : query;
}
