/**
 * The error-code registries (lib/errors.ts defineErrorCodes): every registry is part of the generated
 * list, the list in docs/error-codes.md and in the OpenAPI document is the generated one, and an
 * error built from a registry has the registry's status, the status's title and class.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  BadRequestError,
  COMMON_ERRORS,
  ConflictError,
  defineErrorCodes,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
  type ErrorRegistry,
} from '../../lib/errors';
import { PROJECT_ROOT } from '../../lib/config';
import { ERROR_REGISTRIES, errorCodeList, errorCodeTable } from '../../api/error-codes';
import { buildOpenApiDocument } from '../../api/http/openapi';
import { allRoutes } from '../../api/routes';
import { ERROR_CODES_DOC, errorCodesDocument } from '../../scripts/error-codes';

const COMPILED_ROOT = path.resolve(__dirname, '..', '..');
const SOURCE_FOLDERS = ['api', 'domain', 'indexer', 'lib', 'relay', 'search', 'storage', 'vision', 'web', 'app'];

function registryFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.errors.ts')) found.push(path.relative(PROJECT_ROOT, full));
    }
  };
  for (const folder of SOURCE_FOLDERS) if (fs.existsSync(path.join(PROJECT_ROOT, folder))) walk(path.join(PROJECT_ROOT, folder));
  return found.sort();
}

const isRegistry = (value: unknown): value is ErrorRegistry =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ErrorRegistry).area === 'string' &&
  typeof (value as ErrorRegistry).rows === 'function';

describe('error codes', () => {
  it('lists every registry: each <area>.errors.ts module and the common codes', () => {
    const files = registryFiles();
    expect(files.length).to.be.at.least(20);
    const defined: ErrorRegistry[] = [COMMON_ERRORS];
    for (const file of files) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const exported = Object.values(require(path.join(COMPILED_ROOT, file.replace(/\.ts$/, '.js'))) as Record<string, unknown>).filter(
        isRegistry,
      );
      expect(exported, `${file} exports its registry`).to.have.length(1);
      defined.push(exported[0]!);
    }
    expect(ERROR_REGISTRIES).to.have.members(defined);
    expect(new Set(ERROR_REGISTRIES.map((r) => r.area)).size, 'one registry per area').to.equal(ERROR_REGISTRIES.length);
  });

  it('defines each code of an area once per status, with a meaning', () => {
    const seen = new Set<string>();
    for (const row of errorCodeList()) {
      const key = `${row.area} ${row.code} ${row.status}`;
      expect(seen.has(key), key).to.equal(false);
      seen.add(key);
      expect(row.description, key).to.match(/^[A-Z`].{10,}\.$/);
      expect(row.code, key).to.match(/^[a-z][a-z0-9_]*$/);
    }
  });

  it('docs/error-codes.md is the generated list (npm run error-codes -- --write)', () => {
    expect(fs.readFileSync(ERROR_CODES_DOC, 'utf8')).to.equal(errorCodesDocument());
  });

  it('the OpenAPI document carries the list: x-error-codes and the table of its description', () => {
    const doc = buildOpenApiDocument(allRoutes, { version: '1.0.0' }) as { info: { description: string }; 'x-error-codes': unknown };
    expect(doc['x-error-codes']).to.deep.equal(errorCodeList());
    expect(doc.info.description).to.include(errorCodeTable());
    for (const code of [
      'validation_failed',
      'route_not_found',
      'store_not_found',
      'empty_csv',
      'duplicate',
      'bulk_edit_conflict',
      'use_async_import',
    ]) {
      expect(doc.info.description).to.include(`\`${code}\``);
    }
  });

  it('builds the error of a code with its registry status, the status title and the class of the status', () => {
    const registry = defineErrorCodes('test', {
      bad: { status: 400, description: 'Bad.' },
      who: { status: 401, description: 'Who.' },
      no: { status: 403, description: 'No.' },
      gone: { status: 404, description: 'Gone.' },
      clash: { status: 409, description: 'Clash.' },
      expired: { status: 410, description: 'Expired.' },
      two: [
        { status: 400, description: 'Two, as 400.' },
        { status: 415, description: 'Two, as 415.' },
      ],
    });
    const errors = [{ path: 'body.x', message: 'x' }];
    const built = [
      registry.error('bad', 'detail', errors),
      registry.error('who', 'detail', errors),
      registry.error('no', 'detail', errors),
      registry.error('gone', 'detail', errors),
      registry.error('clash', 'detail', errors),
    ];
    const classes = [BadRequestError, UnauthorizedError, ForbiddenError, NotFoundError, ConflictError];
    built.forEach((error, i) => {
      expect(error).to.be.instanceOf(classes[i]!);
      expect(error.toProblem()).to.deep.include({ code: ['bad', 'who', 'no', 'gone', 'clash'][i], detail: 'detail', errors });
    });
    expect(registry.error('who', 'detail').headers['WWW-Authenticate']).to.equal('Bearer');
    expect(registry.error('expired', 'detail').toProblem()).to.include({ status: 410, title: 'Gone', code: 'expired' });
    expect(registry.error('two', 'detail', [], 415).toProblem()).to.include({ status: 415, title: 'Unsupported Media Type' });
    expect(registry.error('two', 'detail', undefined, 400)).to.be.instanceOf(BadRequestError);
    expect(() => (registry.error as (code: string, detail: string) => unknown)('two', 'detail')).to.throw(/not defined with status/);
    expect(() => (registry.error as (code: string, detail: string) => unknown)('nope', 'detail')).to.throw(
      /not defined by the test registry/,
    );
    expect(
      registry
        .rows()
        .filter((r) => r.code === 'two')
        .map((r) => r.status),
    ).to.deep.equal([400, 415]);
  });

  it('gives the classes their common codes', () => {
    expect(new ValidationError('x').code).to.equal('validation_failed');
    expect(new NotFoundError().toProblem()).to.include({ status: 404, code: 'not_found', title: 'Not Found' });
    expect(new ConflictError('x').code).to.equal('conflict');
    expect(COMMON_ERRORS.rows().map((r) => r.code)).to.include.members([
      'validation_failed',
      'not_found',
      'rate_limited',
      'internal_error',
      'service_unavailable',
      'not_ready',
    ]);
  });
});
