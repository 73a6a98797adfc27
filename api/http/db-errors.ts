/**
 * The one place that translates database and driver errors into application errors, so no
 * service has to remember SQLSTATE codes and nothing leaks a driver message or stack trace.
 */
import { EntityNotFoundError, QueryFailedError } from 'typeorm';
import { AppError, BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError } from './errors';

interface PgDriverError {
  code?: string;
  constraint?: string;
  column?: string;
  detail?: string;
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);

/** Returns the AppError for a known database failure, or undefined when it is not one. */
export function translateDatabaseError(error: unknown): AppError | undefined {
  if (error instanceof EntityNotFoundError) return new NotFoundError();
  const driver = (error instanceof QueryFailedError ? (error.driverError as PgDriverError) : (error as PgDriverError | undefined)) ?? {};
  const code = driver.code;
  if (!code) return undefined;
  if (CONNECTION_ERROR_CODES.has(code)) return new ServiceUnavailableError('The database is unavailable; try again shortly.');
  if (!(error instanceof QueryFailedError)) return undefined;
  switch (code) {
    case '23505':
      return new ConflictError(`A resource with the same unique value already exists${driver.constraint ? ` (${driver.constraint})` : ''}.`, 'duplicate');
    case '23503':
      return new ConflictError(`The operation refers to, or is referred to by, another resource${driver.constraint ? ` (${driver.constraint})` : ''}.`, 'reference_conflict');
    case '23502':
      return new BadRequestError(`A required value is missing${driver.column ? ` (${driver.column})` : ''}.`, 'missing_value');
    case '23514':
      return new BadRequestError(`A value breaks a rule of the resource${driver.constraint ? ` (${driver.constraint})` : ''}.`, 'check_violation');
    case '22P02':
    case '22007':
    case '22008':
      return new BadRequestError('A value has the wrong format.', 'invalid_value');
    case '22003':
    case '22001':
      return new BadRequestError('A value is out of range or too long.', 'value_out_of_range');
    case '40001':
    case '40P01':
      return new ServiceUnavailableError('The resource was changed concurrently; retry the request.');
    case '57014':
      return new ServiceUnavailableError('The database took too long to answer; try again shortly.');
    default:
      return undefined;
  }
}
