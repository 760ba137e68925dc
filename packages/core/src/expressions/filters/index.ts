import type { RandomSource } from '../../shared/random';
import { createAliasFilters } from './aliases';
import { cardFilters } from './cards';
import { castFilters } from './casts';
import { encodingFilters } from './encoding';
import type { FilterSet } from './filter-set';
import { jsonFilters } from './json';
import { maskingFilters } from './masking';
import { textFilters } from './text';

export type { Filter, FilterSet, FilterThis } from './filter-set';

/** Basis Theory's filters, plus the `replace` override, added on top of Liquid's standard ones. */
export function createFilters(random: RandomSource): FilterSet {
  return {
    ...maskingFilters,
    ...createAliasFilters(random),
    ...cardFilters,
    ...jsonFilters,
    ...textFilters,
    ...castFilters,
    ...encodingFilters,
  };
}
