/**
 * The one place that translates database and driver errors into application errors, so no
 * service has to remember SQLSTATE codes and nothing leaks a driver message or stack trace.
 */
import { EntityNotFoundError, QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { AppError, NotFoundError, ServiceUnavailableError } from '../../lib/errors';
import { isUniqueViolation } from '../../storage/db-errors';
import { httpError } from './http.errors';

interface PgDriverError {
  code?: string;
  constraint?: string;
  column?: string;
  detail?: string;
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

/**
 * Codes that mean the connection is gone or cannot be had: socket errno codes, and the SQLSTATEs
 * with which PostgreSQL ends a session (administrator or crash shutdown, starting up, too many
 * connections, idle timeouts). Class 08 (connection exception) is matched as a whole.
 */
const CONNECTION_LOSS_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '25P03',
  '53300',
]);

/**
 * node-postgres and pg-pool report a lost or unobtainable connection with these messages and no
 * code at all; they are matched exactly, so an unrelated error that merely mentions a connection
 * stays a 500.
 */
const CONNECTION_LOSS_MESSAGES = new Set([
  'Connection terminated',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
]);

/**
 * True when `error` says the database connection was lost or could not be had, in any of the shapes
 * it reaches a caller in: the driver's error itself, wrapped in TypeORM's QueryFailedError, in a
 * `cause` chain or an AggregateError (a connect that tried several addresses). TypeORM gives a
 * transaction whose connection dropped between two statements only "query runner already released"
 * (it released the broken connection itself), so those count too: outside a lost connection they mean
 * a query after the transaction ended, which the tests of the code that does it would show.
 */
export function isConnectionLoss(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 5) return false;
  if (error instanceof QueryRunnerAlreadyReleasedError || error instanceof QueryRunnerProviderAlreadyReleasedError) return true;
  const e = error as ErrorLike;
  if (typeof e.code === 'string' && (CONNECTION_LOSS_CODES.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
  if (typeof e.message === 'string' && CONNECTION_LOSS_MESSAGES.has(e.message)) return true;
  if (isConnectionLoss(e.driverError, depth + 1) || isConnectionLoss(e.cause, depth + 1)) return true;
  return Array.isArray(e.errors) && e.errors.some((inner) => isConnectionLoss(inner, depth + 1));
}

/** Returns the AppError for a known database failure, or undefined when it is not one. */
export function translateDatabaseError(error: unknown): AppError | undefined {
  if (error instanceof EntityNotFoundError) return new NotFoundError();
  if (isConnectionLoss(error)) return new ServiceUnavailableError('The database is unavailable; try again shortly.');
  if (!(error instanceof QueryFailedError)) return undefined;
  const driver = (error.driverError as PgDriverError | undefined) ?? {};
  if (isUniqueViolation(error))
    return httpError(
      'duplicate',
      `A resource with the same unique value already exists${driver.constraint ? ` (${driver.constraint})` : ''}.`,
    );
  switch (driver.code) {
    case '23503':
      return httpError(
        'reference_conflict',
        `The operation refers to, or is referred to by, another resource${driver.constraint ? ` (${driver.constraint})` : ''}.`,
      );
    case '23502':
      return httpError('missing_value', `A required value is missing${driver.column ? ` (${driver.column})` : ''}.`);
    case '23514':
      return httpError('check_violation', `A value breaks a rule of the resource${driver.constraint ? ` (${driver.constraint})` : ''}.`);
    case '22P02':
    case '22007':
    case '22008':
      return httpError('invalid_value', 'A value has the wrong format.');
    case '22021':
    case '22P05':
      // character_not_in_repertoire, untranslatable_character: a NUL or an unpaired surrogate that the
      // validation let through (api/http/validation.ts refuses them in every request string).
      return httpError('invalid_value', 'A value contains a character that cannot be stored (such as U+0000).');
    case '22003':
    case '22001':
      return httpError('value_out_of_range', 'A value is out of range or too long.');
    case '40001':
    case '40P01':
      return new ServiceUnavailableError('The resource was changed concurrently; retry the request.');
    case '57014':
      return new ServiceUnavailableError('The database took too long to answer; try again shortly.');
    default:
      return undefined;
  }
}
