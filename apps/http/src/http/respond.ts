import type { Response } from 'express';

/** The Content-Type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Writes a JSON body directly: the same bytes `res.json` would send, without the content negotiation and header
 * bookkeeping of `res.send`, which showed up in profiles of the token hot paths.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
