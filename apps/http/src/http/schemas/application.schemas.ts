import { z } from 'zod';
import { optional } from './common';
import { pagingQuery, repeated } from './common';

const condition = z.strictObject({
  attribute: z.string(),
  operator: z.string(),
  value: z.string(),
});

export const ruleSchema = z.strictObject({
  description: optional(z.string().max(1000)),
  priority: z.number().int('Priority must be an integer.'),
  container: optional(z.string()),
  conditions: optional(z.array(condition)),
  transform: z.string(),
  permissions: z.array(z.string()),
});

export const createApplicationSchema = z.strictObject({
  name: z.string(),
  type: z.string(),
  permissions: optional(z.array(z.string())),
  rules: optional(z.array(ruleSchema)),
  expires_at: optional(z.string()),
  /** Basis Theory's: false makes the application without a key. */
  create_key: optional(z.boolean()),
});

export const updateApplicationSchema = z.strictObject({
  name: z.string(),
  permissions: optional(z.array(z.string())),
  rules: optional(z.array(ruleSchema)),
});

/** GET /applications/{id}/keys: the Basis Theory SDK may filter by key ids (`id`, repeatable). */
export const listApplicationKeysQuery = z.strictObject({ id: repeated });

export const listApplicationsQuery = z.strictObject({
  id: repeated,
  type: repeated,
  ...pagingQuery,
});
