/**
 * Writes the OpenAPI document generated from the route tables to a file (default dist/openapi.json),
 * for the linter and for anyone who wants it without starting the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { API_VERSION } from '../app/http-app';
import { PROJECT_ROOT } from '../lib/config';
import { buildOpenApiDocument } from '../api/http/openapi';
import { allRoutes } from '../api/routes';

const target = path.resolve(process.argv[2] ?? path.join(PROJECT_ROOT, 'dist', 'openapi.json'));
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(allRoutes, { version: API_VERSION }), null, 2)}\n`);
process.stdout.write(`${target}\n`);
