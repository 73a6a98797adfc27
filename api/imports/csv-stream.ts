/**
 * Streaming CSV reading for the imports: records are parsed one at a time (csv-parse's stream API),
 * so a large upload is never turned into one big array. Row numbers count data rows from 1 (the
 * header row is row 0), as the row errors report them. Cells our own exports neutralised against
 * formula injection (`'=…`) are read back without the apostrophe.
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { ValidationError, type FieldError } from '../../lib/errors';
import { unstorableCharacter } from '../http/validation';
import { importsError } from './imports.errors';

export type CsvSource = string | Buffer | AsyncIterable<Buffer | string>;

export interface CsvRecord {
  /** Data row number, from 1. */
  row: number;
  /** Cell values by column name (trimmed header names); empty cells are absent. */
  cells: Record<string, string>;
  /**
   * Cells that hold a character no column can store (U+0000, an unpaired surrogate), one error per
   * cell; such a cell is left out of `cells`, and the importer counts the row as failed.
   */
  errors: RowError[];
}

const NEUTRALISED = /^'[=+\-@\t\r]/;

export interface CsvHeaderRules {
  known: readonly string[];
  required: readonly string[];
}

function checkHeader(names: string[], rules: CsvHeaderRules): void {
  const errors: FieldError[] = [];
  for (const name of names)
    if (!rules.known.includes(name))
      errors.push({ path: 'body.header', message: `unknown column "${name}"; the columns are ${rules.known.join(', ')}` });
  for (const name of rules.required)
    if (!names.includes(name)) errors.push({ path: 'body.header', message: `missing required column "${name}"` });
  if (new Set(names).size !== names.length) errors.push({ path: 'body.header', message: 'a column appears twice' });
  if (errors.length) throw new ValidationError('The CSV header does not match the column layout.', errors);
}

/**
 * Yields the data records of a CSV document with a header row. A malformed document (unclosed
 * quote, a row with a different number of cells) throws 400 invalid_csv naming the row; an unknown
 * or missing column throws 400 before any record is yielded. `onHeader` receives the column names.
 */
export async function* csvRecords(
  source: CsvSource,
  rules: CsvHeaderRules,
  onHeader?: (names: string[]) => void,
): AsyncGenerator<CsvRecord> {
  const input = typeof source === 'string' || Buffer.isBuffer(source) ? Readable.from([source]) : Readable.from(source);
  const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: false, max_record_size: 1_000_000 });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let names: string[] | undefined;
  let row = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      if (!names) {
        names = cells.map((h) => h.trim());
        checkHeader(names, rules);
        onHeader?.(names);
        continue;
      }
      row += 1;
      const record: Record<string, string> = {};
      const errors: RowError[] = [];
      names.forEach((name, column) => {
        const cell = cells[column] ?? '';
        const refused = unstorableCharacter(cell);
        if (refused) errors.push({ row, column: name, message: `must not contain ${refused}` });
        else if (cell.trim() !== '') record[name] = NEUTRALISED.test(cell) ? cell.slice(1) : cell;
      });
      yield { row, cells: record, errors };
    }
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    const message = (error as Error).message;
    throw importsError('invalid_csv', `The CSV could not be read after data row ${row}: ${message}`, [
      { path: `rows[${row + 1}]`, message },
    ]);
  } finally {
    input.unpipe(parser);
    parser.destroy();
    input.destroy();
  }
  if (!names)
    throw importsError('invalid_csv', 'The CSV is empty; it needs a header row.', [{ path: 'body', message: 'missing header row' }]);
}

/** A row error as the import operations report it. */
export interface RowError {
  /** Data row number (header excluded, first data row = 1). */
  row: number;
  /** The CSV column, or null when the problem is the row as a whole. */
  column: string | null;
  message: string;
}

/** Splits a `|`-separated list cell. */
export const listCell = (value: string | undefined): string[] =>
  value === undefined
    ? []
    : value
        .split('|')
        .map((part) => part.trim())
        .filter((part) => part !== '');

/** Reads a yes/no cell: true/false, yes/no, 1/0 (any case); undefined when empty. */
export function booleanCell(value: string | undefined): boolean | undefined | 'invalid' {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (['true', 'yes', 'y', '1'].includes(v)) return true;
  if (['false', 'no', 'n', '0'].includes(v)) return false;
  return 'invalid';
}
