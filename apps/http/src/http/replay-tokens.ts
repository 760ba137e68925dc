import type { Clock, TokenRepository } from '@svc/core';
import type { Response } from 'express';
import { actorOf } from './authenticate';

/** Re-presents a kept answer before it is replayed (see idempotency.ts). */
export type ReplayPresenter = (res: Response, kept: Buffer) => Promise<Buffer>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The kept answer of a token write (POST /tokens, PATCH /tokens/{id}, POST /tokenize), less the token data that may
 * no longer be shown: a token deleted or expired since (or whose id now names another token, made after it) is
 * replayed without `data`, and a card whose cvc has been erased (SVC_CVC_RETENTION, decisions.md §5: "absent from
 * every response" after it) without its `cvc`. Nothing is ever added or replaced: the replay is the first answer,
 * byte for byte, unless the data it showed has gone, and then it is that answer without it. The caller's rights are
 * not re-read here: the route's permission check runs before any replay.
 *
 * `shape` says where the tokens are: the whole answer ('token'), or, for /tokenize, each object of the answer that
 * carries `_extras.deduplicated` as a boolean (a token's answer; the caller's own objects keep their shape with every
 * primitive replaced by a token id, so none of them can carry a boolean there), not looking inside tokens' data.
 */
export function replayWithoutGoneData(tokens: Pick<TokenRepository, 'findById'>, clock: Clock, shape: 'token' | 'bulk'): ReplayPresenter {
  return async (res, kept) => {
    const answer = JSON.parse(kept.toString('utf8')) as Json;
    const found: JsonObject[] = [];
    if (shape === 'token') {
      if (isObject(answer)) found.push(answer);
    } else {
      collectBulkTokens(answer, found);
    }
    const { tenantId } = actorOf(res);
    const now = clock.now();
    let changed = false;
    for (const token of found) {
      if (!Object.hasOwn(token, 'data') || typeof token.id !== 'string') continue;
      const current = await tokens.findById(tenantId, token.id, now);
      if (!current || current.createdAt.toISOString() !== token.created_at) {
        delete token.data;
        changed = true;
        continue;
      }
      const data = token.data;
      const cvcErased = current.cvcExpiresAt === undefined || current.cvcExpiresAt.getTime() <= now.getTime();
      if (current.type === 'card' && isObject(data) && Object.hasOwn(data, 'cvc') && cvcErased) {
        delete data.cvc;
        changed = true;
      }
    }
    return changed ? Buffer.from(JSON.stringify(answer), 'utf8') : kept;
  };
}

function collectBulkTokens(node: Json, found: JsonObject[]): void {
  if (Array.isArray(node)) {
    for (const item of node) collectBulkTokens(item, found);
    return;
  }
  if (!isObject(node)) return;
  const extras = node._extras;
  if (isObject(extras) && typeof extras.deduplicated === 'boolean' && typeof node.id === 'string') {
    found.push(node);
    return;
  }
  for (const value of Object.values(node)) collectBulkTokens(value, found);
}
