import {
  errorsWithin,
  mapTokenizeBody,
  requireWithinLimit,
  type TokenizeItem,
  type TokenizeLeaf,
  type TokenizeResult,
  tokenizeLeaves,
  ValidationError,
  valueTokenInput,
} from '@svc/core';
import type { IRouter, RequestHandler } from 'express';
import { z } from 'zod';
import type { TokenUseCases } from '../../container';
import { actorOf, requiresToken } from '../authenticate';
import { presentToken, presentTokenWithExtras } from '../presenters/token.presenter';
import { sendJson } from '../respond';
import { keepWithWrite } from '../idempotency';
import { createTokenInput, createTokenSchema } from '../schemas/token.schemas';
import { validate } from '../validate';

export interface BulkLimits {
  /** The most distinct tokens one POST /detokenize may name (`SVC_DETOKENIZE_LIMIT`). */
  readonly detokenize: number;
  /** The request body limit (`SVC_BODY_LIMIT`), in bytes: a detokenize answer's values may total ten times it. */
  readonly body: number;
}

/**
 * How many body limits of values one POST /detokenize answer may hold. A hundred card tokens render a few kilobytes;
 * the bound is for a token named thousands of times (each use is charged), which would otherwise make a 40 KB body
 * into an answer longer than any string the process can build.
 */
const ANSWER_BODY_LIMITS = 10;

/** A request body that is there: a JSON value (not nothing), with nothing no schema should see (see validate). */
function jsonValue(body: unknown): unknown {
  if (body === undefined) throw ValidationError.field('body', 'A JSON body is required.');
  return validate(z.unknown(), body);
}

/**
 * Every create request of a tokenize body checked against the POST /tokens schema, all their errors together, each
 * named by the request's path (`card.data`, `[3].type`).
 */
function tokenizeItems(leaves: readonly TokenizeLeaf[]): TokenizeItem[] {
  const errors: Record<string, readonly string[]> = Object.create(null);
  const items: TokenizeItem[] = [];
  for (const leaf of leaves) {
    if (leaf.kind === 'value') {
      items.push({ path: leaf.path, input: valueTokenInput(leaf.value) });
      continue;
    }
    try {
      items.push({ path: leaf.path, input: createTokenInput(validate(createTokenSchema, leaf.node)) });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      Object.assign(errors, errorsWithin(leaf.path, error.errors));
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return items;
}

/** POST /tokenize and POST /detokenize (beyond.md §1): many tokens in one call, in any JSON shape. */
/** `readJson` for detokenize, which only reads (see idempotency.ts). */
export function bulkRoutes(
  router: IRouter,
  auth: RequestHandler,
  useCases: TokenUseCases,
  parsers: { readonly json: RequestHandler; readonly readJson: RequestHandler },
  limits: BulkLimits,
): void {
  const { json, readJson } = parsers;
  router.post(
    '/tokenize',
    auth,
    requiresToken('token:create'),
    json,
    async (req, res) => {
      const body = jsonValue(req.body);
      const leaves = tokenizeLeaves(body);
      // Checked before any item is: a body over the limit is refused whatever else is wrong with it.
      requireWithinLimit(leaves.length, useCases.tokenize.limit);
      const present = (results: readonly TokenizeResult[]): unknown => {
        let next = 0;
        return mapTokenizeBody(body, (leaf) => {
          const { view, deduplicated } = results[next++]!;
          return leaf.kind === 'value' ? view.token.id : presentTokenWithExtras(view, { deduplicated });
        });
      };
      const results = await useCases.tokenize.execute(actorOf(res), tokenizeItems(leaves), keepWithWrite(res, 201, present));
      sendJson(res, 201, present(results));
    },
  );

  router.post(
    '/detokenize',
    auth,
    requiresToken('token:read'),
    readJson,
    async (req, res) => {
      const body = jsonValue(req.body);
      const answer = await useCases.detokenize.execute(actorOf(res), body, {
        present: presentToken,
        limit: limits.detokenize,
        limitSetting: 'SVC_DETOKENIZE_LIMIT',
        answerLimit: ANSWER_BODY_LIMITS * limits.body,
        answerLimitSetting: `${ANSWER_BODY_LIMITS} × SVC_BODY_LIMIT`,
      });
      sendJson(res, 200, answer);
    },
  );
}
