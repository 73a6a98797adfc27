/**
 * The app manifest of `svc app dev` and `svc app deploy`: `app.json` in the current folder (or
 * --manifest), describing the partner app the way POST /app-store/partner/apps takes it:
 *
 *   { "slug": "order-notes", "name": "Order Notes", "summary": "Notes on every order.",
 *     "description": "…", "category": "operations", "scopes": ["orders:read"],
 *     "webhookTopics": ["order.placed", "product.created"] }
 *
 * Only the shape is checked here; the API checks the values (bounds, known scopes and topics).
 */
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '../cli-error';

export interface AppManifest {
  slug: string;
  name: string;
  summary: string;
  description?: string;
  category: string;
  scopes?: string[];
  webhookTopics?: string[];
}

const KEYS = ['slug', 'name', 'summary', 'description', 'category', 'scopes', 'webhookTopics'];

/** The manifest at `file` (default ./app.json), or null when the default file does not exist. */
export function readManifest(file?: string): AppManifest | null {
  const target = path.resolve(file ?? 'app.json');
  let text: string;
  try {
    text = fs.readFileSync(target, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && file === undefined) return null;
    throw new CliError(`Cannot read ${target} (${(error as Error).message}).`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${target} is not valid JSON (${(error as Error).message}).`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError(`${target} must hold a JSON object.`);
  const manifest = value as Record<string, unknown>;
  const unknown = Object.keys(manifest).filter((key) => !KEYS.includes(key));
  if (unknown.length)
    throw new CliError(`${target}: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${KEYS.join(', ')}).`);
  for (const key of ['slug', 'name', 'summary', 'category'])
    if (typeof manifest[key] !== 'string') throw new CliError(`${target}: "${key}" must be a string.`);
  if (manifest.description !== undefined && typeof manifest.description !== 'string')
    throw new CliError(`${target}: "description" must be a string.`);
  for (const key of ['scopes', 'webhookTopics'])
    if (manifest[key] !== undefined && !(Array.isArray(manifest[key]) && (manifest[key] as unknown[]).every((v) => typeof v === 'string')))
      throw new CliError(`${target}: "${key}" must be a list of strings.`);
  return manifest as unknown as AppManifest;
}
