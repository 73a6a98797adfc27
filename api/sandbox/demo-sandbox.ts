/**
 * The demo shop of `npm start`: outside production and tests, the api role makes sure one sandbox
 * exists on this machine (created on the first start, kept across restarts) and logs where its shop,
 * console and token are, so a newcomer opens a browser on a working shop with the sandbox data.
 * Its id and token are kept in `.data/demo-sandbox.json` (mode 600), next to the other local secrets.
 * DEMO_SANDBOX=false turns it off. It runs in the background: the first creation computes the seed
 * image vectors once (about a minute on two cores) and the api answers meanwhile.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/config';
import type { DataSource } from 'typeorm';
import type { ContextServices } from '../../storage/request-context';
import { systemContext } from '../../storage/request-context';
import { createSandbox } from './sandbox.service';

export const DEMO_SANDBOX_FILE = path.join(PROJECT_ROOT, '.data', 'demo-sandbox.json');
const DEMO_EMAIL = 'demo@localhost.test';

interface DemoSandbox {
  storeId: string;
  token: string;
}

function readDemo(): DemoSandbox | undefined {
  if (!existsSync(DEMO_SANDBOX_FILE)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(DEMO_SANDBOX_FILE, 'utf8')) as Partial<DemoSandbox>;
    return typeof parsed.storeId === 'string' && typeof parsed.token === 'string'
      ? { storeId: parsed.storeId, token: parsed.token }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Makes sure the demo sandbox exists, then logs its addresses. Never throws: the demo is a convenience. */
export async function ensureDemoSandbox(runtime: { dataSource: DataSource; services: ContextServices }): Promise<void> {
  const { dataSource } = runtime;
  const { logger, config } = runtime.services;
  const base = config.publicBaseUrl;
  try {
    let demo = readDemo();
    if (demo) {
      const rows: Array<{ id: string }> = await dataSource.query('SELECT id FROM sandboxes WHERE store_id = $1', [demo.storeId]);
      if (rows.length === 0) demo = undefined;
    }
    if (!demo) {
      logger.info('demo shop: creating the sandbox data (the first time computes 100 image vectors, about a minute)');
      const ctx = {
        ...systemContext(dataSource, 'demo-sandbox', undefined, 'demo-sandbox', runtime.services),
        client: { ip: '127.0.0.1' },
      };
      const created = await createSandbox(ctx, { email: DEMO_EMAIL });
      demo = { storeId: created.storeId, token: created.token };
      mkdirSync(path.dirname(DEMO_SANDBOX_FILE), { recursive: true });
      writeFileSync(DEMO_SANDBOX_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
    }
    logger.info(
      { shop: `${base}/shop/${demo.storeId}`, console: `${base}/console`, token: `in ${path.relative(PROJECT_ROOT, DEMO_SANDBOX_FILE)}` },
      'demo shop ready',
    );
  } catch (error) {
    logger.warn({ err: error }, 'demo shop: could not prepare the sandbox data; create one from the start page instead');
  }
}
