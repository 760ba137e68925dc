import { z } from 'zod';
import { optional } from './common';

/**
 * POST /token-intents. The data's rules are the token type's (the domain names `data.number` and the like); the SDK's
 * `encrypted` (JWE) is not served, so it is an unknown field.
 */
export const createTokenIntentSchema = z.strictObject({
  type: optional(z.string()),
  data: z.unknown().optional(),
});
