/**
 * CSV imports: one documented column layout per resource, UTF-8 with a header row. Every row is
 * validated before anything is written; when any row is bad the import is refused with 400 listing
 * each bad row and column (`rows[3].slug`: the third data row, header excluded), so a failed import
 * changes nothing. A cell that our own exports neutralised against formula injection (`'=…`) is read
 * back without the apostrophe, so export → import round-trips.
 */
import Joi from 'joi';
import { parse } from 'csv-parse/sync';
import { PayloadTooLargeError, ValidationError, type FieldError } from '../../lib/errors';
import { httpError } from './http.errors';
import { unstorableCharacter } from './validation';

export interface CsvImportLayout {
  /** Column name → joi schema of the cell (strings; convert numbers and booleans in the schema). */
  columns: Record<string, Joi.Schema>;
  /** Most data rows accepted in one import. */
  maxRows: number;
}

const NEUTRALISED = /^'[=+\-@\t\r]/;
const MAX_REPORTED_ERRORS = 500;

/** Parses and validates a CSV document; returns the rows as typed by the layout, or throws 400/413. */
export function parseCsvImport<T>(text: string, layout: CsvImportLayout, fieldPath = 'body.csv'): T[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (error) {
    throw httpError('invalid_csv', `The CSV could not be read: ${(error as Error).message}`, [
      { path: fieldPath, message: (error as Error).message },
    ]);
  }
  const [header, ...rows] = records;
  if (!header)
    throw httpError('invalid_csv', 'The CSV is empty; it needs a header row.', [{ path: fieldPath, message: 'missing header row' }]);
  if (rows.length > layout.maxRows)
    throw new PayloadTooLargeError(
      layout.maxRows,
      `The CSV has ${rows.length} rows; at most ${layout.maxRows} are accepted in one import.`,
    );

  const names = header.map((h) => h.trim());
  const known = Object.keys(layout.columns);
  const headerErrors: FieldError[] = [];
  for (const name of names)
    if (!known.includes(name))
      headerErrors.push({ path: `${fieldPath}.header`, message: `unknown column "${name}"; the columns are ${known.join(', ')}` });
  for (const [name, schema] of Object.entries(layout.columns)) {
    if ((schema.describe() as { flags?: { presence?: string } }).flags?.presence === 'required' && !names.includes(name)) {
      headerErrors.push({ path: `${fieldPath}.header`, message: `missing required column "${name}"` });
    }
  }
  if (new Set(names).size !== names.length) headerErrors.push({ path: `${fieldPath}.header`, message: 'a column appears twice' });
  if (headerErrors.length) throw new ValidationError('The CSV header does not match the column layout.', headerErrors);

  const schema = Joi.object(layout.columns);
  const errors: FieldError[] = [];
  const out: T[] = [];
  rows.forEach((cells, index) => {
    const record: Record<string, string> = {};
    const refused: FieldError[] = [];
    names.forEach((name, column) => {
      const cell = cells[column] ?? '';
      const found = unstorableCharacter(cell);
      if (found) refused.push({ path: `rows[${index + 1}].${name}`, message: `${name} must not contain ${found}` });
      else if (cell !== '') record[name] = NEUTRALISED.test(cell) ? cell.slice(1) : cell;
    });
    const { value, error } = schema.validate(record, { abortEarly: false, convert: true, errors: { wrap: { label: false } } });
    for (const e of refused) if (errors.length < MAX_REPORTED_ERRORS) errors.push(e);
    if (error) {
      for (const detail of error.details) {
        const path = `rows[${index + 1}].${detail.path.join('.')}`;
        if (errors.length < MAX_REPORTED_ERRORS && !refused.some((e) => e.path === path)) errors.push({ path, message: detail.message });
      }
    } else if (!refused.length) {
      out.push(value as T);
    }
  });
  if (errors.length) throw new ValidationError(`The CSV has invalid rows; nothing was imported.`, errors);
  return out;
}

/**
 * Refuses an import in which two rows share a key (e.g. a slug, already lowercased by the layout):
 * 400 listing `rows[N].<column>` for each repeat, naming the first row that has it.
 */
export function rejectDuplicateRows<T>(rows: readonly T[], column: string, key: (row: T) => string): void {
  const seen = new Map<string, number>();
  const errors: FieldError[] = [];
  rows.forEach((row, index) => {
    const value = key(row);
    const first = seen.get(value);
    if (first !== undefined)
      errors.push({ path: `rows[${index + 1}].${column}`, message: `${column} "${value}" already appears in row ${first}` });
    else seen.set(value, index + 1);
  });
  if (errors.length) throw new ValidationError('The CSV has invalid rows; nothing was imported.', errors);
}
