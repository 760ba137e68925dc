import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { hasKeyLike } from '../logger';

const TRACE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Echoes the caller's correlation id (SVC-TRACE-ID, or BT-TRACE-ID) in SVC-TRACE-ID, or creates one, on every
 * response, and marks every response as not cacheable and not to be sniffed: token data must never sit in a shared
 * cache.
 */
export function edgeHeaders(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('svc-trace-id') ?? req.get('bt-trace-id');
  // A trace id is kept in audit events and logs: one that looks like a key (a key pasted in the wrong header) is
  // replaced, never stored.
  const id = incoming && TRACE_ID.test(incoming) && !hasKeyLike(incoming) ? incoming : randomUUID();
  res.locals.traceId = id;
  // Answered in SVC-TRACE-ID only, whichever header it came in: response headers are SVC-* (beyond.md, conventions).
  res.setHeader('SVC-TRACE-ID', id);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}
