import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { HTTP_PROBLEMS, HttpProblemError } from './problem';

/** The request's media type without parameters, lower-cased: `application/json; charset=utf-8` → `application/json`. */
function mediaType(req: Request): string | undefined {
  return req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
}

/** The charset parameter of the Content-Type, lower-cased, when there is one. */
function charsetOf(req: Request): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '');
  return match?.[1]?.toLowerCase();
}

/**
 * Refuses a body that is not valid UTF-8. The decoder would otherwise replace each bad byte by U+FFFD and the vault
 * would keep, hash and return something the client never sent.
 */
export function requireUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) {
    throw new HttpProblemError(HTTP_PROBLEMS.validation, 'The request body is not valid UTF-8.', { body: ['Invalid UTF-8.'] });
  }
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A 415 for a body sent with a transfer coding other than `chunked` (`Transfer-Encoding: gzip, chunked`): Node takes
 * the chunks apart but leaves the coding under them, so the bytes read would not be the body the client meant.
 * Compressed bodies are refused as a Content-Encoding is (no decompression here). Undefined otherwise.
 */
export function unsupportedTransferCoding(req: Request): HttpProblemError | undefined {
  const header = req.headers['transfer-encoding'];
  if (header === undefined) return undefined;
  const codings = header.split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '');
  if (codings.every((coding) => coding === 'chunked')) return undefined;
  return new HttpProblemError(HTTP_PROBLEMS.unsupportedMediaType, 'The request body may be sent chunked, but not with another transfer coding (such as gzip).');
}

/**
 * A 413 for a body whose declared length (Content-Length) is over the limit, with the connection to be closed after
 * the answer; undefined otherwise. The body parsers would first read the whole declared body (to keep the connection
 * usable), which a client could make gigabytes long or never send, holding the connection until the request timeout.
 */
export function declaredOverLimit(req: Request, res: Response, limitBytes: number): HttpProblemError | undefined {
  const header = req.headers['content-length'];
  const declared = Number(header);
  if (header === undefined || !Number.isFinite(declared) || declared <= limitBytes) return undefined;
  res.setHeader('Connection', 'close');
  return new HttpProblemError(HTTP_PROBLEMS.payloadTooLarge, 'The request body is too large.');
}

/**
 * Parses a JSON body of one of `types`. A request without a body passes with `req.body` undefined (the schema
 * then says what is missing); a body of any other media type is a 415; a body over the limit is a 413. With
 * `typeRequired` the media type is checked even without a body (PATCH /tokens/{id} always needs merge-patch).
 */
export function jsonBody(limitBytes: number, types: readonly string[] = ['application/json'], typeRequired = false): RequestHandler {
  // inflate: false: compressed bodies are refused (415) rather than expanded (no decompression bombs, no zlib errors).
  const parse = express.json({ limit: limitBytes, type: () => true, strict: false, inflate: false, verify: requireUtf8 });
  return (req: Request, res: Response, next: NextFunction) => {
    const type = mediaType(req);
    if ((typeRequired || hasBody(req)) && (type === undefined || !types.includes(type))) {
      next(new HttpProblemError(HTTP_PROBLEMS.unsupportedMediaType, `The Content-Type must be ${types.join(' or ')}.`));
      return;
    }
    if (!hasBody(req)) {
      req.body = undefined;
      next();
      return;
    }
    const refused = unsupportedTransferCoding(req) ?? declaredOverLimit(req, res, limitBytes);
    if (refused) {
      next(refused);
      return;
    }
    const charset = charsetOf(req);
    // JSON exchanged between systems is UTF-8 (RFC 8259 §8.1); other charsets (UTF-16, UTF-7…) are refused.
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      next(new HttpProblemError(HTTP_PROBLEMS.unsupportedMediaType, 'The request body must be encoded in UTF-8.'));
      return;
    }
    parse(req, res, next);
  };
}

interface BodyParserError {
  readonly type?: string;
  readonly status?: number;
}

/** Turns body-parser failures into problems: 413 too large, 400 malformed JSON, 415 unsupported charset. */
export function bodyParserProblem(error: unknown): HttpProblemError | undefined {
  const { type } = (error ?? {}) as BodyParserError;
  switch (type) {
    case 'entity.too.large':
      return new HttpProblemError(HTTP_PROBLEMS.payloadTooLarge, 'The request body is too large.');
    case 'entity.parse.failed':
      return new HttpProblemError(HTTP_PROBLEMS.validation, 'The request body is not valid JSON.', { body: ['Malformed JSON.'] });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpProblemError(HTTP_PROBLEMS.unsupportedMediaType, 'The request body encoding is not supported.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new HttpProblemError(HTTP_PROBLEMS.validation, 'The request body could not be read.', { body: ['Unreadable body.'] });
    default:
      // Any other client-side failure of the body parser (a 4xx it raised itself) is the client's, never a 500.
      return typeof (error as BodyParserError | undefined)?.status === 'number' && (error as BodyParserError).status! < 500
        ? new HttpProblemError(HTTP_PROBLEMS.validation, 'The request body could not be read.', { body: ['Unreadable body.'] })
        : undefined;
  }
}
