import {
  BadGatewayError,
  ConflictError,
  DomainError,
  ForbiddenError,
  GatewayTimeoutError,
  GoneError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
  UnprocessableError,
  ValidationError,
  type FieldErrors,
} from '@svc/core';

/** An RFC 9457 problem document, as every error response carries it. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly errors?: FieldErrors;
  readonly trace_id?: string;
}

const BASE = 'https://svc.dev/errors/';

interface ProblemKind {
  readonly status: number;
  readonly type: string;
  readonly title: string;
}

/** The one table from domain errors to HTTP: status, problem type and title. */
const KINDS: ReadonlyArray<readonly [abstract new (...args: never[]) => DomainError, ProblemKind]> = [
  [ValidationError, { status: 400, type: `${BASE}validation`, title: 'One or more validation errors occurred.' }],
  [UnauthenticatedError, { status: 401, type: `${BASE}unauthenticated`, title: 'Unauthenticated' }],
  [ForbiddenError, { status: 403, type: `${BASE}forbidden`, title: 'Forbidden' }],
  [NotFoundError, { status: 404, type: `${BASE}not-found`, title: 'Not Found' }],
  [ConflictError, { status: 409, type: `${BASE}conflict`, title: 'Conflict' }],
  [GoneError, { status: 410, type: `${BASE}gone`, title: 'Gone' }],
  [UnprocessableError, { status: 422, type: `${BASE}unprocessable`, title: 'Unprocessable Entity' }],
  [UnavailableError, { status: 503, type: `${BASE}unavailable`, title: 'Service Unavailable' }],
  [BadGatewayError, { status: 502, type: `${BASE}bad-gateway`, title: 'Bad Gateway' }],
  [GatewayTimeoutError, { status: 504, type: `${BASE}gateway-timeout`, title: 'Gateway Timeout' }],
];

export const HTTP_PROBLEMS = {
  notFound: { status: 404, type: `${BASE}not-found`, title: 'Not Found' },
  methodNotAllowed: { status: 405, type: `${BASE}method-not-allowed`, title: 'Method Not Allowed' },
  payloadTooLarge: { status: 413, type: `${BASE}payload-too-large`, title: 'Payload Too Large' },
  unsupportedMediaType: { status: 415, type: `${BASE}unsupported-media-type`, title: 'Unsupported Media Type' },
  validation: { status: 400, type: `${BASE}validation`, title: 'One or more validation errors occurred.' },
  internal: { status: 500, type: `${BASE}internal`, title: 'Internal Server Error' },
  // Answered by the server itself, outside Express: requests Node's HTTP parser refuses, and requests during shutdown.
  malformedRequest: { status: 400, type: `${BASE}malformed-request`, title: 'Bad Request' },
  requestTimeout: { status: 408, type: `${BASE}request-timeout`, title: 'Request Timeout' },
  expectationFailed: { status: 417, type: `${BASE}expectation-failed`, title: 'Expectation Failed' },
  headersTooLarge: { status: 431, type: `${BASE}headers-too-large`, title: 'Request Header Fields Too Large' },
  notImplemented: { status: 501, type: `${BASE}not-implemented`, title: 'Not Implemented' },
  unavailable: { status: 503, type: `${BASE}unavailable`, title: 'Service Unavailable' },
  unauthenticated: { status: 401, type: `${BASE}unauthenticated`, title: 'Unauthenticated' },
  tooManyRequests: { status: 429, type: `${BASE}too-many-requests`, title: 'Too Many Requests' },
} as const satisfies Record<string, ProblemKind>;

/** An error raised by the HTTP edge itself (body too large, wrong content type, malformed JSON). */
export class HttpProblemError extends Error {
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly errors?: FieldErrors,
  ) {
    super(detail);
  }
}

/** The field errors a domain error carries: always for a validation error, sometimes for a refusal or a conflict. */
function fieldErrorsOf(error: DomainError): FieldErrors | undefined {
  if (error instanceof ValidationError || error instanceof ForbiddenError || error instanceof ConflictError || error instanceof UnprocessableError) return error.errors;
  return undefined;
}

export function problemFor(error: unknown, instance: string): Problem | undefined {
  if (error instanceof HttpProblemError) {
    return { ...error.kind, detail: error.detail, instance, ...(error.errors ? { errors: error.errors } : {}) };
  }
  if (!(error instanceof DomainError)) return undefined;
  const kind = KINDS.find(([type]) => error instanceof type)?.[1];
  if (!kind) return undefined;
  return {
    ...kind,
    detail: error.message,
    instance,
    ...(fieldErrorsOf(error) ? { errors: fieldErrorsOf(error) } : {}),
  };
}
