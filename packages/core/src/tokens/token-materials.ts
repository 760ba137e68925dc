import { ValidationError } from '../shared/errors';
import type { TenantKeys } from '../crypto/tenant-keys';
import type { ExpressionEngine, WorkBudget } from '../expressions';
import type { Metadata } from './token';
import { type TokenTypeName, withoutCvc } from './token-types';

/** What a token's data and expressions are turned into for storage: never the values themselves. */
export interface TokenMaterials {
  readonly fingerprint: string;
  readonly indexHashes: readonly string[];
}

export interface MaterialsInput {
  readonly type: TokenTypeName;
  readonly data: unknown;
  readonly metadata: Metadata;
  readonly fingerprintExpression: string;
  readonly searchIndexes: readonly string[];
}

/**
 * Evaluates the fingerprint and search-index expressions and hashes their values with the tenant's keys. They share
 * `budget` (by default one expression's): a token's expressions together do no more work than one may.
 */
export function computeMaterials(engine: ExpressionEngine, keys: TenantKeys, input: MaterialsInput, budget: WorkBudget = engine.budget()): TokenMaterials {
  // A card's cvc is erased after an hour; nothing derived from it may outlive it, so it never feeds a hash.
  const data = withoutCvc(input.type, input.data);
  // One text value, as a search index's: an object or a list would print alike for every such value
  // (`[object Object]`, or a list's items run together) and deduplicate unrelated tokens to one another.
  const fingerprintValue = engine.renderSingle(
    'fingerprint_expression',
    input.fingerprintExpression,
    { data, metadata: { ...input.metadata } },
    budget,
  );
  // An empty fingerprint (a field the data lacks, or "") would be every such token's: deduplication would hand back
  // another token's data and drop the new one.
  if (fingerprintValue.trim() === '') {
    throw ValidationError.field('fingerprint_expression', 'The fingerprint expression produced an empty value: it must identify the data.');
  }
  const indexHashes = input.searchIndexes.map((expression, i) => {
    const field = `search_indexes[${i}]`;
    // "A single value that is not null and not empty" (interface.md §4.6): no object, list or nothing.
    const value = engine.renderSingle(field, expression, { data }, budget);
    if (value.trim() === '') throw ValidationError.field(field, 'The search index expression produced an empty value.');
    return keys.indexHash(value);
  });
  return { fingerprint: keys.fingerprint(input.type, fingerprintValue), indexHashes: [...new Set(indexHashes)] };
}
