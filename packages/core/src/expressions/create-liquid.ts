import { Liquid, type FS } from 'liquidjs';
import type { ExpressionLimits } from './expression-limits';
import type { FilterSet } from './filters';

/**
 * Builds the sandboxed liquidjs instance: expressions reach nothing but their variables.
 * - unknown filters are errors (a typo in a mask must never reveal data);
 * - no file system: the tags that load templates are removed, and the file system always fails anyway;
 * - own properties only (no prototype walking), bounded parse size, render time and allocations.
 */

// Tags that read other templates. Removing them makes `{% include %}` a parse error.
const FILE_TAGS = ['include', 'render', 'layout'] as const;

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

export function createLiquid(filters: FilterSet, limits: ExpressionLimits): Liquid {
  const liquid = new Liquid({
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
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
  for (const tag of FILE_TAGS) delete liquid.tags[tag];
  for (const [name, filter] of Object.entries(filters)) liquid.registerFilter(name, filter);
  return liquid;
}
