import type { Collection, Document, Filter, Sort, WithId } from 'mongodb';
import { offsetOf, type Page, type PageRequest, pageOf } from '@svc/core';

/**
 * One page of `filter`'s matches in `sort` order, with the total across pages; the count and the page are read
 * concurrently.
 */
export async function findPage<D extends Document, T>(
  collection: Collection<D>,
  filter: Filter<D>,
  sort: Sort,
  request: PageRequest,
  map: (doc: WithId<D>) => T,
): Promise<Page<T>> {
  const offset = offsetOf(request);
  const [total, docs] = await Promise.all([
    collection.countDocuments(filter),
    collection.find(filter).sort(sort).skip(offset).limit(request.size).toArray(),
  ]);
  return pageOf(docs.map(map), total, request);
}

/** Newest first, then by id descending, for the collections whose `_id` is the entity id. */
export const NEWEST_FIRST: Sort = { created_at: -1, _id: -1 };
