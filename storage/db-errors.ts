/**
 * Recognising PostgreSQL failures a service answers itself (a race lost at a unique index becomes
 * its own 409), in both shapes they reach a caller in: node-postgres's error, and that error wrapped
 * in TypeORM's QueryFailedError. Everything else is translated once, by api/http/db-errors.ts.
 */
import { QueryFailedError } from 'typeorm';

/** SQLSTATE of a unique violation (class 23, integrity constraint violation). */
export const UNIQUE_VIOLATION = '23505';

/** What node-postgres reports of a failed statement (the fields read here). */
export interface PgErrorFields {
  code?: unknown;
  constraint?: unknown;
}

/** The driver's error of `error`: the one TypeORM wrapped, or `error` itself when it is not wrapped. */
export function driverErrorOf(error: unknown): PgErrorFields | undefined {
  if (error instanceof QueryFailedError) return (error.driverError ?? undefined) as PgErrorFields | undefined;
  return error !== null && typeof error === 'object' ? (error as PgErrorFields) : undefined;
}

/**
 * True when `error` is a unique violation (SQLSTATE 23505); with `constraint`, only one at that
 * unique index or constraint (PostgreSQL names the index of a unique index in `constraint`).
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const driver = driverErrorOf(error);
  if (driver?.code !== UNIQUE_VIOLATION) return false;
  return constraint === undefined || driver.constraint === constraint;
}
