import type { StoreFault } from '@svc/core';
import type { EdgeAudit } from './audit-edge';
import { FULL_DISK_HOLD_MS, type Readiness, type RefusalLimit } from './operations';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';
import { bodyParserProblem } from './json-body';
import { HTTP_PROBLEMS, HttpProblemError, type Problem, problemFor } from './problem';

export function sendProblem(res: Response, problem: Problem): void {
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

/** What the store can say about its own failures, and where a fault is reported (GET /readyz). */
export interface StoreFaults {
  readonly faultOf: (error: unknown) => StoreFault | undefined;
  readonly readiness: Readiness;
}

/**
 * The single error middleware: domain and edge errors become problem+json; anything else is a 500 that carries
 * only the correlation id, and is logged by class and stack (never with request data).
 */
export function errorHandler(logger: Logger, audit?: EdgeAudit, faults?: StoreFaults, refusals?: RefusalLimit) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const instance = req.path;
    const problem = problemFor(error, instance) ?? problemFor(malformedPath(error, req) ?? bodyParserProblem(error), instance);
    const wait = problem?.status === 401 ? refusals?.refused(req.socket.remoteAddress ?? '', req.path) : undefined;
    if (wait !== undefined) {
      res.setHeader('Retry-After', String(wait));
      sendProblem(res, {
        ...HTTP_PROBLEMS.tooManyRequests,
        detail: `Too many requests from this address were refused for want of a valid API key (${refusals!.describe()}, SVC_RATE_LIMIT); wait before trying again.`,
        instance,
      });
      return;
    }
    if (problem) {
      audit?.failed(req, res, problem.status);
      sendProblem(res, problem);
      return;
    }
    const traceId = String(res.locals.traceId ?? '');
    const fault = faults?.faultOf(error);
    if (fault) {
      faults!.readiness.fault(fault);
      const full = fault === 'full';
      // The operator's to act on, said plainly in the log; the caller is told what it may do.
      logger.error(full ? "store disk full: the write was refused, nothing was changed" : 'store damaged: restore it from a backup (docs/operations.md)', {
        trace_id: traceId,
        error: error instanceof Error ? error.message : 'unknown',
      });
      audit?.failed(req, res, full ? 503 : 500);
      if (full) res.setHeader('Retry-After', String(FULL_DISK_HOLD_MS / 1000));
      sendProblem(res, {
        ...(full ? HTTP_PROBLEMS.unavailable : HTTP_PROBLEMS.internal),
        detail: full
          ? "The vault's disk is full: nothing was changed. Try again once its operator has freed space."
          : `The vault's store is damaged; its operator must restore it. Trace id: ${traceId}.`,
        trace_id: traceId,
      });
      return;
    }
    audit?.failed(req, res, 500);
    const failure = error instanceof Error ? error : new Error('non-error thrown');
    logger.error('unhandled error', { trace_id: traceId, error: failure.name, stack: failure.stack });
    sendProblem(res, { ...HTTP_PROBLEMS.internal, detail: `An unexpected error occurred. Trace id: ${traceId}.`, trace_id: traceId });
  };
}

/**
 * A path with broken percent-encoding (`/tokens/%zz`) names nothing: the router's URIError becomes a 400 naming the
 * path parameter it could not decode.
 */
function malformedPath(error: unknown, req: Request): HttpProblemError | undefined {
  if (!(error instanceof URIError)) return undefined;
  const name = undecodableParameter(req) ?? 'path';
  return new HttpProblemError(HTTP_PROBLEMS.validation, `The path parameter '${name}' is not validly percent-encoded.`, {
    [name]: ['Malformed percent-encoding.'],
  });
}

/** A route of the app's router, as much of it as these answers read. `match` throws a URIError on a bad parameter. */
interface RouteLayer {
  readonly route?: { readonly path?: unknown; readonly methods?: Readonly<Record<string, boolean>> };
  match(path: string): object | false;
}

/** The routes of the app, each matched by the router's own matcher (its case and trailing-slash rules). */
function routes(req: Request): readonly RouteLayer[] {
  return (req.app.router as unknown as { readonly stack: readonly RouteLayer[] }).stack.filter((layer) => layer.route);
}

/** The parameter of the route whose match failed to decode it, by its place in the route's pattern. */
function undecodableParameter(req: Request): string | undefined {
  const segments = req.path.split('/');
  for (const layer of routes(req)) {
    const pattern = layer.route?.path;
    if (typeof pattern !== 'string' || matchOf(layer, req.path) !== 'undecodable') continue;
    const parts = pattern.split('/');
    const broken = parts.findIndex((part, i) => part.startsWith(':') && !decodes(segments[i] ?? ''));
    if (broken !== -1) return parts[broken]!.slice(1);
  }
  return undefined;
}

/** How the router's own matcher sees `path` for this route: matched, not, or with a parameter that does not decode. */
function matchOf(layer: RouteLayer, path: string): 'match' | 'none' | 'undecodable' {
  try {
    return layer.match(path) ? 'match' : 'none';
  } catch {
    return 'undecodable';
  }
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** A path no route serves is a 404; a path a route serves with other methods is a 405 naming them in `Allow`. */
export function notFoundHandler(req: Request, res: Response): void {
  const allowed = allowedMethods(req);
  if (allowed.length === 0) {
    sendProblem(res, { ...HTTP_PROBLEMS.notFound, detail: 'No such resource.', instance: req.path });
    return;
  }
  res.setHeader('Allow', allowed.join(', '));
  sendProblem(res, { ...HTTP_PROBLEMS.methodNotAllowed, detail: `This resource answers ${allowed.join(', ')}.`, instance: req.path });
}

function allowedMethods(req: Request): string[] {
  const methods = new Set<string>();
  for (const layer of routes(req)) {
    if (matchOf(layer, req.path) !== 'match') continue;
    for (const [method, on] of Object.entries(layer.route?.methods ?? {})) if (on && method !== '_all') methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
