/**
 * The error codes of the imports area: each code once, with its HTTP status and what it means.
 * Throw sites use `importsError(code, detail, errors)`; the API reference lists the codes
 * (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const IMPORTS_ERRORS = defineErrorCodes('imports', {
  job_not_found: { status: 404, description: 'The import or export job does not exist.' },
  invalid_csv: {
    status: 400,
    description: 'The CSV of an import could not be parsed (unclosed quote, rows of another width, bad header).',
  },
  empty_csv: { status: 400, description: 'The CSV has no data rows.' },
  use_async_import: {
    status: 413,
    description: 'The CSV has too many data rows for the synchronous import; use POST /bulk-import/products/async.',
  },
  invalid_download_link: { status: 403, description: 'The download link of the export is not valid for this job.' },
  download_expired: { status: 410, description: 'The download link of the export has expired; start a new export.' },
  export_not_ready: { status: 409, description: 'The export has not completed yet.' },
});

export const importsError = IMPORTS_ERRORS.error;
