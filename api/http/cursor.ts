/**
 * Opaque keyset cursors: the sort values of a page's last row, as a JSON array of strings in
 * base64url. Every keyset list reads them back the same way; what differs per list is which
 * values it could have written (a UUID, a date, the sort it was made for), so each caller says
 * that in `accepts`. Anything else, from garbage to a well-formed cursor of another list, is one
 * 400 naming `query.cursor`.
 */
import { AppError, ValidationError } from '../../lib/errors';

/** A cursor holds at least the sort value and the row id that breaks ties. */
export type CursorParts = readonly [string, string, ...string[]];

export interface CursorRules<Parts extends CursorParts> {
  /** How many parts this list writes; two (sort value, id) unless said. */
  length?: Parts['length'];
  /** Whether the parts are ones this list could have written. */
  accepts(parts: Parts): boolean;
  /** The error for a cursor this list did not write; lists that predate this module keep their own. */
  invalid?: () => AppError;
}

export const invalidListCursor = (): ValidationError =>
  new ValidationError('The cursor is not one this list returned.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);

export function encodeCursor(parts: CursorParts): string {
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
}

export function decodeCursor<Parts extends CursorParts = readonly [string, string]>(cursor: string, rules: CursorRules<Parts>): Parts {
  const invalid = rules.invalid ?? invalidListCursor;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== (rules.length ?? 2) || !parsed.every((part) => typeof part === 'string')) throw invalid();
  if (!rules.accepts(parsed as unknown as Parts)) throw invalid();
  return parsed as unknown as Parts;
}

/** For `accepts`: the part is a timestamp `Date.parse` reads. */
export const isDate = (value: string): boolean => !Number.isNaN(Date.parse(value));
