import { z } from 'zod';

/** A query parameter that may appear once or many times, as a list. */
export const repeated = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]));

/** A positive integer written in a query string. */
export const queryInt = z
  .string()
  .regex(/^\d{1,9}$/, 'Must be a positive integer.')
  .transform(Number)
  .optional();

export const pagingQuery = { page: queryInt, size: queryInt };

/** Optional in a body, where `null` counts as absent (SDKs send nulls for unset fields). */
export const optional = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((v) => v ?? undefined);

/** For endpoints that take no body: nothing, or an empty object (unknown fields are still a 400). */
export const emptyBody = z.strictObject({}).nullish();
