/**
 * CSV documents for exports (RFC 4180: header row, CRLF line ends, quoting where needed), with every
 * text cell neutralised against spreadsheet formula injection (OWASP "CSV Injection"): a cell that
 * begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe, so Excel,
 * LibreOffice and Google Sheets show it as text instead of evaluating it. Numbers and booleans are
 * written as they are (a negative number is data, not a formula); dates as ISO 8601; null as empty.
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { RequestContext } from '../../storage/request-context';
import type { RouteRequest } from './route';

export interface CsvColumn<T> {
  /** The header cell. */
  header: string;
  /** The cell of a row. */
  value: (row: T) => unknown;
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** The text of one cell, neutralised when a spreadsheet would read it as a formula. */
export function csvCell(value: unknown): string | number | boolean {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value.toString();
  const text =
    value instanceof Date
      ? value.toISOString()
      : Array.isArray(value)
        ? value.join(' ')
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * Renders rows as CSV. `header: false` leaves the header row out (for the later chunks of a
 * streamed export); arrays are joined with spaces and objects written as JSON.
 */
export function toCsv<T>(rows: readonly T[], columns: readonly CsvColumn<T>[], options: { header?: boolean } = {}): string {
  const header = options.header ?? true;
  const records = rows.map((row) => columns.map((column) => csvCell(column.value(row))));
  if (header) records.unshift(columns.map((column) => csvCell(column.header)) as string[]);
  return stringify(records, { record_delimiter: 'windows', cast: { boolean: (value) => (value ? 'true' : 'false') } });
}

/** A CSV download: the document (whole or streamed) and its Content-Disposition value. */
export interface CsvDownload {
  body: string | Readable;
  disposition: string;
}

/** The route handler of a CSV export: answers the exporter's document as an attachment. */
export function csvDownload<Q>(
  exportCsv: (ctx: RequestContext, query: Q) => Promise<CsvDownload>,
): (req: RouteRequest<Record<string, string>, Q>) => Promise<string | Readable> {
  return async (req) => {
    const { body, disposition } = await exportCsv(req.context, req.query);
    req.koa.set('Content-Disposition', disposition);
    return body;
  };
}

/**
 * A CSV export read in keyset batches and streamed: the header with the first batch (read before
 * the answer starts, so a failure there is still a proper error response), then each next batch
 * after the last row of the one before, until a batch comes back short. Once the status line is
 * sent, a failure can only cut the download off: it is logged with `label` and the request id.
 */
export function streamedCsv<T extends { id: string }>(
  ctx: RequestContext,
  first: readonly T[],
  next: (afterId: string) => Promise<readonly T[]>,
  options: { columns: readonly CsvColumn<T>[]; batchSize: number; label: string },
): Readable {
  async function* chunks(): AsyncGenerator<string> {
    let rows = first;
    yield toCsv(rows, options.columns);
    try {
      while (rows.length === options.batchSize) {
        rows = await next(rows[rows.length - 1]!.id);
        if (rows.length > 0) yield toCsv(rows, options.columns, { header: false });
      }
    } catch (error) {
      ctx.services?.logger.error({ err: error, requestId: ctx.requestId }, `${options.label} export failed while streaming`);
      throw error;
    }
  }
  return Readable.from(chunks());
}

/** The Content-Disposition value of a CSV download (the name is reduced to safe characters). */
export function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}
