/**
 * `npm run bench:client-errors [-- --events N --connections C --runs R]`: the client error intake
 * and the 24-hour reads through the real HTTP API, the app in its own process (docs/benchmarks.md,
 * "Client errors"; target: grouped view and stats over 24 hours p95 < 100 ms).
 *
 * 1. Starts the app (ROLES=api, the per-address batch limit raised so one load generator is never
 *    refused) and signs in a bench support agent made in PostgreSQL.
 * 2. Ingest: N events (default 1000000) as N/50 batches of 50 through POST /client-errors/events from
 *    C connections (default 16), with autocannon. The events come from 3 apps and 400 error types
 *    (message template, kind, level, top frame) drawn with a skew (a few errors are most of the
 *    traffic, as in real life); numbers and URLs in the messages vary, so normalising is exercised.
 *    Reports events per second and batch latencies.
 * 3. Reads: R sequential requests (default 100) of each case of the grouped view and the stats over
 *    24 hours (every event of the ingest is in that window), and of the event list; p50/p95/max.
 * Prints one JSON object per line. The bench's events, hourly counts, groups and user are deleted at
 * the end, also after a failure.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { loadConfig } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { uuidv7 } from '../../storage/ids';
import { hashPassword } from '../../api/auth/passwords';
import { percentile } from './load';
import { emit, freePort, log, parseFlags, round, spawnApiProcess, stopProcess, waitUntilReady } from './common';

const BATCH = 50;
const TYPES = 400;
const BODY_POOL = 400;
const PASSWORD = 'Bench-Client-Errors-42';
const KINDS = ['window', 'unhandledrejection', 'api', 'section', 'manual', 'vue'] as const;
const LEVELS = ['error', 'error', 'error', 'warning', 'info'] as const;
const TEMPLATES = [
  (n: number) => `TypeError: Cannot read properties of undefined (reading 'price') at item ${n}`,
  (n: number) => `GET /api/v1/catalog/public/suggest answered ${500 + (n % 4)}`,
  (n: number) => `Failed to fetch https://cdn.example.test/img/${n}.webp`,
  (n: number) => `Section featured-products omitted: over its ms budget (${n} ms)`,
  (n: number) => `ReferenceError: cart is not defined (line ${n})`,
];

/** Letters only: normalising keeps them, so this run's groups are its own. */
const word = (length: number) => Array.from({ length }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');

function stats(ms: number[]): { n: number; p50: number; p95: number; max: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    max: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** A request body of BATCH events of the error types, drawn with a skew toward the first types. */
function batchBody(run: string, apps: string[]): string {
  const app = apps[Math.floor(Math.random() * apps.length)]!;
  const events = Array.from({ length: BATCH }, () => {
    const type = Math.floor(TYPES * Math.random() ** 3);
    const n = Math.floor(Math.random() * 100_000);
    return {
      kind: KINDS[type % KINDS.length],
      level: LEVELS[type % LEVELS.length],
      message: `${run} ${type % 7 ? '' : 'Uncaught '}${TEMPLATES[type % TEMPLATES.length]!(n)} type${String.fromCharCode(97 + (type % 26))}${String.fromCharCode(97 + Math.floor(type / 26))}`,
      stack: `Error\n    at fn${type} (https://shop.example.test/assets/theme/theme.js?v=${n % 3}:${10 + type}:${5 + (type % 40)})\n    at HTMLDocument.<anonymous> (https://shop.example.test/assets/theme/theme.js:1:1)`,
      url: `https://shop.example.test/shop/${uuidv7()}/products/p-${n}`,
    };
  });
  return JSON.stringify({ app, events });
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), []);
  const events = Number(flags.get('events') ?? process.env.EVENTS ?? 1_000_000);
  const connections = Number(flags.get('connections') ?? process.env.CONNECTIONS ?? 16);
  const runs = Number(flags.get('runs') ?? process.env.RUNS ?? 100);
  if (!Number.isInteger(events) || events < BATCH) throw new Error(`--events must be an integer of at least ${BATCH}`);
  const batches = Math.ceil(events / BATCH);
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const db = createDataSource(config, 'bench-client-errors');
  await db.initialize();
  await runMigrations(db);
  const run = `bench${word(10)}`;
  const apps = ['storefront', 'console', 'admin'].map((name) => `${run}-${name}`);
  const userId = uuidv7();
  const email = `client-errors-bench-${userId}@example.test`;
  await db.query(
    `INSERT INTO users (id, tenant_id, tenant_role, platform_role, email, password_hash, name) VALUES ($1, NULL, NULL, 'support_agent', $2, $3, 'Bench agent')`,
    [userId, email, await hashPassword(PASSWORD)],
  );
  const port = await freePort();
  const child = spawnApiProcess(port, {
    // All load comes from one address: the limit stays on (its Redis round trip is part of a batch's cost) but never refuses.
    CLIENT_ERROR_BATCHES_PER_MINUTE: '1000000000',
  });

  try {
    await waitUntilReady(child, port);
    const base = `http://127.0.0.1:${port}/api/v1`;
    emit({
      bench: 'client-errors',
      events: batches * BATCH,
      batchSize: BATCH,
      connections,
      runsPerCase: runs,
      cores: os.cpus().length,
      targets: { groupedP95Ms: 100, statsP95Ms: 100 },
    });

    // Ingest.
    log(`ingesting ${batches * BATCH} events in ${batches} batches`);
    const pool = Array.from({ length: BODY_POOL }, () => batchBody(run, apps));
    let next = 0;
    const statuses: Record<string, number> = {};
    const latencies: number[] = [];
    const started = performance.now();
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url: `${base}/client-errors/events`,
          connections,
          amount: batches,
          timeout: 60,
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          requests: [
            {
              setupRequest: (request) => {
                request.body = pool[next++ % pool.length]!;
                return request;
              },
            },
          ],
        },
        (error, done) => (error ? reject(error) : resolve(done)),
      );
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
        latencies.push(responseTime);
      });
    });
    const seconds = (performance.now() - started) / 1000;
    const accepted = statuses['202'] ?? 0;
    const [{ stored }] = (await db.query(`SELECT count(*)::int AS stored FROM client_error_events WHERE app = ANY($1)`, [apps])) as [
      { stored: number },
    ];
    const [{ groups, hourly }] = (await db.query(
      `SELECT (SELECT count(*)::int FROM client_error_groups WHERE title LIKE $2) AS groups,
              (SELECT count(*)::int FROM client_error_hourly WHERE app = ANY($1)) AS hourly`,
      [apps, `${run} %`],
    )) as [{ groups: number; hourly: number }];
    emit({
      bench: 'client-errors',
      case: 'ingest',
      batches,
      accepted,
      statuses,
      errors: result.errors,
      timeouts: result.timeouts,
      eventsStored: stored,
      groups,
      hourlyRows: hourly,
      seconds: round(seconds, 1),
      eventsPerSecond: round((accepted * BATCH) / seconds, 0),
      batchLatencyMs: stats(latencies),
    });
    await db.query('ANALYZE client_error_events');
    await db.query('ANALYZE client_error_groups');
    await db.query('ANALYZE client_error_hourly');

    // Reads.
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    if (!accessToken) throw new Error(`sign-in failed: ${login.status}`);
    const headers = { Authorization: `Bearer ${accessToken}` };
    const cases: Array<{ name: string; path: string }> = [
      { name: 'grouped', path: '/client-errors/grouped?hours=24' },
      { name: 'grouped status=all limit=100', path: '/client-errors/grouped?hours=24&status=all&limit=100' },
      { name: 'grouped app kind', path: `/client-errors/grouped?hours=24&app=${apps[0]}&kind=api` },
      { name: 'stats', path: '/client-errors/stats?hours=24' },
      { name: 'stats status=all', path: '/client-errors/stats?hours=24&status=all' },
      { name: 'stats app level', path: `/client-errors/stats?hours=24&app=${apps[1]}&level=warning` },
      { name: 'list', path: '/client-errors?hours=24&limit=50' },
      { name: 'list search', path: `/client-errors?hours=24&limit=50&search=${encodeURIComponent('cart is not defined')}` },
    ];
    const summary: Record<string, number> = {};
    for (const c of cases) {
      const ms: number[] = [];
      let rows = 0;
      for (let i = 0; i < runs; i += 1) {
        const t = performance.now();
        const res = await fetch(`${base}${c.path}`, { headers });
        const body = (await res.json()) as { items?: unknown[]; totalEvents?: number };
        ms.push(performance.now() - t);
        if (res.status !== 200) throw new Error(`${c.path} answered ${res.status}: ${JSON.stringify(body)}`);
        rows = body.items?.length ?? body.totalEvents ?? 0;
      }
      const s = stats(ms);
      summary[c.name] = s.p95;
      emit({ bench: 'client-errors', case: c.name, path: c.path, ...s, answered: rows });
    }
    const worst = (prefix: string) =>
      Math.max(
        ...Object.entries(summary)
          .filter(([k]) => k.startsWith(prefix))
          .map(([, v]) => v),
      );
    emit({
      bench: 'client-errors',
      summary: {
        eventsPerSecond: round((accepted * BATCH) / seconds, 0),
        groupedP95Ms: worst('grouped'),
        statsP95Ms: worst('stats'),
        targetsMet: worst('grouped') < 100 && worst('stats') < 100,
      },
    });
  } finally {
    await stopProcess(child);
    log('cleaning up');
    await db.query(`DELETE FROM client_error_events WHERE app = ANY($1)`, [apps]);
    await db.query(`DELETE FROM client_error_hourly WHERE app = ANY($1)`, [apps]);
    await db.query(`DELETE FROM client_error_groups WHERE title LIKE $1`, [`${run} %`]);
    await db.query(`DELETE FROM users WHERE id = $1`, [userId]);
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
