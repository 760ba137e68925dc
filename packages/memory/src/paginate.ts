import { offsetOf, type Page, type PageRequest, pageOf } from '@svc/core';

interface Ordered {
  readonly id: string;
  readonly createdAt: Date;
}

/** Newest first, then by id descending: the order every store uses, so pages are stable. */
export function newestFirst(a: Ordered, b: Ordered): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

export function paginate<T extends Ordered>(items: Iterable<T>, request: PageRequest): Page<T> {
  const sorted = [...items].sort(newestFirst);
  const start = offsetOf(request);
  return pageOf(sorted.slice(start, start + request.size), sorted.length, request);
}
