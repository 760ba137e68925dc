import { ForbiddenError, NotFoundError } from '@svc/core';
import type { Response } from 'express';
import type { TokenUseCases } from '../container';
import { actorOf } from './authenticate';
import { presentToken } from './presenters/token.presenter';

/** Re-presents a kept answer before it is replayed (see idempotency.ts). */
export type ReplayPresenter = (res: Response, kept: Buffer) => Promise<Buffer>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The token data in a kept answer of a token write (POST /tokens, PATCH /tokens/{id}, POST /tokenize), as a read of
 * each token shows it at the replay: a token deleted or expired since, or one the caller may no longer read, is
 * replayed without `data`; a card past SVC_CVC_RETENTION without its cvc (decisions.md §5); a caller whose transform
 * changed gets the new one. Only `data` is ever replaced or removed, never added where the first answer had none, and
 * everything else of the answer is the kept one: when nothing changed, the replay is the first answer byte for byte.
 * Each read is the token read (GET /tokens/{id}) with its audit event, so a replay that shows plaintext is recorded
 * as a reveal like any other.
 *
 * `shape` says where the tokens are: the whole answer ('token'), or, for /tokenize, each object of the answer that
 * carries `_extras.deduplicated` as a boolean (a token's answer; the caller's own objects keep their shape with every
 * primitive replaced by a token id, so none of them can carry a boolean there), not looking inside tokens' data.
 */
export function replayTokensAsReadNow(tokens: TokenUseCases, shape: 'token' | 'bulk'): ReplayPresenter {
  return async (res, kept) => {
    const answer = JSON.parse(kept.toString('utf8')) as Json;
    const found: JsonObject[] = [];
    if (shape === 'token') {
      if (isObject(answer)) found.push(answer);
    } else {
      collectBulkTokens(answer, found);
    }
    const actor = actorOf(res);
    for (const token of found) {
      if (!Object.prototype.hasOwnProperty.call(token, 'data') || typeof token.id !== 'string') continue;
      let now: Json | undefined;
      try {
        now = presentToken(await tokens.get.execute(actor, token.id)).data as Json | undefined;
      } catch (error) {
        if (!(error instanceof NotFoundError || error instanceof ForbiddenError)) throw error;
        now = undefined;
      }
      if (now === undefined) delete token.data;
      else token.data = now;
    }
    return Buffer.from(JSON.stringify(answer), 'utf8');
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
