import type { Page } from '@svc/core';

/** The list envelope: `{ pagination: { total_items, page_number, page_size, total_pages }, data }`. */
export function presentPage<T, U>(page: Page<T>, present: (item: T) => U) {
  return {
    pagination: {
      total_items: page.total,
      page_number: page.page,
      page_size: page.size,
      total_pages: Math.ceil(page.total / page.size),
    },
    data: page.items.map(present),
  };
}

export const iso = (date: Date | undefined): string | undefined => date?.toISOString();
