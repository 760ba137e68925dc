import { z } from 'zod';
import { ruleSchema } from './application.schemas';
import { optional } from './common';

export const authorizeSessionSchema = z.strictObject({
  nonce: z.string().min(1, 'The nonce is required.'),
  permissions: optional(z.array(z.string())),
  rules: optional(z.array(ruleSchema)),
  expires_at: optional(z.string()),
});
