import type { Context } from 'liquidjs';

/** What liquidjs binds `this` to when it calls a filter; only the render context is used. */
export interface FilterThis {
  readonly context: Context;
}

/** A filter as registered with liquidjs: the piped value first, then the filter's positional arguments. */
export type Filter = (this: FilterThis, value: unknown, ...args: unknown[]) => unknown;

/** Filters by name. */
export type FilterSet = Readonly<Record<string, Filter>>;

/** Charges `size` units against the render's memory limit, so large outputs are bounded like Liquid's own. */
export function charge(self: FilterThis, size: number): void {
  self.context.memoryLimit.use(size);
}
