import { z } from 'zod';
import { optional, queryInt, repeated } from './common';

/** A query parameter given at most once. */
const single = z.string('Give this parameter once.').optional();

/** GET /v2/tokens: `metadata` and `metadata.<key>` parameters are read separately, so unknown parameters pass here. */
export const listTokensV2Query = z.object({
  type: repeated,
  container: single,
  fingerprint: single,
  start: single,
  size: queryInt,
});

/** POST /v2/tokens/search, as the Basis Theory SDK's searchV2 sends it. */
export const searchTokensV2Schema = z.strictObject({
  query: optional(z.string()),
  start: optional(z.string()),
  size: optional(z.number().int('Size must be an integer.')),
});
