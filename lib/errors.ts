/**
 * The one error hierarchy of the service. Services throw these; the error middleware turns them
 * into RFC 9457 problem+json bodies `{ type, title, status, detail, code, errors }` (DESIGN ruling 2).
 * Anything that is not an AppError becomes a 500 without internals.
 */

export interface FieldError {
  /** Where the problem is: `query.limit`, `body.items[0].quantity`, `params.id`. */
  path: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  requestId?: string;
  errors: FieldError[];
}

/** Problem type URIs are stable URNs; GET /docs lists every code. */
export const problemType = (code: string): string => `urn:problem-type:${code}`;

export class AppError extends Error {
  readonly headers: Record<string, string> = {};

  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly errors: FieldError[] = [],
  ) {
    super(detail);
    this.name = new.target.name;
  }

  toProblem(): ProblemBody {
    return { type: problemType(this.code), title: this.title, status: this.status, detail: this.message, code: this.code, errors: this.errors };
  }
}

export class ValidationError extends AppError {
  constructor(detail: string, errors: FieldError[] = []) {
    super(400, 'validation_failed', 'Bad Request', detail, errors);
  }
}

export class BadRequestError extends AppError {
  constructor(detail: string, code = 'bad_request', errors: FieldError[] = []) {
    super(400, code, 'Bad Request', detail, errors);
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail = 'A valid access token is required.', code = 'unauthorized') {
    super(401, code, 'Unauthorized', detail);
    this.headers['WWW-Authenticate'] = 'Bearer';
  }
}

export class ForbiddenError extends AppError {
  constructor(detail = 'You are not allowed to perform this operation.', code = 'forbidden') {
    super(403, code, 'Forbidden', detail);
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'The resource does not exist.', code = 'not_found') {
    super(404, code, 'Not Found', detail);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allowed: string[]) {
    super(405, 'method_not_allowed', 'Method Not Allowed', `${method} is not allowed here; allowed: ${allowed.join(', ')}.`);
    this.headers.Allow = allowed.join(', ');
  }
}

export class ConflictError extends AppError {
  constructor(detail: string, code = 'conflict', errors: FieldError[] = []) {
    super(409, code, 'Conflict', detail, errors);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: number, detail = `The request body exceeds the limit of ${limit} bytes.`) {
    super(413, 'payload_too_large', 'Content Too Large', detail);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(received: string | undefined, expected: string[]) {
    super(415, 'unsupported_media_type', 'Unsupported Media Type', `Content-Type ${received ? `"${received}"` : '(none)'} is not accepted here; send ${expected.join(' or ')}.`);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, detail = 'Too many requests.') {
    super(429, 'rate_limited', 'Too Many Requests', detail);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class NotImplementedError extends AppError {
  constructor(operation: string) {
    super(501, 'not_implemented', 'Not Implemented', `${operation} is part of the specification but is not built yet.`);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail = 'A backing service is unavailable; try again shortly.', retryAfterSeconds = 1) {
    super(503, 'service_unavailable', 'Service Unavailable', detail);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export class NotReadyError extends AppError {
  constructor(detail: string) {
    super(503, 'not_ready', 'Service Unavailable', detail);
    this.headers['Retry-After'] = '1';
  }
}

export class InternalError extends AppError {
  constructor() {
    super(500, 'internal_error', 'Internal Server Error', 'An unexpected error occurred; it has been logged with the request id.');
  }
}
