/**
 * Prints every error code of the API (code, status, area, meaning), generated from the error-code
 * registries (api/error-codes.ts), and keeps docs/error-codes.md in step with them.
 *
 *   npm run error-codes                          the list as a Markdown table (node dist/scripts/error-codes.js)
 *   npm run error-codes -- --json                the list as JSON
 *   npm run error-codes -- --write               writes docs/error-codes.md
 *   npm run error-codes -- --check               exits 1 when docs/error-codes.md is not the generated text
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/config';
import { errorCodeList, errorCodeTable } from '../api/error-codes';

export const ERROR_CODES_DOC = path.join(PROJECT_ROOT, 'docs', 'error-codes.md');

/** The text of docs/error-codes.md. */
export function errorCodesDocument(): string {
  return [
    '# Error codes',
    '',
    'Every problem (`application/problem+json`) carries a stable `code`. This is the list of them, with',
    'the status each comes with, the area that answers it and what it means. It is generated from the',
    'error-code registries (each code is defined once, in `api/<area>/<area>.errors.ts`,',
    '`api/http/http.errors.ts`, `domain/domain.errors.ts` or `lib/errors.ts`): after changing one, run',
    '`npm run error-codes -- --write`. The API reference (GET /docs, GET /api/v1/openapi.json,',
    '`x-error-codes`) shows the same list.',
    '',
    errorCodeTable(),
    '',
  ].join('\n');
}

function main(argv: string[]): number {
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(errorCodeList(), null, 2)}\n`);
    return 0;
  }
  if (argv.includes('--write')) {
    fs.writeFileSync(ERROR_CODES_DOC, errorCodesDocument());
    process.stdout.write(`${ERROR_CODES_DOC}\n`);
    return 0;
  }
  if (argv.includes('--check')) {
    const current = fs.existsSync(ERROR_CODES_DOC) ? fs.readFileSync(ERROR_CODES_DOC, 'utf8') : '';
    if (current === errorCodesDocument()) return 0;
    process.stderr.write(`${ERROR_CODES_DOC} is out of date: run npm run error-codes -- --write\n`);
    return 1;
  }
  process.stdout.write(`${errorCodeTable()}\n`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
