/**
 * The one place that reads the environment. Every process (whatever its roles) calls
 * loadConfig() at start; anything invalid stops the process with a message naming the variable
 * and how to fix it, instead of failing later somewhere deep inside a driver.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Joi from 'joi';

/** The repository root: the nearest folder above this file holding package.json (works from dist/ too). */
export const PROJECT_ROOT = findProjectRoot(__dirname);

function findProjectRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
  return dir;
}

/**
 * Where the project-local services of scripts/services listen; PG_PORT, REDIS_PORT and MEILI_PORT
 * move them, exactly as they move the script.
 */
export function localServices(env: NodeJS.ProcessEnv = process.env) {
  const pgPort = env.PG_PORT || '55432';
  return {
    databaseUrl: `postgres://postgres@127.0.0.1:${pgPort}/commerce`,
    testDatabaseUrl: `postgres://postgres@127.0.0.1:${pgPort}/commerce_test`,
    redisUrl: `redis://127.0.0.1:${env.REDIS_PORT || '56379'}`,
    meiliUrl: `http://127.0.0.1:${env.MEILI_PORT || '57700'}`,
    /** The n-th local Meilisearch (n ≥ 2, with MEILI_NODES_LOCAL) listens n − 1 ports above MEILI_PORT. */
    meiliLocalNodeUrl: (n: number) => `http://127.0.0.1:${Number(env.MEILI_PORT || '57700') + n - 1}`,
    meiliMasterKeyFile: path.join(PROJECT_ROOT, '.data', 'meili-master-key'),
  };
}

/** One named Meilisearch instance (docs/scaling.md). */
export interface MeiliNodeConfig {
  name: string;
  url: string;
  masterKey: string;
}

/** A node's name: lower-case letters, digits and hyphens, starting with a letter. */
export const MEILI_NODE_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export type NodeEnv = 'development' | 'test' | 'production';
export type ProcessRole = 'api' | 'relay' | 'indexer' | 'vision' | 'jobs';
export const PROCESS_ROLES: readonly ProcessRole[] = ['api', 'relay', 'indexer', 'vision', 'jobs'];

export interface Config {
  nodeEnv: NodeEnv;
  host: string;
  port: number;
  /** Behind a reverse proxy: take the client address from X-Forwarded-For (rate limits, sessions, audit). */
  trustProxy: boolean;
  logLevel: string;
  /** auto: one readable line per entry when stdout is a terminal, JSON lines otherwise (for log collectors). */
  logFormat: 'auto' | 'pretty' | 'json';
  databaseUrl: string;
  dbPoolSize: number;
  runMigrationsAtStart: boolean;
  redisUrl: string;
  /** Key prefix of the bee-queue queues in Redis. */
  queuePrefix: string;
  /**
   * A job whose worker stopped refreshing it for this long is handed to another worker (every worker
   * checks at this interval, so a dead worker's job runs again within about twice this time).
   */
  queueStallIntervalMs: number;
  /** Worker-only processes serve /livez and /readyz on this port (unset: no HTTP at all). */
  healthPort?: number;
  /** /metrics on a listener of its own (any process; unset: on the api port, or the health server of a worker-only process). */
  metricsPort?: number;
  /** The interface the metrics listener binds to (default 127.0.0.1). */
  metricsHost: string;
  /** When set, /metrics needs `Authorization: Bearer <token>` wherever it is served. */
  metricsToken?: string;
  /** How often each process probes PostgreSQL, Redis and Meilisearch (state changes, catch-up, readiness). */
  healthProbeIntervalMs: number;
  /** The first (or only) Meilisearch node: `main`, or the first of MEILI_NODES. */
  meiliUrl: string;
  meiliMasterKey: string;
  /**
   * Every Meilisearch node when there are several (MEILI_NODES, or MEILI_NODES_LOCAL ≥ 2); absent
   * with one, which is then `main` at meiliUrl (search/meili-nodes.ts nodeConfigsOf).
   */
  meiliNodes?: MeiliNodeConfig[];
  bodyLimitJsonBytes: number;
  bodyLimitCsvBytes: number;
  /** Largest HTML form body the storefront and console pages read (urlencoded). */
  bodyLimitFormBytes: number;
  outbox: {
    pollIntervalMs: number;
    batchSize: number;
    reclaimAfterMs: number;
    retryBaseMs: number;
    retryMaxMs: number;
  };
  shutdownTimeoutMs: number;
  roles: ProcessRole[];
  /** With the api role: how many api processes share its port (app/cluster.ts; 1: this process serves it alone). */
  apiProcesses: number;
  /** Root secret: access-token signing and at-rest encryption keys are derived from it. */
  appSecret: string;
  /** Where this API is reached by people (links in e-mails, the device verification URI). */
  publicBaseUrl: string;
  auth: {
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    emailTokenTtlSeconds: number;
    registrationOpen: boolean;
    deviceCodeTtlSeconds: number;
    deviceCodeIntervalSeconds: number;
  };
  /** smtp(s)://user:pass@host:port; unset: messages are recorded in outbound_messages only. */
  smtpUrl?: string;
  mailFrom: string;
  /** Visual search: image fetching, uploads, the embedders and the worker (docs/search.md, "Visual search"). */
  vision: VisionConfig;
  /** Product bulk edits of at most `syncMax` products run within the request; larger ones on the jobs worker. */
  bulkEdits: { syncMax: number };
  /** Public search answers cached in each api process (docs/search.md, "Public search and suggest"). */
  search: {
    cacheMaxBytes: number;
    cacheTtlMs: number;
    splitMaxInFlight: number;
    /** Public search and suggest requests per client address and minute, together (429 above). */
    publicRequestsPerMinute: number;
    /** Distinct zero-result queries kept per store; the least recently seen make room for new ones. */
    zeroResultQueriesPerStore: number;
    /** A client's views of one product count once per this many seconds (the most_viewed sort). */
    productViewWindowSeconds: number;
  };
  /** Pause between passes of the pricing window scheduler (jobs role). */
  pricingSchedulerIntervalMs: number;
  /** The api role keeps a demo sandbox with the seed data on this machine (`npm start`). */
  demoSandbox: boolean;
  /** Outbound webhook deliveries (docs/webhooks.md). */
  webhooks: WebhookConfig;
  /** Storefront render budgets per section (docs/storefront.md, "Render budgets"). */
  renderBudgets: RenderBudgetConfig;
  /** The support desk (docs/support.md, "SLA"). */
  support: SupportConfig;
  /**
   * Payments (docs/payments.md): whether the built-in payment simulator may answer for the providers
   * (PAYMENT_SIMULATOR_ALLOWED; default true outside production, false in production).
   */
  payments: { simulatorAllowed: boolean };
  /** Billing (docs/billing.md, "Dunning"): dunning step delays and the jobs worker's pass interval. */
  billing: { dunningGraceAfterMs: number; dunningSuspendAfterMs: number; dunningIntervalMs: number };
  /**
   * Wallet domain verification (docs/checkout.md, "Domain association"): where the association file
   * of a domain is fetched (`{domain}` replaced; https on port 443 outside tests) and the addresses
   * that fetch may reach although not public. Neither comes from the environment: only tests change
   * them (a local HTTP server).
   */
  wallets: { verifyBaseUrl: string; allowAddresses: string[] };
  /** Client error intake and retention (docs/client-errors.md). */
  clientErrors: { retentionDays: number; batchesPerMinute: number };
}

/** SLA targets of one ticket priority, in hours from the ticket's creation. */
export interface SupportSla {
  firstResponseHours: number;
  resolutionHours: number;
}

export interface SupportConfig {
  sla: Record<'URGENT' | 'HIGH' | 'NORMAL' | 'LOW', SupportSla>;
}

export interface RenderBudget {
  /** Wall-clock milliseconds for the section's data calls and its Liquid render. */
  ms: number;
  /** Operations: Liquid template nodes rendered (loops count every pass) plus data calls. */
  ops: number;
  /** Bytes of HTML the section may produce. */
  bytes: number;
}

export interface RenderBudgetConfig {
  defaults: RenderBudget;
  /** Per section type, from RENDER_BUDGET_OVERRIDES (`featured-products:bytes=2000,ms=50;search-results:ops=500`). */
  overrides: Record<string, Partial<RenderBudget>>;
}

export interface WebhookConfig {
  /** Delays before attempts 2, 3, 4 and 5 (by default 30 s, 2 min, 10 min, 1 h; docs/decisions.md, Time-scaled behaviour). */
  retryDelaysMs: number[];
  /** Deadline of one delivery request (connect, send, answer). */
  timeoutMs: number;
  /** How often the dispatcher looks for due deliveries when nothing wakes it. */
  pollIntervalMs: number;
  /** A delivery claimed by a dispatcher that died is claimed again after this long. */
  claimTimeoutMs: number;
  /** Deliveries one dispatcher sends at the same time. */
  concurrency: number;
  /** Test only: IP addresses deliveries may reach although not public (ignored unless NODE_ENV=test). */
  allowAddresses: string[];
}

export interface VisionConfig {
  /** A local CLIP model folder (Xenova layout); unset: only the default MobileNetV2 model is offered. */
  clipModelDir?: string;
  fetchTimeoutMs: number;
  fetchMaxBytes: number;
  maxRedirects: number;
  uploadMaxBytes: number;
  /** Decoded width × height above which an image is refused (decompression bombs). */
  maxPixels: number;
  /** Test only: IP addresses the image fetcher may reach although not public (ignored unless NODE_ENV=test). */
  fetchAllowAddresses: string[];
  batchSize: number;
  concurrency: number;
  maxAttempts: number;
  /** Public query-by-image requests per client address and minute. */
  publicQueriesPerMinute: number;
  /** Where the mobilenet-v2 model runs: onnxruntime's native kernels, or the tfjs wasm backend. */
  mobilenetRuntime: 'onnx' | 'tfjs';
  /** Threads one model's inference may use (onnxruntime's intra-op threads). */
  inferenceThreads: number;
  /** Query images whose vector a process keeps, by content hash and model (0: none). */
  queryCacheSize: number;
  /** Most query images embedded in one inference call. */
  queryBatchSize: number;
  /** How long a query waits for others to join its batch when the model is idle. */
  queryBatchLingerMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

interface VariableSpec {
  schema: Joi.Schema;
  /** What to do about a bad value; printed with the error. */
  fix: string;
}

const byteSize = Joi.string().pattern(/^\d+(b|kb|mb|gb)?$/i);
const millis = (min: number, max: number) => Joi.number().integer().min(min).max(max);
const databaseUrl = Joi.string().uri({ scheme: ['postgres', 'postgresql'] });

const VARIABLES: Record<string, VariableSpec> = {
  NODE_ENV: {
    schema: Joi.string().valid('development', 'test', 'production').default('development'),
    fix: 'use development, test or production',
  },
  TRUST_PROXY: {
    schema: Joi.boolean().truthy('1').falsy('0').default(false),
    fix: 'set true only behind a reverse proxy that sets X-Forwarded-For',
  },
  HOST: { schema: Joi.string().hostname().default('0.0.0.0'), fix: 'set an interface address such as 127.0.0.1 or 0.0.0.0' },
  PORT: { schema: Joi.number().integer().min(1).max(65535).default(3000), fix: 'set a free TCP port, e.g. PORT=3000' },
  LOG_LEVEL: {
    schema: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
    fix: 'use one of fatal, error, warn, info, debug, trace, silent',
  },
  LOG_FORMAT: {
    schema: Joi.string().valid('auto', 'pretty', 'json').default('auto'),
    fix: 'use auto (readable lines on a terminal, JSON otherwise), pretty or json',
  },
  DATABASE_URL: {
    schema: databaseUrl,
    fix: 'set a PostgreSQL URL such as postgres://user:password@host:5432/db, or unset it to use the local services (npm run services -- start)',
  },
  DB_POOL_SIZE: { schema: Joi.number().integer().min(1).max(200).default(10), fix: 'set an integer between 1 and 200' },
  MIGRATIONS_RUN: { schema: Joi.boolean().truthy('1').falsy('0').default(true), fix: 'set true or false' },
  REDIS_URL: {
    schema: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
    fix: 'set a Redis URL such as redis://host:6379, or unset it to use the local services',
  },
  QUEUE_PREFIX: {
    schema: Joi.string()
      .pattern(/^[A-Za-z0-9:_-]{1,40}$/)
      .default('bq'),
    fix: 'set letters, digits, colon, underscore or hyphen (at most 40)',
  },
  QUEUE_STALL_INTERVAL_MS: {
    schema: millis(1_000, 300_000).default(5_000),
    fix: 'set milliseconds between 1000 and 300000 (default 5000)',
  },
  HEALTH_PORT: {
    schema: Joi.number().integer().min(1).max(65535),
    fix: 'set a free TCP port for /livez and /readyz of a worker-only process, or unset it',
  },
  HEALTH_PROBE_INTERVAL_MS: { schema: millis(100, 60_000).default(1_000), fix: 'set milliseconds between 100 and 60000 (default 1000)' },
  METRICS_PORT: {
    schema: Joi.number().integer().min(1).max(65535),
    fix: 'set a free TCP port for /metrics on a listener of its own, or unset it (then /metrics is on the api port or HEALTH_PORT)',
  },
  METRICS_HOST: {
    schema: Joi.string().hostname().default('127.0.0.1'),
    fix: 'set the interface address of the metrics listener, e.g. 10.0.0.5',
  },
  METRICS_TOKEN: {
    schema: Joi.string().pattern(/^[\x21-\x7e]{16,512}$/),
    fix: 'set 16 to 512 printable ASCII characters without spaces (e.g. openssl rand -hex 32), or unset it',
  },
  MEILI_URL: {
    schema: Joi.string().uri({ scheme: ['http', 'https'] }),
    fix: 'set the Meilisearch address such as http://host:7700, or unset it to use the local services',
  },
  MEILI_MASTER_KEY: {
    schema: Joi.string().min(16).max(512),
    fix: 'set the master key of the Meilisearch server (at least 16 bytes); with the local services it is read from .data/meili-master-key',
  },
  MEILI_NODES: {
    schema: Joi.string().max(4096),
    fix: 'list the nodes as name=url pairs separated by commas, e.g. main=http://10.0.0.5:7700,second=http://10.0.0.6:7700 (each key in MEILI_MASTER_KEY_<NAME>, else MEILI_MASTER_KEY)',
  },
  MEILI_NODES_LOCAL: {
    schema: Joi.number().integer().min(1).max(4).default(1),
    fix: 'set how many local Meilisearch servers scripts/services runs (1 to 4), the same value for both',
  },
  BODY_LIMIT_JSON: { schema: byteSize.default('1mb'), fix: 'set a size such as 1mb or 512kb' },
  BODY_LIMIT_CSV: { schema: byteSize.default('64mb'), fix: 'set a size such as 64mb' },
  BODY_LIMIT_FORM: { schema: byteSize.default('64kb'), fix: 'set a size such as 64kb' },
  OUTBOX_POLL_INTERVAL_MS: { schema: millis(10, 60_000).default(250), fix: 'set milliseconds between 10 and 60000' },
  OUTBOX_BATCH_SIZE: { schema: Joi.number().integer().min(1).max(5000).default(200), fix: 'set an integer between 1 and 5000' },
  OUTBOX_RECLAIM_AFTER_MS: { schema: millis(100, 86_400_000).default(60_000), fix: 'set milliseconds between 100 and 86400000' },
  OUTBOX_RETRY_BASE_MS: { schema: millis(1, 3_600_000).default(1_000), fix: 'set milliseconds between 1 and 3600000' },
  OUTBOX_RETRY_MAX_MS: { schema: millis(1, 86_400_000).default(300_000), fix: 'set milliseconds between 1 and 86400000' },
  SEARCH_CACHE_SIZE: { schema: byteSize.default('64mb'), fix: 'set a size such as 64mb (0 turns the public search cache off)' },
  DEMO_SANDBOX: {
    schema: Joi.boolean().truthy('1').falsy('0'),
    fix: 'set true or false (default: true in development, false in test and production)',
  },
  PRICING_SCHEDULER_INTERVAL_MS: {
    schema: millis(100, 600_000).default(3_000),
    fix: 'set milliseconds between 100 and 600000 (default 3000)',
  },
  SEARCH_CACHE_TTL_MS: { schema: millis(0, 3_600_000).default(30_000), fix: 'set milliseconds between 0 and 3600000 (default 30000)' },
  SEARCH_SPLIT_MAX_IN_FLIGHT: {
    schema: Joi.number().integer().min(0).max(1_000).default(1),
    fix: 'set a whole number between 0 and 1000 (default 1; 0 never splits)',
  },
  SEARCH_PUBLIC_REQUESTS_PER_MINUTE: {
    schema: Joi.number().integer().min(1).max(1_000_000_000).default(1_200),
    fix: 'set an integer between 1 and 1000000000 (default 1200): public search and suggest requests per client address and minute',
  },
  ZERO_RESULT_QUERIES_PER_STORE: {
    schema: Joi.number().integer().min(1).max(1_000_000).default(10_000),
    fix: 'set an integer between 1 and 1000000 (default 10000): distinct zero-result queries kept per store',
  },
  PRODUCT_VIEW_WINDOW_SECONDS: {
    schema: Joi.number().integer().min(1).max(2_592_000).default(3_600),
    fix: 'set seconds between 1 and 2592000 (default 3600): how long one client counts as one viewer of a product',
  },
  SHUTDOWN_TIMEOUT_MS: { schema: millis(100, 600_000).default(10_000), fix: 'set milliseconds between 100 and 600000' },
  APP_SECRET: {
    schema: Joi.string().min(32).max(512),
    fix: 'set a random string of at least 32 characters (e.g. openssl rand -hex 32); outside production it is generated into .data/app-secret',
  },
  PUBLIC_BASE_URL: {
    schema: Joi.string().uri({ scheme: ['http', 'https'] }),
    fix: 'set the address people reach this API at, e.g. https://api.example.org',
  },
  ACCESS_TOKEN_TTL_SECONDS: {
    schema: Joi.number().integer().min(5).max(86_400).default(900),
    fix: 'set seconds between 5 and 86400 (default 900 = 15 minutes)',
  },
  REFRESH_TOKEN_TTL_SECONDS: {
    schema: Joi.number().integer().min(60).max(31_536_000).default(2_592_000),
    fix: 'set seconds between 60 and 31536000 (default 30 days)',
  },
  EMAIL_TOKEN_TTL_SECONDS: {
    schema: Joi.number().integer().min(60).max(604_800).default(86_400),
    fix: 'set seconds between 60 and 604800 (default 24 hours)',
  },
  REGISTRATION_OPEN: { schema: Joi.boolean().truthy('1').falsy('0').default(true), fix: 'set true or false' },
  DEVICE_CODE_TTL_SECONDS: {
    schema: Joi.number().integer().min(10).max(3_600).default(900),
    fix: 'set seconds between 10 and 3600 (default 900)',
  },
  DEVICE_CODE_INTERVAL_SECONDS: {
    schema: Joi.number().integer().min(1).max(60).default(5),
    fix: 'set seconds between 1 and 60 (default 5)',
  },
  SMTP_URL: {
    schema: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
    fix: 'set smtp://user:password@host:587 or smtps://…:465, or unset it to record messages locally',
  },
  MAIL_FROM: {
    schema: Joi.string().max(320).default('Commerce platform <no-reply@localhost>'),
    fix: 'set a sender such as "Shop <no-reply@example.org>"',
  },
  VISION_CLIP_MODEL_DIR: {
    schema: Joi.string().max(1024),
    fix: 'set the folder holding a CLIP model in the Xenova layout (config.json, tokenizer files, onnx/vision_model.onnx, onnx/text_model.onnx), or unset it',
  },
  VISION_FETCH_TIMEOUT_MS: { schema: millis(100, 120_000).default(10_000), fix: 'set milliseconds between 100 and 120000 (default 10000)' },
  VISION_FETCH_MAX_BYTES: { schema: byteSize.default('10mb'), fix: 'set a size such as 10mb' },
  VISION_MAX_REDIRECTS: { schema: Joi.number().integer().min(0).max(10).default(3), fix: 'set an integer between 0 and 10' },
  VISION_UPLOAD_MAX_BYTES: { schema: byteSize.default('8mb'), fix: 'set a size such as 8mb' },
  VISION_MAX_PIXELS: {
    schema: Joi.number().integer().min(10_000).max(1_000_000_000).default(40_000_000),
    fix: 'set an integer between 10000 and 1000000000 (default 40000000)',
  },
  VISION_FETCH_ALLOW_ADDRESSES: {
    schema: Joi.string().pattern(/^[0-9a-fA-F:.]+(,[0-9a-fA-F:.]+)*$/),
    fix: 'set a comma-separated list of IP addresses, only in tests (ignored unless NODE_ENV=test)',
  },
  VISION_BATCH_SIZE: { schema: Joi.number().integer().min(1).max(64).default(8), fix: 'set an integer between 1 and 64' },
  VISION_CONCURRENCY: { schema: Joi.number().integer().min(1).max(64).default(8), fix: 'set an integer between 1 and 64' },
  VISION_MAX_ATTEMPTS: { schema: Joi.number().integer().min(1).max(20).default(5), fix: 'set an integer between 1 and 20' },
  VISION_PUBLIC_QUERIES_PER_MINUTE: {
    schema: Joi.number().integer().min(1).max(100_000).default(30),
    fix: 'set an integer between 1 and 100000',
  },
  VISION_MOBILENET_RUNTIME: { schema: Joi.string().valid('onnx', 'tfjs').default('onnx'), fix: 'set onnx or tfjs (default onnx)' },
  VISION_INFERENCE_THREADS: {
    schema: Joi.number().integer().min(1).max(64).default(1),
    fix: 'set an integer between 1 and 64 (default 1)',
  },
  VISION_QUERY_CACHE_SIZE: {
    schema: Joi.number().integer().min(0).max(1_000_000).default(1000),
    fix: 'set an integer between 0 and 1000000 (default 1000; 0 turns the cache off)',
  },
  VISION_QUERY_BATCH_SIZE: { schema: Joi.number().integer().min(1).max(64).default(8), fix: 'set an integer between 1 and 64 (default 8)' },
  VISION_QUERY_BATCH_LINGER_MS: {
    schema: Joi.number().integer().min(0).max(100).default(0),
    fix: 'set milliseconds between 0 and 100 (default 0)',
  },
  WEBHOOK_RETRY_DELAYS_MS: {
    schema: Joi.string()
      .pattern(/^\d{1,8},\d{1,8},\d{1,8},\d{1,8}$/)
      .default('30000,120000,600000,3600000'),
    fix: 'set four comma-separated delays in milliseconds (before attempts 2 to 5), each at most 99999999; default 30000,120000,600000,3600000',
  },
  WEBHOOK_TIMEOUT_MS: { schema: millis(100, 60_000).default(10_000), fix: 'set milliseconds between 100 and 60000 (default 10000)' },
  WEBHOOK_POLL_INTERVAL_MS: { schema: millis(10, 60_000).default(1_000), fix: 'set milliseconds between 10 and 60000 (default 1000)' },
  WEBHOOK_CLAIM_TIMEOUT_MS: {
    schema: millis(1_000, 3_600_000).default(60_000),
    fix: 'set milliseconds between 1000 and 3600000, above WEBHOOK_TIMEOUT_MS (default 60000)',
  },
  WEBHOOK_CONCURRENCY: { schema: Joi.number().integer().min(1).max(256).default(16), fix: 'set an integer between 1 and 256' },
  WEBHOOK_ALLOW_ADDRESSES: {
    schema: Joi.string().pattern(/^[0-9a-fA-F:.]+(,[0-9a-fA-F:.]+)*$/),
    fix: 'set a comma-separated list of IP addresses, only in tests (ignored unless NODE_ENV=test)',
  },
  RENDER_BUDGET_MS: {
    schema: Joi.number().integer().min(1).max(60_000).default(1_500),
    fix: 'set milliseconds between 1 and 60000 (default 1500): time one storefront section may take (data calls and render)',
  },
  RENDER_BUDGET_OPS: {
    schema: Joi.number().integer().min(1).max(10_000_000).default(50_000),
    fix: 'set an integer between 1 and 10000000 (default 50000): Liquid render steps plus data calls one storefront section may take',
  },
  RENDER_BUDGET_BYTES: { schema: byteSize.default('256kb'), fix: 'set a size such as 256kb: HTML one storefront section may produce' },
  RENDER_BUDGET_OVERRIDES: {
    schema: Joi.string().pattern(
      /^[a-z0-9-]+:(ms|ops|bytes)=\d+(,(ms|ops|bytes)=\d+)*(;[a-z0-9-]+:(ms|ops|bytes)=\d+(,(ms|ops|bytes)=\d+)*)*$/,
    ),
    fix: 'set section budgets as type:key=value[,key=value][;type:...] with keys ms, ops, bytes, e.g. featured-products:bytes=2000;search-results:ms=500',
  },
  BILLING_DUNNING_GRACE_AFTER_MS: {
    schema: millis(1, 31_536_000_000).default(259_200_000),
    fix: 'set milliseconds between 1 and 31536000000 (default 259200000, 3 days): from a dunning reminder to the grace step',
  },
  BILLING_DUNNING_SUSPEND_AFTER_MS: {
    schema: millis(1, 31_536_000_000).default(604_800_000),
    fix: 'set milliseconds between 1 and 31536000000 (default 604800000, 7 days): from the grace step to suspending the tenant',
  },
  BILLING_DUNNING_INTERVAL_MS: {
    schema: millis(100, 3_600_000).default(60_000),
    fix: 'set milliseconds between 100 and 3600000 (default 60000): pause between passes of the dunning scheduler',
  },
  PAYMENT_SIMULATOR_ALLOWED: {
    schema: Joi.boolean(),
    fix: 'set true or false (default: true outside production, false in production): whether the built-in payment simulator answers for iyzico, stripe and adyen',
  },
  SUPPORT_SLA_URGENT: {
    schema: Joi.string()
      .pattern(/^\d{1,4},\d{1,4}$/)
      .default('1,8'),
    fix: 'set "first-response hours,resolution hours" for URGENT tickets, each 1 to 8760 and the first at most the second (default 1,8)',
  },
  SUPPORT_SLA_HIGH: {
    schema: Joi.string()
      .pattern(/^\d{1,4},\d{1,4}$/)
      .default('4,24'),
    fix: 'set "first-response hours,resolution hours" for HIGH tickets, each 1 to 8760 and the first at most the second (default 4,24)',
  },
  SUPPORT_SLA_NORMAL: {
    schema: Joi.string()
      .pattern(/^\d{1,4},\d{1,4}$/)
      .default('8,48'),
    fix: 'set "first-response hours,resolution hours" for NORMAL tickets, each 1 to 8760 and the first at most the second (default 8,48)',
  },
  SUPPORT_SLA_LOW: {
    schema: Joi.string()
      .pattern(/^\d{1,4},\d{1,4}$/)
      .default('24,120'),
    fix: 'set "first-response hours,resolution hours" for LOW tickets, each 1 to 8760 and the first at most the second (default 24,120)',
  },
  BULK_SYNC_MAX: {
    schema: Joi.number().integer().min(0).max(10_000).default(500),
    fix: 'set an integer between 0 and 10000 (default 500): bulk edits of more products run on the jobs worker',
  },
  CLIENT_ERROR_RETENTION_DAYS: {
    schema: Joi.number().integer().min(1).max(365).default(30),
    fix: 'set days between 1 and 365 (default 30): how long reported client errors are kept before the jobs worker prunes them',
  },
  CLIENT_ERROR_BATCHES_PER_MINUTE: {
    schema: Joi.number().integer().min(1).max(1_000_000_000).default(60),
    fix: 'set an integer between 1 and 1000000000 (default 60): client error batches accepted per client address and minute',
  },
  API_PROCESSES: {
    schema: Joi.number().integer().min(1).max(64).default(1),
    fix: 'set an integer between 1 and 64 (default 1): api processes sharing PORT when ROLES includes api',
  },
  ROLES: {
    schema: Joi.string()
      .pattern(/^(api|relay|indexer|vision|jobs)(,(api|relay|indexer|vision|jobs))*$/)
      .default('api,relay,indexer,vision,jobs'),
    fix: 'set a comma-separated subset of api,relay,indexer,vision,jobs',
  },
};

/** How a bad value is echoed: secrets never, passwords inside URLs masked. */
function shown(name: string, raw: string | undefined): string {
  if (raw === undefined) return '(unset)';
  if (/SECRET|KEY|PASSWORD|^METRICS_TOKEN$/.test(name)) return '(hidden)';
  return JSON.stringify(raw.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@'));
}

export function parseByteSize(value: string): number {
  const match = /^(\d+)(b|kb|mb|gb)?$/i.exec(value);
  if (!match) throw new Error(`not a size: ${value}`);
  const unit = (match[2] ?? 'b').toLowerCase();
  const factor = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[unit] ?? 1;
  return Number(match[1]) * factor;
}

function readMasterKeyFile(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Meilisearch nodes when there are several: MEILI_NODES (`name=url,…`, each node's key from
 * MEILI_MASTER_KEY_<NAME> with hyphens as underscores, else MEILI_MASTER_KEY), or with the local
 * services and MEILI_NODES_LOCAL ≥ 2, `main` plus `local-2`… one port apart, sharing the local key.
 */
function meiliNodesOf(
  env: NodeJS.ProcessEnv,
  values: Record<string, unknown>,
  defaultKey: string | undefined,
  local: ReturnType<typeof localServices>,
  problems: string[],
): MeiliNodeConfig[] | undefined {
  const listed = values.MEILI_NODES as string | undefined;
  if (listed === undefined) {
    const count = (values.MEILI_NODES_LOCAL as number | undefined) ?? 1;
    const usingLocal = (env.MEILI_URL ?? '') === '';
    if (count < 2 || !usingLocal || !defaultKey) return undefined;
    return Array.from({ length: count }, (_, i) => ({
      name: i === 0 ? 'main' : `local-${i + 1}`,
      url: i === 0 ? local.meiliUrl : local.meiliLocalNodeUrl(i + 1),
      masterKey: defaultKey,
    }));
  }
  const nodes: MeiliNodeConfig[] = [];
  for (const entry of listed
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    const name = at > 0 ? entry.slice(0, at).trim() : '';
    const url = at > 0 ? entry.slice(at + 1).trim() : '';
    if (
      !MEILI_NODE_NAME.test(name) ||
      Joi.string()
        .uri({ scheme: ['http', 'https'] })
        .validate(url).error
    ) {
      problems.push(
        `MEILI_NODES entry ${JSON.stringify(entry)} is invalid; fix: write name=url, the name in lower-case letters, digits and hyphens (up to 32), the url http(s)://host:port`,
      );
      continue;
    }
    if (nodes.some((n) => n.name === name)) {
      problems.push(`MEILI_NODES names the node ${name} twice; fix: give every node its own name`);
      continue;
    }
    const keyVariable = `MEILI_MASTER_KEY_${name.toUpperCase().replace(/-/g, '_')}`;
    const masterKey = env[keyVariable] || defaultKey;
    if (!masterKey || masterKey.length < 16) {
      problems.push(`${keyVariable} (or MEILI_MASTER_KEY) must be set to node ${name}'s master key of at least 16 bytes; fix: set it`);
      continue;
    }
    nodes.push({ name, url, masterKey });
  }
  if (nodes.length === 0 && !problems.some((p) => p.startsWith('MEILI_')))
    problems.push('MEILI_NODES lists no node; fix: list at least one name=url');
  return nodes.length > 0 ? nodes : undefined;
}

/** Development and test only: a random secret kept under .data/ so tokens survive restarts. */
function localAppSecret(file: string): string {
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  const secret = randomBytes(32).toString('hex');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * Validates `env` and returns the typed configuration, or throws ConfigError listing every problem.
 * Unset service URLs fall back to the project-local services of scripts/services.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const local = localServices(env);
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(VARIABLES)) {
    const raw = env[name] === '' ? undefined : env[name];
    const { value, error } = spec.schema.validate(raw, { convert: true });
    if (error) {
      problems.push(`${name}=${shown(name, raw)} is invalid (${error.message.replace(/^"value" /, '')}); fix: ${spec.fix}`);
    } else {
      values[name] = value;
    }
  }
  const nodeEnv = (values.NODE_ENV ?? 'development') as NodeEnv;
  const usingLocalMeili = env.MEILI_URL === undefined || env.MEILI_URL === '';
  const meiliMasterKey =
    (values.MEILI_MASTER_KEY as string | undefined) ?? (usingLocalMeili ? readMasterKeyFile(local.meiliMasterKeyFile) : undefined);
  if (!meiliMasterKey && values.MEILI_NODES === undefined && !problems.some((p) => p.startsWith('MEILI_MASTER_KEY'))) {
    problems.push(
      usingLocalMeili
        ? `MEILI_MASTER_KEY is not set and ${local.meiliMasterKeyFile} does not exist; fix: start the local services (npm run services -- start) or set MEILI_URL and MEILI_MASTER_KEY`
        : "MEILI_MASTER_KEY is required when MEILI_URL points at an existing server; fix: set it to that server's master key",
    );
  }
  const meiliNodes = meiliNodesOf(env, values, meiliMasterKey, local, problems);
  const retryBase = values.OUTBOX_RETRY_BASE_MS as number;
  const retryMax = values.OUTBOX_RETRY_MAX_MS as number;
  if (retryBase !== undefined && retryMax !== undefined && retryMax < retryBase) {
    problems.push(`OUTBOX_RETRY_MAX_MS (${retryMax}) is below OUTBOX_RETRY_BASE_MS (${retryBase}); fix: raise OUTBOX_RETRY_MAX_MS`);
  }
  let appSecret = values.APP_SECRET as string | undefined;
  if (!appSecret && !problems.some((p) => p.startsWith('APP_SECRET'))) {
    if (nodeEnv === 'production')
      problems.push('APP_SECRET is required in production; fix: set a random string of at least 32 characters (e.g. openssl rand -hex 32)');
    else appSecret = localAppSecret(path.join(PROJECT_ROOT, '.data', 'app-secret'));
  }
  if (
    values.WEBHOOK_CLAIM_TIMEOUT_MS !== undefined &&
    values.WEBHOOK_TIMEOUT_MS !== undefined &&
    (values.WEBHOOK_CLAIM_TIMEOUT_MS as number) <= (values.WEBHOOK_TIMEOUT_MS as number)
  ) {
    problems.push(
      `WEBHOOK_CLAIM_TIMEOUT_MS (${values.WEBHOOK_CLAIM_TIMEOUT_MS as number}) must be above WEBHOOK_TIMEOUT_MS (${values.WEBHOOK_TIMEOUT_MS as number}); fix: raise WEBHOOK_CLAIM_TIMEOUT_MS`,
    );
  }
  const supportSla = {} as SupportConfig['sla'];
  for (const priority of ['URGENT', 'HIGH', 'NORMAL', 'LOW'] as const) {
    const raw = values[`SUPPORT_SLA_${priority}`] as string | undefined;
    if (raw === undefined) continue;
    const [firstResponseHours, resolutionHours] = raw.split(',').map(Number) as [number, number];
    if (firstResponseHours < 1 || resolutionHours > 8760 || firstResponseHours > resolutionHours)
      problems.push(
        `SUPPORT_SLA_${priority}=${JSON.stringify(raw)} is invalid; fix: set "first-response hours,resolution hours", each 1 to 8760 and the first at most the second`,
      );
    supportSla[priority] = { firstResponseHours, resolutionHours };
  }
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    nodeEnv,
    host: values.HOST as string,
    trustProxy: values.TRUST_PROXY as boolean,
    port: values.PORT as number,
    logLevel: values.LOG_LEVEL as string,
    logFormat: values.LOG_FORMAT as Config['logFormat'],
    databaseUrl: (values.DATABASE_URL as string | undefined) ?? (nodeEnv === 'test' ? local.testDatabaseUrl : local.databaseUrl),
    dbPoolSize: values.DB_POOL_SIZE as number,
    runMigrationsAtStart: values.MIGRATIONS_RUN as boolean,
    redisUrl: (values.REDIS_URL as string | undefined) ?? local.redisUrl,
    queuePrefix: values.QUEUE_PREFIX as string,
    queueStallIntervalMs: values.QUEUE_STALL_INTERVAL_MS as number,
    healthPort: values.HEALTH_PORT as number | undefined,
    metricsPort: values.METRICS_PORT as number | undefined,
    metricsHost: values.METRICS_HOST as string,
    metricsToken: values.METRICS_TOKEN as string | undefined,
    healthProbeIntervalMs: values.HEALTH_PROBE_INTERVAL_MS as number,
    meiliUrl: meiliNodes?.[0]!.url ?? (values.MEILI_URL as string | undefined) ?? local.meiliUrl,
    meiliMasterKey: meiliNodes?.[0]!.masterKey ?? (meiliMasterKey as string),
    ...(meiliNodes ? { meiliNodes } : {}),
    bodyLimitJsonBytes: parseByteSize(values.BODY_LIMIT_JSON as string),
    bodyLimitCsvBytes: parseByteSize(values.BODY_LIMIT_CSV as string),
    bodyLimitFormBytes: parseByteSize(values.BODY_LIMIT_FORM as string),
    outbox: {
      pollIntervalMs: values.OUTBOX_POLL_INTERVAL_MS as number,
      batchSize: values.OUTBOX_BATCH_SIZE as number,
      reclaimAfterMs: values.OUTBOX_RECLAIM_AFTER_MS as number,
      retryBaseMs: retryBase,
      retryMaxMs: retryMax,
    },
    pricingSchedulerIntervalMs: values.PRICING_SCHEDULER_INTERVAL_MS as number,
    demoSandbox: (values.DEMO_SANDBOX as boolean | undefined) ?? nodeEnv === 'development',
    search: {
      cacheMaxBytes: parseByteSize(values.SEARCH_CACHE_SIZE as string),
      cacheTtlMs: values.SEARCH_CACHE_TTL_MS as number,
      splitMaxInFlight: values.SEARCH_SPLIT_MAX_IN_FLIGHT as number,
      publicRequestsPerMinute: values.SEARCH_PUBLIC_REQUESTS_PER_MINUTE as number,
      zeroResultQueriesPerStore: values.ZERO_RESULT_QUERIES_PER_STORE as number,
      productViewWindowSeconds: values.PRODUCT_VIEW_WINDOW_SECONDS as number,
    },
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS as number,
    roles: [...new Set((values.ROLES as string).split(','))] as ProcessRole[],
    apiProcesses: values.API_PROCESSES as number,
    appSecret: appSecret as string,
    publicBaseUrl: ((values.PUBLIC_BASE_URL as string | undefined) ?? `http://localhost:${values.PORT as number}`).replace(/\/+$/, ''),
    auth: {
      accessTokenTtlSeconds: values.ACCESS_TOKEN_TTL_SECONDS as number,
      refreshTokenTtlSeconds: values.REFRESH_TOKEN_TTL_SECONDS as number,
      emailTokenTtlSeconds: values.EMAIL_TOKEN_TTL_SECONDS as number,
      registrationOpen: values.REGISTRATION_OPEN as boolean,
      deviceCodeTtlSeconds: values.DEVICE_CODE_TTL_SECONDS as number,
      deviceCodeIntervalSeconds: values.DEVICE_CODE_INTERVAL_SECONDS as number,
    },
    smtpUrl: values.SMTP_URL as string | undefined,
    mailFrom: values.MAIL_FROM as string,
    vision: {
      clipModelDir: values.VISION_CLIP_MODEL_DIR as string | undefined,
      fetchTimeoutMs: values.VISION_FETCH_TIMEOUT_MS as number,
      fetchMaxBytes: parseByteSize(values.VISION_FETCH_MAX_BYTES as string),
      maxRedirects: values.VISION_MAX_REDIRECTS as number,
      uploadMaxBytes: parseByteSize(values.VISION_UPLOAD_MAX_BYTES as string),
      maxPixels: values.VISION_MAX_PIXELS as number,
      fetchAllowAddresses:
        nodeEnv === 'test' && values.VISION_FETCH_ALLOW_ADDRESSES ? (values.VISION_FETCH_ALLOW_ADDRESSES as string).split(',') : [],
      batchSize: values.VISION_BATCH_SIZE as number,
      concurrency: values.VISION_CONCURRENCY as number,
      maxAttempts: values.VISION_MAX_ATTEMPTS as number,
      publicQueriesPerMinute: values.VISION_PUBLIC_QUERIES_PER_MINUTE as number,
      mobilenetRuntime: values.VISION_MOBILENET_RUNTIME as 'onnx' | 'tfjs',
      inferenceThreads: values.VISION_INFERENCE_THREADS as number,
      queryCacheSize: values.VISION_QUERY_CACHE_SIZE as number,
      queryBatchSize: values.VISION_QUERY_BATCH_SIZE as number,
      queryBatchLingerMs: values.VISION_QUERY_BATCH_LINGER_MS as number,
    },
    bulkEdits: { syncMax: values.BULK_SYNC_MAX as number },
    clientErrors: {
      retentionDays: values.CLIENT_ERROR_RETENTION_DAYS as number,
      batchesPerMinute: values.CLIENT_ERROR_BATCHES_PER_MINUTE as number,
    },
    support: { sla: supportSla },
    wallets: { verifyBaseUrl: 'https://{domain}', allowAddresses: [] },
    payments: { simulatorAllowed: (values.PAYMENT_SIMULATOR_ALLOWED as boolean | undefined) ?? nodeEnv !== 'production' },
    billing: {
      dunningGraceAfterMs: values.BILLING_DUNNING_GRACE_AFTER_MS as number,
      dunningSuspendAfterMs: values.BILLING_DUNNING_SUSPEND_AFTER_MS as number,
      dunningIntervalMs: values.BILLING_DUNNING_INTERVAL_MS as number,
    },
    renderBudgets: {
      defaults: {
        ms: values.RENDER_BUDGET_MS as number,
        ops: values.RENDER_BUDGET_OPS as number,
        bytes: parseByteSize(values.RENDER_BUDGET_BYTES as string),
      },
      overrides: parseBudgetOverrides(values.RENDER_BUDGET_OVERRIDES as string | undefined),
    },
    webhooks: {
      retryDelaysMs: (values.WEBHOOK_RETRY_DELAYS_MS as string).split(',').map(Number),
      timeoutMs: values.WEBHOOK_TIMEOUT_MS as number,
      pollIntervalMs: values.WEBHOOK_POLL_INTERVAL_MS as number,
      claimTimeoutMs: values.WEBHOOK_CLAIM_TIMEOUT_MS as number,
      concurrency: values.WEBHOOK_CONCURRENCY as number,
      allowAddresses: nodeEnv === 'test' && values.WEBHOOK_ALLOW_ADDRESSES ? (values.WEBHOOK_ALLOW_ADDRESSES as string).split(',') : [],
    },
  };
}

function parseBudgetOverrides(raw: string | undefined): Record<string, Partial<RenderBudget>> {
  const overrides: Record<string, Partial<RenderBudget>> = {};
  if (!raw) return overrides;
  for (const part of raw.split(';')) {
    const [type, pairs] = part.split(':') as [string, string];
    const budget: Partial<RenderBudget> = (overrides[type] ??= {});
    for (const pair of pairs.split(',')) {
      const [key, value] = pair.split('=') as ['ms' | 'ops' | 'bytes', string];
      budget[key] = Number(value);
    }
  }
  return overrides;
}

/** The variables, their defaults and fixes, for the configuration table (docs/configuration.md) and `--help`. */
export function describeVariables(): Array<{ name: string; fix: string; default?: unknown }> {
  return Object.entries(VARIABLES).map(([name, spec]) => {
    const described = spec.schema.describe() as { flags?: { default?: unknown } };
    return { name, fix: spec.fix, default: described.flags?.default };
  });
}

/** For entry points: load or exit with the message (exit code 78, EX_CONFIG). */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}
