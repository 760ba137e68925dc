import { Liquid, type FS } from 'liquidjs';
import { ChargedCaptureTag } from './charged-capture-tag';
import type { ExpressionLimits } from './expression-limits';
import type { FilterSet } from './filters';
import type { StrictGrammar } from './strict/argument-reader';
import { filterSignatures } from './strict/filter-signatures';
import { TAG_CLASSES } from './strict/tag-grammar';
import { chargedCaseTag, chargedOperators, chargeFilters, ChargedForTag } from './work-charges';

/**
 * Builds the sandboxed liquidjs instance: expressions reach nothing but their variables.
 * - unknown filters are errors (a typo in a mask must never reveal data);
 * - only the tags of the strict grammar exist (strict/tag-grammar.ts says why the others are gone), so
 *   `{% include %}` and friends are parse errors, and the file system always fails anyway;
 * - no filter that evaluates a Liquid expression given as a string at render time (`where_exp` and
 *   friends): that text would escape the strict reader, and could even come from the data;
 * - own properties only (no prototype walking), bounded parse size and allocations. Render work is bounded
 *   by the engine, which gives each render a WorkBudget in place of liquidjs's wall-clock `renderLimit`;
 *   loops, filters and comparisons charge it for the values they go over (work-charges.ts).
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
    memoryLimit: limits.memoryLimit,
    operators: chargedOperators(limits.workLimit),
  });
  const allowed: readonly string[] = TAG_CLASSES;
  for (const name of Object.keys(liquid.tags)) if (!allowed.includes(name)) delete liquid.tags[name];
  liquid.registerTag('capture', ChargedCaptureTag);
  liquid.registerTag('for', ChargedForTag);
  liquid.registerTag('case', chargedCaseTag(limits.workLimit));
  for (const name of EXPRESSION_STRING_FILTERS) liquid.unregisterFilter(name);
  const signatures = filterSignatures(Object.keys(liquid.filters), filters);
  for (const [name, filter] of Object.entries(filters)) liquid.registerFilter(name, filter);
  chargeFilters(liquid, limits.workLimit);
  return { liquid, filters: signatures };
}
