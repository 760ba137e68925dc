import { ValidationError } from './errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './pagination';

/**
 * A place in the newest-first order every list uses (`createdAt` descending, then `id` descending): a keyset page
 * starts just after it. Only the pair matters, not the item it came from, so the item may since have been deleted.
 */
export interface KeysetPosition {
  readonly createdAt: Date;
  readonly id: string;
}

/** Up to `size` items strictly after `after` (from the newest when absent). */
export interface KeysetRequest {
  readonly after?: KeysetPosition | undefined;
  readonly size: number;
}

/** One keyset page, with whether more items follow it; no total, which would cost a count of every match. */
export interface KeysetPage<T> {
  readonly items: readonly T[];
  readonly hasMore: boolean;
}

/** Whether `item` comes after `position` in newest-first order, ids breaking ties of the same millisecond. */
export function isAfterPosition(item: KeysetPosition, position: KeysetPosition): boolean {
  const a = item.createdAt.getTime();
  const b = position.createdAt.getTime();
  return a < b || (a === b && item.id < position.id);
}

/** A keyset page size: 20 when absent, 1 to 100 otherwise; anything else is a 400 on `size`. */
export function keysetSize(size: number | undefined, maxSize = MAX_PAGE_SIZE): number {
  const s = size ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(s) || s < 1 || s > maxSize) throw ValidationError.field('size', `Size must be an integer between 1 and ${maxSize}.`);
  return s;
}
