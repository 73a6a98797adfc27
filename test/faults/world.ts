/**
 * Everything the fault tests share, set up once for the run by the root hooks (hooks.ts): a private
 * set of services, the platform as one process per role, two merchants, the webhook receiver, the
 * writer and the reader; and torn down at the end however the run went.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/config';
import { createStore, registerMerchant, type MerchantAccount } from './api';
import { Consistency } from './consistency';
import { ImageServer, WebhookReceiver } from './receivers';
import { RoleProcess, type RoleName } from './roles';
import { PrivateServices } from './services';
import { pidAlive } from './util';
import { Reader, Writer } from './workload';

export interface World {
  services: PrivateServices;
  db: Consistency;
  /** The platform: one api, one indexer, two jobs workers, one vision worker. */
  roles: { api: RoleProcess; indexer: RoleProcess; jobsA: RoleProcess; jobsB: RoleProcess; vision: RoleProcess };
  /** The merchant whose store the writer changes; its webhook endpoint points at the receiver. */
  shop: MerchantAccount & { storeId: string };
  /** A second tenant for imports and the shutdown test, so their products cause no webhooks of the shop. */
  bulk: MerchantAccount;
  receiver: WebhookReceiver;
  images: ImageServer;
  writer: Writer;
  reader: Reader;
  /** Every writer of the run (the shop's and the ones faults add), for the webhook check at the end. */
  writers: Writer[];
  artifacts: string;
  /** Another process of `role` with its own log (e.g. a second api for the shutdown test). */
  spawnRole(name: string, role: RoleName): RoleProcess;
}

let current: World | undefined;
const cleanups: Array<() => Promise<void>> = [];
const extraRoles: RoleProcess[] = [];

export function world(): World {
  if (!current) throw new Error('the fault suite is not set up (run it with --config .mocharc.faults.json)');
  return current;
}

function platformEnv(services: PrivateServices): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // test mode: the platform may then reach the receiver and the image server on 127.0.0.1
    // (WEBHOOK_ALLOW_ADDRESSES, VISION_FETCH_ALLOW_ADDRESSES are honoured only with NODE_ENV=test).
    NODE_ENV: 'test',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    MEILI_URL: services.meiliUrl,
    MEILI_MASTER_KEY: services.masterKey,
    HOST: '127.0.0.1',
    QUEUE_PREFIX: 'faults',
    // FAULTS_LOG_LEVEL=debug shows, e.g., each index write with its size and duration.
    LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'info',
    APP_SECRET: randomBytes(32).toString('hex'),
    DEMO_SANDBOX: 'false',
    ACCESS_TOKEN_TTL_SECONDS: '3600',
    WEBHOOK_ALLOW_ADDRESSES: '127.0.0.1',
    VISION_FETCH_ALLOW_ADDRESSES: '127.0.0.1',
    // Webhook retries and claim expiry scaled down so the final webhook check fits the run; webhook
    // timing is not one of the measured targets. The outbox settings stay at their defaults: they
    // decide the recovery times the suite measures.
    WEBHOOK_RETRY_DELAYS_MS: '1000,2000,4000,8000',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_CLAIM_TIMEOUT_MS: '15000',
    // Smaller import batches: a kill lands between many commits, and the import lasts long enough to be hit.
    IMPORT_BATCH_PRODUCTS: '250',
    VISION_CONCURRENCY: '2',
  };
}

export async function setUpWorld(): Promise<void> {
  const artifacts = path.join(PROJECT_ROOT, 'test-artifacts', 'faults');
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faults-'));
  const services = new PrivateServices(dir);
  cleanups.push(async () => {
    for (const name of ['postgres.log', 'redis.log', 'meilisearch.log'])
      fs.copyFileSync(path.join(services.logDir, name), path.join(artifacts, name));
  });
  cleanups.push(async () => {
    await services.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  installExitGuard(services, dir);
  await services.start();

  const receiver = new WebhookReceiver();
  const images = new ImageServer();
  await receiver.start();
  await images.start();
  cleanups.push(
    () => receiver.close(),
    () => images.close(),
  );
  const db = new Consistency(services.databaseUrl, services.meiliUrl, services.masterKey);
  cleanups.push(() => db.close());

  const env = platformEnv(services);
  const spawnRole = (name: string, role: RoleName): RoleProcess => {
    const proc = new RoleProcess(name, role, env, path.join(artifacts, `${name}.log`));
    extraRoles.push(proc);
    return proc;
  };
  const roles = {
    api: spawnRole('api', 'api'),
    indexer: spawnRole('indexer', 'indexer'),
    jobsA: spawnRole('jobs-a', 'jobs'),
    jobsB: spawnRole('jobs-b', 'jobs'),
    vision: spawnRole('vision', 'vision'),
  };
  // The api first: it applies the migrations; the workers then start together.
  await roles.api.start();
  await Promise.all([roles.indexer.start(), roles.jobsA.start(), roles.jobsB.start(), roles.vision.start()]);

  const shop = await registerMerchant(roles.api.baseUrl, 'shop');
  const storeId = await createStore(shop.api, 'Shop');
  const endpoint = await shop.api.expect(201, 'POST', '/api/v1/webhooks/endpoints', {
    body: { url: receiver.url, topics: ['product.created', 'product.updated'] },
  });
  receiver.secret = endpoint.secret;
  const bulk = await registerMerchant(roles.api.baseUrl, 'bulk');
  const writer = new Writer(shop.api, storeId, 'shop');
  current = {
    services,
    db,
    roles,
    shop: { ...shop, storeId },
    bulk,
    receiver,
    images,
    writer,
    reader: new Reader(shop.api, storeId),
    writers: [writer],
    artifacts,
    spawnRole,
  };
}

export async function tearDownWorld(): Promise<void> {
  if (current) {
    await Promise.all(current.writers.map((w) => w.stop()));
    await current.reader.stop();
  }
  // Stop every platform process before the services go, so none of them spends the end retrying.
  await Promise.all(extraRoles.map((p) => p.shutdown()));
  for (const cleanup of cleanups.splice(0))
    await cleanup().catch((error: unknown) => process.stderr.write(`fault suite cleanup: ${(error as Error).message}\n`));
  current = undefined;
}

/**
 * If mocha is interrupted (Ctrl-C) or exits without the after hooks, still leave nothing running:
 * kill the platform processes and the private services, and remove their data.
 */
function installExitGuard(services: PrivateServices, dir: string): void {
  process.once('exit', () => {
    for (const p of extraRoles) if (p.pid) process.kill(p.pid, 'SIGKILL');
    if (!fs.existsSync(dir)) return;
    for (const name of ['meilisearch', 'redis', 'postgres'] as const) {
      try {
        const pid = services.pidOf(name);
        if (pidAlive(pid)) process.kill(pid, name === 'postgres' ? 'SIGQUIT' : 'SIGKILL');
      } catch {
        // not running
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  process.once('SIGINT', () => process.exit(130));
}
