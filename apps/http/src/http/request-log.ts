import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';

/**
 * One log line per request: method, route pattern (never the raw URL: ids and query values may be derived from
 * token data), status, duration and correlation id. Bodies and headers are never logged.
 */
export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : '(unmatched)';
      logger.info('request', {
        method: req.method,
        route,
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        trace_id: String(res.locals.traceId),
      });
    });
    next();
  };
}
