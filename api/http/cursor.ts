/**
 * Opaque keyset cursors: the sort values of a page's last row, as a JSON array of strings in
 * base64url. Every keyset list reads them back the same way; what differs per list is which
 * values it could have written (a UUID, a date, the sort it was made for), so each caller says
 * that in `accepts`, with the part checks below. Anything else, from garbage to a well-formed
 * cursor of another list, is one 400 naming `query.cursor`, before any part reaches the database.
 *
 * A cursor is only read back when it is exactly what `encodeCursor` writes for the parts it
 * holds, so padding, stray characters, other JSON spellings and invalid UTF-8 are refused; a part
 * never holds a NUL (PostgreSQL text cannot) and is at most `MAX_PART_LENGTH` characters.
 */
import { AppError, ValidationError } from '../../lib/errors';
import { UUID_PATTERN } from '../../storage/ids';

/** A cursor holds at least the sort value and the row id that breaks ties. */
export type CursorParts = readonly [string, string, ...string[]];

export interface CursorRules<Parts extends CursorParts> {
  /** How many parts this list writes; two (sort value, id) unless said. */
  length?: Parts['length'];
  /** Whether the parts are ones this list could have written (use the checks below). */
  accepts(parts: Parts): boolean;
  /** The error for a cursor this list did not write; lists that predate this module keep their own. */
  invalid?: () => AppError;
}

const MAX_PART_LENGTH = 1024;

export const invalidListCursor = (): ValidationError =>
  new ValidationError('The cursor is not one this list returned.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);

export function encodeCursor(parts: CursorParts): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

export function decodeCursor<Parts extends CursorParts = readonly [string, string]>(cursor: string, rules: CursorRules<Parts>): Parts {
  const invalid = rules.invalid ?? invalidListCursor;
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== (rules.length ?? 2) ||
    !parsed.every((part) => typeof part === 'string' && part.length <= MAX_PART_LENGTH && !part.includes('\u0000'))
  )
    throw invalid();
  const parts = parsed as unknown as Parts;
  if (encodeCursor(parts) !== cursor) throw invalid();
  let accepted: boolean;
  try {
    accepted = rules.accepts(parts);
  } catch {
    accepted = false;
  }
  if (!accepted) throw invalid();
  return parts;
}

/**
 * For `accepts`: the part is a timestamp as `Date#toISOString` writes it (what the lists write): a
 * finite date that reads back as the same string, in the years 1 to 9999, well within PostgreSQL's
 * timestamptz range (4713 BC to 294276 AD). The extended years JavaScript writes with a sign
 * (`+275760-09-13T00:00:00.000Z`) are not ones PostgreSQL reads.
 */
export const isDate = (value: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value)) return false;
  const date = new Date(value);
  return Number.isFinite(date.getTime()) && date.getUTCFullYear() >= 1 && date.toISOString() === value;
};

/**
 * For `accepts`: the part is a timestamptz as PostgreSQL writes it in text
 * (`2026-01-02 03:04:05.123456+00`), with a real calendar date and time and a year from 1 to 9999.
 */
export const isPgTimestamp = (value: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2})(?::(\d{2}))?)?$/.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes, offsetSeconds] = match.slice(1).map((n) => Number(n ?? 0));
  if (year === undefined || month === undefined || day === undefined) return false;
  if (year < 1 || hour! > 23 || minute! > 59 || second! > 59 || offsetHours! > 15 || offsetMinutes! > 59 || offsetSeconds! > 59)
    return false;
  const calendar = new Date(Date.UTC(2000, month - 1, day));
  calendar.setUTCFullYear(year);
  return month >= 1 && month <= 12 && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
};

/** For `accepts`: the part is a UUID (`storage/ids.ts`). */
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/** For `accepts`: a decimal number as PostgreSQL writes numeric (no exponent), finite and bounded. */
export const isDecimal = (value: string): boolean => /^-?\d{1,20}(?:\.\d{1,20})?$/.test(value) && Number.isFinite(Number(value));

/** For `accepts`: an integer within PostgreSQL's bigint range. */
export const isBigint = (value: string): boolean => {
  if (!/^-?\d{1,19}$/.test(value)) return false;
  const n = BigInt(value);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
};

/** For `accepts`: any text (decodeCursor has already refused NULs and overlong parts). */
export const isText = (value: string): boolean => typeof value === 'string';
