/** The error codes of the management API. */
export const ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'not_found',
  'invalid_request',
  'rate_limited',
  'conflict',
  'precondition_failed',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Where each domain code maps in HTTP: the only place that knows. */
export const codeToStatus: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  precondition_failed: 412,
  rate_limited: 429,
  internal: 500,
};

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** A domain error. Services throw these; one middleware turns them into the envelope. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Overrides the status of `code` (503 for an unavailable dependency, 413 for a huge body). */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get httpStatus(): number {
    return this.status ?? codeToStatus[this.code];
  }

  toEnvelope(): ErrorEnvelope {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }
}

/** What an id may look like to be echoed in a message: a uuid or a short plain token (never a path, NUL or 5 KB). */
const ECHOABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * "monitor <id> was not found". The id is echoed only when it is short and plain (ECHOABLE_ID): a 5,000-character
 * id, `../../healthz` or control characters come from the client and are not repeated back (the message then names
 * the resource alone).
 */
export class NotFoundError extends AppError {
  constructor(resource: string, id?: string) {
    super(
      'not_found',
      id !== undefined && ECHOABLE_ID.test(id) ? `${resource} ${id} was not found` : `${resource} was not found`,
    );
  }
}

export interface Issue {
  path: string;
  message: string;
}

export class ValidationError extends AppError {
  constructor(message: string, issues: Issue[]) {
    super('invalid_request', message, { issues });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid bearer token is required') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Your role does not allow this operation') {
    super('forbidden', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('conflict', message, details);
  }
}

/** `If-Match` named a version the record no longer has (412): nothing was written. */
export class PreconditionFailedError extends AppError {
  constructor(resource: string, version: number) {
    super(
      'precondition_failed',
      `The ${resource} has changed: it is at version ${version}, not the one If-Match names; read it again and retry`,
      { version },
    );
  }
}

/** A dependency (PostgreSQL, Redis) is unreachable: `internal` with status 503, safe to retry. */
export class UnavailableError extends AppError {
  constructor(dependency: string) {
    super('internal', `The service is temporarily unavailable (${dependency}); retry shortly`, undefined, 503);
  }
}
