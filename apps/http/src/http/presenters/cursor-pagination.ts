import type { CursorPage } from '@svc/core';

/**
 * The cursor envelope of Basis Theory's v2 lists: `{ pagination: { page_size, next }, data }`. `page_size` is the
 * page size in force; `next` is the `start` of the next page, absent on the last one (the SDK's pager stops there).
 */
export function presentCursorPage<T, U>(page: CursorPage<T>, present: (item: T) => U) {
  return {
    pagination: { page_size: page.size, ...(page.next === undefined ? {} : { next: page.next }) },
    data: page.items.map(present),
  };
}
