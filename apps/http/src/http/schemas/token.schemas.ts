import type { CreateTokenInput } from '@svc/core';
import { z } from 'zod';
import { optional, pagingQuery, repeated } from './common';

const metadata = z.record(z.string(), z.string('Metadata values must be strings.'));

export const createTokenSchema = z.strictObject({
  id: optional(z.string()),
  // Required unless the token is made from a token intent: the domain says so ("Type is required.").
  type: optional(z.string()),
  // Presence is the token type's rule ("Data is required."), so the message is the same for a missing and a null value.
  data: z.unknown().optional(),
  token_intent_id: optional(z.string()),
  mask: z.unknown().optional(),
  containers: optional(z.array(z.string())),
  metadata: optional(metadata),
  search_indexes: optional(z.array(z.string())),
  fingerprint_expression: optional(z.string()),
  deduplicate_token: optional(z.boolean()),
  expires_at: optional(z.string()),
});

/** A POST /tokens body, checked: the create request POST /tokenize takes at each of its request leaves too. */
export function createTokenInput(body: z.output<typeof createTokenSchema>): CreateTokenInput {
  return {
    id: body.id,
    type: body.type,
    data: body.data,
    tokenIntentId: body.token_intent_id,
    mask: body.mask,
    containers: body.containers,
    metadata: body.metadata,
    searchIndexes: body.search_indexes,
    fingerprintExpression: body.fingerprint_expression,
    deduplicateToken: body.deduplicate_token,
    expiresAt: body.expires_at,
  };
}

/** A merge patch: presence matters, so nothing here defaults; `null` keeps its RFC 7386 meaning where allowed. */
export const updateTokenSchema = z.strictObject({
  data: z.unknown().optional(),
  mask: z.unknown().optional(),
  metadata: z.record(z.string(), z.string('Metadata values must be strings or null.').nullable()).nullable().optional(),
  containers: z.array(z.string()).optional(),
  search_indexes: z.array(z.string()).optional(),
  fingerprint_expression: z.string().optional(),
  deduplicate_token: z.boolean().optional(),
  expires_at: z.string().nullable().optional(),
});

export const searchTokensSchema = z.strictObject({
  query: optional(z.string()),
  page: optional(z.number().int('Page must be an integer.')),
  size: optional(z.number().int('Size must be an integer.')),
});

/** GET /tokens: `metadata.<key>` parameters are read separately, so unknown parameters pass here. */
export const listTokensQuery = z.object({
  id: repeated,
  type: repeated,
  ...pagingQuery,
});
