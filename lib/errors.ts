/**
 * The one error hierarchy of the service. Services throw these; the error middleware turns them
 * into RFC 9457 problem+json bodies `{ type, title, status, detail, code, errors }`
 * (docs/decisions.md, Problem format).
 * Anything that is not an AppError becomes a 500 without internals.
 *
 * Every `code` is defined once, in the error-code registry of the area that answers it
 * (defineErrorCodes: `api/<area>/<area>.errors.ts`, domain/domain.errors.ts, …, and COMMON_ERRORS
 * below for the codes of these classes), with its status and what it means. The error classes take
 * only registered codes (ErrorCode), and the reference lists every code from the registries
 * (api/error-codes.ts: GET /docs, the OpenAPI document, docs/error-codes.md).
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

// ------------------------------------------------------------------------------ error-code registries

declare const errorCodeBrand: unique symbol;
/** A problem `code` defined by a registry (defineErrorCodes): the only kind of code the error classes take. */
export type ErrorCode = string & { readonly [errorCodeBrand]: true };

/** What a code means when answered with one HTTP status. */
export interface ErrorCodeMeaning {
  status: number;
  description: string;
}

/** A registry entry: the code's meaning, or one meaning per status for a code answered with several. */
export type ErrorCodeEntry = ErrorCodeMeaning | readonly ErrorCodeMeaning[];

/** One row of the generated list of codes (api/error-codes.ts). */
export interface ErrorCodeRow {
  code: string;
  status: number;
  title: string;
  area: string;
  description: string;
}

/** The title of a problem by its status (the `title` member of the body). */
export const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

type StatusOf<E> = E extends readonly ErrorCodeMeaning[] ? E[number]['status'] : E extends ErrorCodeMeaning ? E['status'] : never;
/** A code answered with several statuses names the one it throws; the others take only `errors`. */
type ErrorArgs<E> = E extends readonly ErrorCodeMeaning[]
  ? [errors: FieldError[] | undefined, status: StatusOf<E>]
  : [errors?: FieldError[]];

export interface ErrorRegistry<R extends Record<string, ErrorCodeEntry> = Record<string, ErrorCodeEntry>> {
  /** Where the codes are answered: an API area (`brands`), or a shared layer (`http`, `domain`, `common`). */
  readonly area: string;
  readonly entries: R;
  /** The code as the error classes take it, for a class that fixes its own code. */
  code(code: keyof R & string): ErrorCode;
  /**
   * The error answering `code`: the registry's status, its standard title, and the class of that
   * status (BadRequestError for 400, UnauthorizedError for 401, ForbiddenError, NotFoundError,
   * ConflictError; AppError for the others). `detail` says what happened this time.
   */
  error<C extends keyof R & string>(code: C, detail: string, ...args: ErrorArgs<R[C]>): AppError;
  /** The registry as rows of the generated list, in the order the entries are written. */
  rows(): ErrorCodeRow[];
}

function meaningsOf(entry: ErrorCodeEntry): readonly ErrorCodeMeaning[] {
  return Array.isArray(entry) ? (entry as readonly ErrorCodeMeaning[]) : [entry as ErrorCodeMeaning];
}

function errorOfStatus(status: number, code: ErrorCode, detail: string, errors: FieldError[]): AppError {
  switch (status) {
    case 400:
      return new BadRequestError(detail, code, errors);
    case 401:
      return new UnauthorizedError(detail, code, errors);
    case 403:
      return new ForbiddenError(detail, code, errors);
    case 404:
      return new NotFoundError(detail, code, errors);
    case 409:
      return new ConflictError(detail, code, errors);
    default:
      return new AppError(status, code, STATUS_TITLES[status] ?? 'Error', detail, errors);
  }
}

/**
 * Defines the error codes of an area, each with its status and meaning: the one place a code is
 * written. Throw sites use the registry's `error` (exported by the area as `<area>Error`).
 */
export function defineErrorCodes<const R extends Record<string, ErrorCodeEntry>>(area: string, entries: R): ErrorRegistry<R> {
  for (const [code, entry] of Object.entries(entries)) {
    const meanings = meaningsOf(entry);
    if (!/^[a-z][a-z0-9_]*$/.test(code)) throw new Error(`error code ${code} (${area}) is not snake_case`);
    if (meanings.length === 0 || new Set(meanings.map((m) => m.status)).size !== meanings.length)
      throw new Error(`error code ${code} (${area}) needs one meaning per status`);
    for (const m of meanings)
      if (!STATUS_TITLES[m.status] || m.status < 400)
        throw new Error(`error code ${code} (${area}) has a status without a title: ${m.status}`);
  }
  const known = (code: string): readonly ErrorCodeMeaning[] => {
    const entry = (entries as Record<string, ErrorCodeEntry>)[code];
    if (!entry) throw new Error(`error code ${code} is not defined by the ${area} registry`);
    return meaningsOf(entry);
  };
  return {
    area,
    entries,
    code: (code) => {
      known(code);
      return code as string as ErrorCode;
    },
    error: (code, detail, ...args) => {
      const meanings = known(code);
      const [errors, status] = args as [FieldError[] | undefined, number | undefined];
      const meaning = status === undefined ? (meanings.length === 1 ? meanings[0] : undefined) : meanings.find((m) => m.status === status);
      if (!meaning) throw new Error(`error code ${code} (${area}) is not defined with status ${status ?? '(none given)'}`);
      return errorOfStatus(meaning.status, code as string as ErrorCode, detail, errors ?? []);
    },
    rows: () =>
      Object.entries(entries).flatMap(([code, entry]) =>
        meaningsOf(entry).map((m) => ({ code, status: m.status, title: STATUS_TITLES[m.status]!, area, description: m.description })),
      ),
  };
}

/** The codes of the classes below, answered by every area (the middleware, validation, rate limits, …). */
export const COMMON_ERRORS = defineErrorCodes('common', {
  validation_failed: {
    status: 400,
    description:
      'The input does not match the operation: malformed values, unknown fields or query parameters, values out of bounds, or a rule between fields; `errors` lists each problem.',
  },
  bad_request: { status: 400, description: 'The request cannot be served as sent.' },
  unauthorized: { status: 401, description: 'The operation needs a valid access token (or API key); none was sent, or it is not valid.' },
  forbidden: { status: 403, description: 'Authenticated, but not allowed to perform this operation.' },
  not_found: { status: 404, description: 'The resource does not exist, or belongs to another tenant.' },
  method_not_allowed: { status: 405, description: 'The path exists, but not with this method; `Allow` lists the methods it has.' },
  conflict: { status: 409, description: 'The request conflicts with the current state of the resource.' },
  payload_too_large: { status: 413, description: 'The request body (or an uploaded file) exceeds its size limit.' },
  unsupported_media_type: { status: 415, description: 'The request body has a content type this operation does not accept.' },
  rate_limited: { status: 429, description: 'Too many requests; retry after the number of seconds in `Retry-After`.' },
  internal_error: { status: 500, description: 'An unexpected error; it was logged with the request id the body carries.' },
  not_implemented: { status: 501, description: 'The operation is part of the specification but is not built yet.' },
  service_unavailable: {
    status: 503,
    description:
      'A backing service (database, search, queue) is unavailable, or the resource changed concurrently; retry after `Retry-After`.',
  },
  not_ready: {
    status: 503,
    description: 'The process is not ready to serve (starting, shutting down, or a dependency it needs is down); see /readyz.',
  },
});

export class AppError extends Error {
  readonly headers: Record<string, string> = {};
  readonly code: string;

  constructor(
    readonly status: number,
    code: ErrorCode,
    readonly title: string,
    detail: string,
    readonly errors: FieldError[] = [],
  ) {
    super(detail);
    this.name = new.target.name;
    this.code = code;
  }

  toProblem(): ProblemBody {
    return {
      type: problemType(this.code),
      title: this.title,
      status: this.status,
      detail: this.message,
      code: this.code,
      errors: this.errors,
    };
  }
}

export class ValidationError extends AppError {
  constructor(detail: string, errors: FieldError[] = []) {
    super(400, COMMON_ERRORS.code('validation_failed'), 'Bad Request', detail, errors);
  }
}

export class BadRequestError extends AppError {
  constructor(detail: string, code: ErrorCode = COMMON_ERRORS.code('bad_request'), errors: FieldError[] = []) {
    super(400, code, 'Bad Request', detail, errors);
  }
}

export class UnauthorizedError extends AppError {
  constructor(
    detail = 'A valid access token is required.',
    code: ErrorCode = COMMON_ERRORS.code('unauthorized'),
    errors: FieldError[] = [],
  ) {
    super(401, code, 'Unauthorized', detail, errors);
    this.headers['WWW-Authenticate'] = 'Bearer';
  }
}

export class ForbiddenError extends AppError {
  constructor(
    detail = 'You are not allowed to perform this operation.',
    code: ErrorCode = COMMON_ERRORS.code('forbidden'),
    errors: FieldError[] = [],
  ) {
    super(403, code, 'Forbidden', detail, errors);
  }
}

export class NotFoundError extends AppError {
  constructor(detail = 'The resource does not exist.', code: ErrorCode = COMMON_ERRORS.code('not_found'), errors: FieldError[] = []) {
    super(404, code, 'Not Found', detail, errors);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allowed: string[]) {
    super(
      405,
      COMMON_ERRORS.code('method_not_allowed'),
      'Method Not Allowed',
      `${method} is not allowed here; allowed: ${allowed.join(', ')}.`,
    );
    this.headers.Allow = allowed.join(', ');
  }
}

export class ConflictError extends AppError {
  constructor(detail: string, code: ErrorCode = COMMON_ERRORS.code('conflict'), errors: FieldError[] = []) {
    super(409, code, 'Conflict', detail, errors);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: number, detail = `The request body exceeds the limit of ${limit} bytes.`) {
    super(413, COMMON_ERRORS.code('payload_too_large'), 'Content Too Large', detail);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(received: string | undefined, expected: string[]) {
    super(
      415,
      COMMON_ERRORS.code('unsupported_media_type'),
      'Unsupported Media Type',
      `Content-Type ${received ? `"${received}"` : '(none)'} is not accepted here; send ${expected.join(' or ')}.`,
    );
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, detail = 'Too many requests.') {
    super(429, COMMON_ERRORS.code('rate_limited'), 'Too Many Requests', detail);
    this.headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class NotImplementedError extends AppError {
  constructor(operation: string) {
    super(501, COMMON_ERRORS.code('not_implemented'), 'Not Implemented', `${operation} is part of the specification but is not built yet.`);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail = 'A backing service is unavailable; try again shortly.', retryAfterSeconds = 1) {
    super(503, COMMON_ERRORS.code('service_unavailable'), 'Service Unavailable', detail);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export class NotReadyError extends AppError {
  constructor(detail: string) {
    super(503, COMMON_ERRORS.code('not_ready'), 'Service Unavailable', detail);
    this.headers['Retry-After'] = '1';
  }
}

export class InternalError extends AppError {
  constructor() {
    super(
      500,
      COMMON_ERRORS.code('internal_error'),
      'Internal Server Error',
      'An unexpected error occurred; it has been logged with the request id.',
    );
  }
}
