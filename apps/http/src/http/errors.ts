import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';
import { bodyParserProblem } from './json-body';
import { HTTP_PROBLEMS, HttpProblemError, type Problem, problemFor } from './problem';

export function sendProblem(res: Response, problem: Problem): void {
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

/**
 * The single error middleware: domain and edge errors become problem+json; anything else is a 500 that carries
 * only the correlation id, and is logged by class and stack (never with request data).
 */
export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const instance = req.path;
    const problem = problemFor(error, instance) ?? problemFor(malformedPath(error, req) ?? bodyParserProblem(error), instance);
    if (problem) {
      sendProblem(res, problem);
      return;
    }
    const traceId = String(res.locals.traceId ?? '');
    const failure = error instanceof Error ? error : new Error('non-error thrown');
    logger.error('unhandled error', { trace_id: traceId, error: failure.name, stack: failure.stack });
    sendProblem(res, { ...HTTP_PROBLEMS.internal, detail: `An unexpected error occurred. Trace id: ${traceId}.`, trace_id: traceId });
  };
}

/**
 * A path with broken percent-encoding (`/tokens/%zz`) names nothing: the router's URIError becomes a 400 naming the
 * path parameter it could not decode, found by matching the raw path against the routes' patterns.
 */
function malformedPath(error: unknown, req: Request): HttpProblemError | undefined {
  if (!(error instanceof URIError)) return undefined;
  const name = undecodableParameter(req) ?? 'path';
  return new HttpProblemError(HTTP_PROBLEMS.validation, `The path parameter '${name}' is not validly percent-encoded.`, {
    [name]: ['Malformed percent-encoding.'],
  });
}

interface RouteLayer {
  readonly route?: { readonly path?: unknown };
}

function undecodableParameter(req: Request): string | undefined {
  // The router matches case-insensitively and with or without a trailing slash; so does this.
  const segments = req.path.replace(/(.)\/$/, '$1').split('/');
  const layers = (req.app.router as unknown as { readonly stack: readonly RouteLayer[] }).stack;
  for (const layer of layers) {
    const pattern = layer.route?.path;
    if (typeof pattern !== 'string') continue;
    const parts = pattern.split('/');
    if (parts.length !== segments.length) continue;
    const literalsMatch = parts.every((part, i) => part.startsWith(':') || part.toLowerCase() === segments[i]!.toLowerCase());
    const broken = parts.findIndex((part, i) => part.startsWith(':') && !decodes(segments[i]!));
    if (literalsMatch && broken !== -1) return parts[broken]!.slice(1);
  }
  return undefined;
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

interface MethodLayer {
  readonly route?: { readonly methods?: Readonly<Record<string, boolean>> };
  match(path: string): boolean;
}

function allowedMethods(req: Request): string[] {
  const methods = new Set<string>();
  for (const layer of (req.app.router as unknown as { readonly stack: readonly MethodLayer[] }).stack) {
    if (!layer.route?.methods) continue;
    let matches = false;
    try {
      matches = layer.match(req.path);
    } catch {
      // A parameter that does not decode: that path is answered elsewhere.
    }
    if (matches) for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
