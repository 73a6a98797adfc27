/**
 * The app as bench:search runs it (ROLES=api,relay,indexer, production mode, the service's node
 * flags).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { PROJECT_ROOT } from '../../lib/config';
import { waitUntilReady } from './common';

/** The app of the same build as this benchmark (dist/ or another output folder such as dist-perf/): <outDir>/scripts/bench → <outDir>/app/main.js. */
const APP_ENTRY = path.resolve(__dirname, '../../app/main.js');

/** Node's flags for the service, as `npm start` passes them (scripts/node-flags; NODE_FLAGS replaces them there and here). */
export function serviceNodeFlags(): string[] {
  const flags = process.env.NODE_FLAGS ?? readFileSync(path.join(PROJECT_ROOT, 'scripts/node-flags'), 'utf8');
  return flags.split(/\s+/).filter(Boolean);
}

export async function startApp(port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  // BENCH_APP_NODE_ARGS: extra node arguments for the app only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it under load.
  const extra = (process.env.BENCH_APP_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, ['--enable-source-maps', ...serviceNodeFlags(), ...extra, APP_ENTRY], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      APP_SECRET: process.env.APP_SECRET ?? randomBytes(32).toString('hex'),
      ROLES: 'api,relay,indexer',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      // All load comes from one address: the per-client limit stays on (its Redis round trip is part
      // of what a search costs) but so high that it never refuses.
      SEARCH_PUBLIC_REQUESTS_PER_MINUTE: process.env.SEARCH_PUBLIC_REQUESTS_PER_MINUTE ?? '1000000000',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return waitUntilReady(child, port);
}
