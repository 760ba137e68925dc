import { ValidationError } from './errors';

/** A page request: `page` starts at 1; `size` is bounded per resource. */
export interface PageRequest {
  readonly page: number;
  readonly size: number;
}

/** One page of results with the total number of items that match, across all pages. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly page: number;
  readonly size: number;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Validates a page request against a resource's maximum size; out-of-range values are a 400 on that field. */
export function pageRequest(page: number | undefined, size: number | undefined, maxSize = MAX_PAGE_SIZE): PageRequest {
  const p = page ?? 1;
  const s = size ?? DEFAULT_PAGE_SIZE;
  const errors: Record<string, string[]> = {};
  if (!Number.isInteger(p) || p < 1) errors.page = ['Page must be an integer of at least 1.'];
  if (!Number.isInteger(s) || s < 1 || s > maxSize) errors.size = [`Size must be an integer between 1 and ${maxSize}.`];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { page: p, size: s };
}

export function offsetOf(request: PageRequest): number {
  return (request.page - 1) * request.size;
}

/** A page of `items` out of `total` matches, as `request` asked for it. */
export function pageOf<T>(items: readonly T[], total: number, request: PageRequest): Page<T> {
  return { items, total, page: request.page, size: request.size };
}

export function mapPage<T, U>(page: Page<T>, fn: (item: T) => U): Page<U> {
  return pageOf(page.items.map(fn), page.total, page);
}
