/**
 * Domain errors: expected failures, each with a stable `code`. The HTTP edge maps codes to statuses in one table;
 * core never speaks HTTP. Messages and field errors must never carry token data, keys, nonces or secrets.
 */

/** Field path (snake_case, e.g. `data.number`, `rules[0].transform`) to messages. */
export type FieldErrors = Readonly<Record<string, readonly string[]>>;

export abstract class DomainError extends Error {
  abstract readonly code: string;

  protected constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request is malformed or breaks a business rule; nothing was changed. */
export class ValidationError extends DomainError {
  readonly code = 'VALIDATION_FAILED';

  constructor(
    readonly errors: FieldErrors,
    message = 'One or more validation errors occurred.',
  ) {
    super(message);
  }

  static field(path: string, message: string): ValidationError {
    return new ValidationError({ [path]: [message] });
  }
}

/**
 * Runs `check`, for validations that name every broken field at once: the fields of a ValidationError it throws are
 * added to `errors` (any other error goes on). True when it threw none.
 */
export function collectFieldErrors(errors: Record<string, string[]>, check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const [key, messages] of Object.entries(error.errors)) (errors[key] ??= []).push(...messages);
    return false;
  }
}

/** No credentials, or credentials that are unknown, expired or revoked. */
export class UnauthenticatedError extends DomainError {
  readonly code = 'UNAUTHENTICATED';

  constructor(message = 'A valid API key is required.') {
    super(message);
  }
}

/** The caller is known but lacks the permission, or no access rule grants it. */
export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN';

  constructor(
    message = 'The API key does not have the permission for this operation.',
    /** Which parts of the request were refused (the paths of a bulk request's tokens), when that is known. */
    readonly errors?: FieldErrors,
  ) {
    super(message);
  }
}

/** Absent, or belonging to another tenant: the two are indistinguishable by design. */
export class NotFoundError extends DomainError {
  readonly code: string;

  constructor(resource: string, code = `${resource.toUpperCase().replace(/ /g, '_')}_NOT_FOUND`) {
    super(`The ${resource} was not found.`);
    this.code = code;
  }
}

/** The request clashes with existing state (duplicate id, nonce already used, member already exists). */
export class ConflictError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
    /** Which fields of the request clash (the path of a bulk request's token), when that is known. */
    readonly errors?: FieldErrors,
  ) {
    super(message);
  }
}

/** A valid request that the current state forbids (deleting the OWNER member). */
export class UnprocessableError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
    /** Which fields of the request it is about (the idempotency key header), when that is known. */
    readonly errors?: FieldErrors,
  ) {
    super(message);
  }
}

/** A link or one-time secret that once existed but no longer works (used, resent over or expired). */
export class GoneError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A dependency (the mail server) failed; nothing was changed and the request can be retried. */
export class UnavailableError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A destination the proxy called gave no usable answer: unreachable, TLS failed, cut off, or an answer too large. */
export class BadGatewayError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A destination the proxy called did not answer in time. */
export class GatewayTimeoutError extends DomainError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
