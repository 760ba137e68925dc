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
    const problem = problemFor(error, instance) ?? problemFor(bodyParserProblem(error) ?? malformedPath(error), instance);
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

/** A path with broken percent-encoding (`/tokens/%`) names nothing: the router's URIError becomes a 400. */
function malformedPath(error: unknown): HttpProblemError | undefined {
  return error instanceof URIError ? new HttpProblemError(HTTP_PROBLEMS.validation, 'The path is not validly percent-encoded.', { path: ['Malformed percent-encoding.'] }) : undefined;
}

export function notFoundHandler(req: Request, res: Response): void {
  sendProblem(res, { ...HTTP_PROBLEMS.notFound, detail: 'No such resource.', instance: req.path });
}
