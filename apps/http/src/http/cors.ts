import type { NextFunction, Request, Response } from 'express';

const ALLOWED_HEADERS = 'SVC-API-KEY, BT-API-KEY, Content-Type, SVC-TRACE-ID, BT-TRACE-ID, SVC-IDEMPOTENCY-KEY, BT-IDEMPOTENCY-KEY';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';

/**
 * CORS for browser clients (public keys and sessions are made for them). Keys travel in a header, never in cookies,
 * so no credentials are allowed and `*` exposes nothing a script could not already send. `SVC_CORS_ORIGINS` narrows
 * it to a list of origins; preflight requests are answered here, before authentication.
 */
export function cors(origins: readonly string[] | '*') {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.get('origin');
    // Only browsers send Origin; other clients get no CORS headers at all.
    if (origin === undefined) {
      next();
      return;
    }
    if (origins === '*') res.setHeader('Access-Control-Allow-Origin', '*');
    else if (origin && origins.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
    }
    res.setHeader('Access-Control-Expose-Headers', 'SVC-TRACE-ID, SVC-IDEMPOTENT-REPLAYED, Retry-After');
    if (req.method === 'OPTIONS' && req.get('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
