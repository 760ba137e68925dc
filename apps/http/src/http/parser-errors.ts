import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { HTTP_PROBLEMS, type Problem } from './problem';

/** What each parse error of Node's HTTP server (llhttp) means, in words a client can act on. */
const MALFORMED: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: 'The request line is malformed or names a method this server does not know.',
  HPE_INVALID_CONSTANT: 'The request line must be a method, a space, the request target, a space and HTTP/1.1.',
  HPE_INVALID_URL: 'The request target is not valid.',
  HPE_INVALID_VERSION: 'The request line must end with the HTTP version (HTTP/1.1) and CRLF.',
  HPE_CR_EXPECTED: 'Every line of the request head must end with CRLF.',
  HPE_LF_EXPECTED: 'Every line of the request head must end with CRLF.',
  HPE_INVALID_HEADER_TOKEN:
    'A header field is malformed: a character HTTP does not allow, a space before the colon, or an obsolete folded line.',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length must be one decimal number and cannot come with Transfer-Encoding.',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length must be one decimal number and cannot come with Transfer-Encoding.',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding must end with chunked.',
  HPE_INVALID_CHUNK_SIZE: 'A chunk size of the request body is not valid.',
};

/** The problem for an error code of Node's HTTP server; undefined for a broken connection (nothing to answer). */
export function parserProblem(code: string): Problem | undefined {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { ...HTTP_PROBLEMS.headersTooLarge, detail: `The request line and header fields exceed ${maxHeaderSize} bytes.` };
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    return { ...HTTP_PROBLEMS.payloadTooLarge, detail: 'The chunk extensions of the request body are too large.' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { ...HTTP_PROBLEMS.requestTimeout, detail: 'The request did not arrive in time.' };
  if (!code.startsWith('HPE_')) return undefined;
  return { ...HTTP_PROBLEMS.malformedRequest, detail: MALFORMED[code] ?? 'The request is not well-formed HTTP/1.1.' };
}

/**
 * Writes one complete response on a socket no response was written to, then closes it. The socket stays open
 * for reading a moment (at most a second) so that bytes the client is still sending do not turn the close into a
 * reset that would discard the answer before the client reads it.
 */
export function answerAndClose(socket: Duplex, problem: Problem): void {
  const body = JSON.stringify(problem);
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  const linger = setTimeout(() => socket.destroy(), 1_000);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
