import { answerDigest, IdempotentRequests, type IdempotentAnswer, type KeepAnswer, type KeptAnswer, type KeptAs } from '@svc/core';
import { JSON_CONTENT_TYPE } from './respond';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger';
import { actorOf } from './authenticate';
import type { ReplayPresenter } from './replay-tokens';
import { requireSafeValue } from './validate';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** The headers of a kept answer that are replayed with it; the rest (trace id, CORS) belong to each request. */
const KEPT_HEADERS = ['content-type', 'location'];

/**
 * Idempotency keys (beyond.md §4) around a route's body parser, so it runs after authentication and the permission
 * check, once the body is read. Without `SVC-IDEMPOTENCY-KEY` / `BT-IDEMPOTENCY-KEY`, or on a method other than POST,
 * PUT or PATCH, it only looks at two headers. With one, it claims the key for this request (fingerprint: method, path
 * with its query, and the body as parsed JSON, so whitespace and formatting do not count), replays the kept answer,
 * or refuses (400, 409, 422). A claimed request's answer is captured at `res.end`: a 2xx answer is kept (sealed) before
 * it goes out, so a retry that follows it always finds it; any other answer releases the key. A closed connection
 * changes nothing: the answer the handler still makes decides.
 *
 * Routes whose answers show token data (token creates and updates) pass `present`, which leaves out of the kept answer
 * the data that has gone since (replay-tokens.ts): a token deleted since, or a cvc past its retention.
 *
 * Routes that only read (detokenize, the searches) pass `keptAs` 'digest': their answer is kept as a digest, and a
 * retry runs again (with the caller's rights and the tokens as they are then, audited as any read); it is marked
 * replayed when its answer is the first one, byte for byte.
 *
 * `sameRequest` picks what of the body makes the request the same one: all of it, except for the cursor-paged search,
 * whose pages are one read (`withoutCursor`).
 */
export function idempotent(
  requests: IdempotentRequests,
  parse: RequestHandler,
  logger: Logger,
  keptAs: KeptAs = 'answer',
  present?: ReplayPresenter,
  sameRequest: (body: unknown) => unknown = (body) => body,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const svc = req.headers['svc-idempotency-key'];
    const bt = req.headers['bt-idempotency-key'];
    if ((svc === undefined && bt === undefined) || !WRITE_METHODS.has(req.method)) {
      parse(req, res, next);
      return;
    }
    const header = svc !== undefined ? 'SVC-IDEMPOTENCY-KEY' : 'BT-IDEMPOTENCY-KEY';
    const raw = svc ?? bt;
    let key: string;
    try {
      key = IdempotentRequests.validateKey(header, typeof raw === 'string' ? raw : '');
    } catch (error) {
      next(error);
      return;
    }
    parse(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      let body: string;
      try {
        // The body is checked as the route's schema would check it before anything recurses over it: JSON nested a
        // few thousand levels deep overflowed the stack in JSON.stringify here, in body-parser's callback, where
        // nothing catches an exception, and took the process down.
        requireSafeValue(req.body);
        body = req.body === undefined ? '' : JSON.stringify(sameRequest(req.body));
      } catch (error) {
        next(error);
        return;
      }
      requests
        .begin(actorOf(res), header, key, { method: req.method, path: req.originalUrl, body })
        .then((outcome) => {
          if (outcome.kind === 'replay') {
            return (present ? present(res, outcome.answer.body) : Promise.resolve(outcome.answer.body)).then((body) => replay(res, outcome.answer, body));
          }
          if (outcome.kind === 'rerun') {
            const { status, digest } = outcome;
            onAnswer(res, logger, (answered, body) => {
              if (answered === status && answerDigest(body) === digest && !res.headersSent) res.setHeader('SVC-IDEMPOTENT-REPLAYED', 'true');
              return Promise.resolve();
            });
          } else {
            const { claim } = outcome;
            res.locals[KEEP_WITH_WRITE] = ((status, body) =>
              requests.seal(claim, body === NO_CONTENT ? { status, headers: [], body: Buffer.alloc(0) } : { status, headers: [['content-type', JSON_CONTENT_TYPE]], body: Buffer.from(JSON.stringify(body)) }, keptAs)) satisfies KeepJson;
            // After an answer kept with its write, `complete` finds the claim done and changes nothing.
            onAnswer(res, logger, (answered, body) =>
              answered >= 200 && answered < 300
                ? requests.complete(claim, { status: answered, headers: keptHeaders(res), body }, keptAs).then(() => undefined)
                : requests.release(claim),
            );
          }
          next();
        })
        .catch(next);
    });
  };
}

/**
 * The body of `POST /v2/tokens/search` without its cursor (`start`): the Basis Theory SDK's pager sends every page of
 * a search with the idempotency key of its first, so the pages of one search are one request under one key (each
 * runs, as any read with a key does), while another query or size under the key is still 422.
 */
export function withoutCursor(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Object.prototype.hasOwnProperty.call(body, 'start')) return body;
  const { start: _, ...rest } = body as Record<string, unknown>;
  return rest;
}

/** Seals a JSON answer (status and body as `sendJson` sends them), or an empty one, for the claim this request holds. */
type KeepJson = (status: number, body: unknown) => Promise<KeptAnswer>;

/** The body of an answer with none (`res.status(status).end()`): no bytes, no Content-Type. */
const NO_CONTENT: unique symbol = Symbol('no content');

const KEEP_WITH_WRITE = 'svcKeepWithWrite';

/**
 * For a route whose write can keep its own answer (the creates and updates: `KeepAnswer`): when the request holds an
 * idempotency key's claim, a function sealing the answer `present` makes of the use case's result, as the route will
 * send it with `sendJson(res, status, …)`; otherwise undefined. Kept in the write's transaction, the answer survives a
 * crash right after the commit, and the retry replays it instead of writing again (docs/idempotency.md).
 */
export function keepWithWrite<T>(res: Response, status: number, present: (answer: T) => unknown): KeepAnswer<T> | undefined {
  const keep = res.locals[KEEP_WITH_WRITE] as KeepJson | undefined;
  return keep && ((answer: T) => keep(status, present(answer)));
}

/** {@link keepWithWrite} for a route that answers `status` with no body: `res.status(status).end()`. */
export function keepEmptyWithWrite(res: Response, status: number): KeepAnswer<void> | undefined {
  return keepWithWrite<void>(res, status, () => NO_CONTENT);
}

function replay(res: Response, answer: IdempotentAnswer, body: Buffer): void {
  res.statusCode = answer.status;
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.setHeader('SVC-IDEMPOTENT-REPLAYED', 'true');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

type End = (chunk?: unknown, encoding?: unknown, callback?: unknown) => Response;
type Write = (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;

const toBuffer = (chunk: unknown, encoding: unknown): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);

/**
 * Collects the answer's bytes; at `end`, hands them to `settle` (which keeps a 2xx answer or releases the key, or marks
 * a rerun's answer replayed) and lets the answer go out once it has settled.
 */
function onAnswer(res: Response, logger: Logger, settle: (status: number, body: Buffer) => Promise<void>): void {
  const chunks: Buffer[] = [];
  let settled = false;
  const write = res.write.bind(res) as Write;
  const end = res.end.bind(res) as End;
  (res as unknown as { write: Write }).write = (chunk, encoding, callback) => {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    return write(chunk, encoding, callback);
  };
  (res as unknown as { end: End }).end = (chunk, encoding, callback) => {
    if (settled) return end(chunk, encoding, callback);
    settled = true;
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    const status = res.statusCode;
    settle(status, Buffer.concat(chunks))
      .catch((error: unknown) => logger.error('idempotency key not settled', { error: (error as Error)?.name, status }))
      .finally(() => end(chunk, encoding, callback));
    return res;
  };
  // A client that hangs up does not stop the request: the handler still runs to its answer (the token is created),
  // which `end` above keeps or releases as for any other. Releasing the key on 'close' let the client's retry, the
  // very case keys are for, run the request a second time.
}

function keptHeaders(res: Response): Array<[string, string]> {
  const kept: Array<[string, string]> = [];
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) kept.push([name, String(value)]);
  }
  return kept;
}
