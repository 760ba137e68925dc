import { ValidationError } from '../shared/errors';
import { normalizeContainer } from '../shared/container';
import type { ExpressionEngine, WorkBudget } from '../expressions';
import type { Metadata } from './token';
import type { TokenType } from './token-types';
import { evaluateMask } from './token-view';

/** Exactly one container path, normalized; the type's default when none is given. */
export function resolveContainers(type: TokenType, containers: readonly string[] | undefined): string[] {
  if (containers === undefined) return [type.defaultContainer];
  if (containers.length !== 1) throw ValidationError.field('containers', 'Exactly one container is required.');
  const container = normalizeContainer(containers[0]!);
  if (!container) throw ValidationError.field('containers[0]', 'A container is a path like /pci/high/ of [a-z0-9_-] segments.');
  return [container];
}

const MAX_METADATA_ENTRIES = 100;
const MAX_SEARCH_INDEXES = 50;

export function validateMetadata(metadata: Readonly<Record<string, string>> | undefined): Metadata {
  const entries = Object.entries(metadata ?? {});
  if (entries.length > MAX_METADATA_ENTRIES) throw ValidationError.field('metadata', `At most ${MAX_METADATA_ENTRIES} entries.`);
  for (const [key, value] of entries) {
    if (key.trim() === '' || key.length > 256) throw ValidationError.field('metadata', 'Keys must be 1 to 256 characters.');
    if (value.length > 4096) throw ValidationError.field(`metadata.${key}`, 'Values must be at most 4096 characters.');
  }
  return Object.fromEntries(entries);
}

/** The mask to keep: the given one (checked by evaluating it on the data) or the type's default. */
export function resolveMask(engine: ExpressionEngine, type: TokenType, mask: unknown, data: unknown, within?: WorkBudget): unknown {
  if (mask === undefined || mask === null) return type.defaultMask;
  evaluateMask(engine, mask, data, within);
  return mask;
}

/** The search-index expressions to keep: the given ones, or the type's defaults; a 400 where the type has none. */
export function resolveSearchIndexes(type: TokenType, searchIndexes: readonly string[] | undefined): readonly string[] {
  if (searchIndexes === undefined) return type.defaultSearchIndexes;
  if (searchIndexes.length > MAX_SEARCH_INDEXES) throw ValidationError.field('search_indexes', `At most ${MAX_SEARCH_INDEXES} search indexes.`);
  if (!type.supportsSearchIndexes && searchIndexes.length > 0) {
    throw ValidationError.field('search_indexes', `Search indexes are not supported for the ${type.name} type.`);
  }
  return searchIndexes;
}
