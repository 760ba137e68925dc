import { Liquid, type FS } from 'liquidjs';
import type { ExpressionLimits } from './expression-limits';
import type { FilterSet } from './filters';
import type { StrictGrammar } from './strict/argument-reader';
import { filterSignatures } from './strict/filter-signatures';
import { TAG_CLASSES } from './strict/tag-grammar';

/**
 * Builds the sandboxed liquidjs instance: expressions reach nothing but their variables.
 * - unknown filters are errors (a typo in a mask must never reveal data);
 * - only the tags of the strict grammar exist (strict/tag-grammar.ts says why the others are gone), so
 *   `{% include %}` and friends are parse errors, and the file system always fails anyway;
 * - no filter that evaluates a Liquid expression given as a string at render time (`where_exp` and
 *   friends): that text would escape the strict reader, and could even come from the data;
 * - own properties only (no prototype walking), bounded parse size, render time and allocations.
 */

const EXPRESSION_STRING_FILTERS = ['where_exp', 'reject_exp', 'group_by_exp', 'has_exp', 'find_index_exp', 'find_exp'];

function noFile(): never {
  throw new Error('Expressions cannot read files.');
}

const NO_FILE_SYSTEM: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async () => noFile(),
  readFileSync: () => noFile(),
  resolve: (_dir, file) => file,
  contains: async () => false,
  containsSync: () => false,
};

/** The sandboxed instance, with the signatures of its filters for the strict reader. */
export function createLiquid(filters: FilterSet, limits: ExpressionLimits): StrictGrammar {
  const liquid = new Liquid({
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    // The strict reader knows values, not `(expr | filter)` groups.
    groupedExpressions: false,
    fs: NO_FILE_SYSTEM,
    root: [],
    partials: [],
    layouts: [],
    relativeReference: false,
    dynamicPartials: false,
    cache: false,
    // Dates render the same on every server.
    timezoneOffset: 0,
    locale: 'en-US',
    parseLimit: limits.parseLimit,
    renderLimit: limits.renderLimit,
    memoryLimit: limits.memoryLimit,
  });
  const allowed: readonly string[] = TAG_CLASSES;
  for (const name of Object.keys(liquid.tags)) if (!allowed.includes(name)) delete liquid.tags[name];
  for (const name of EXPRESSION_STRING_FILTERS) liquid.unregisterFilter(name);
  const signatures = filterSignatures(Object.keys(liquid.filters), filters);
  for (const [name, filter] of Object.entries(filters)) liquid.registerFilter(name, filter);
  return { liquid, filters: signatures };
}
