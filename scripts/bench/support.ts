/**
 * `npm run bench:support [-- --tickets N]`: the support desk's list, search, stats and workload
 * through the real HTTP API (docs/benchmarks.md, "Support desk"; targets: list and q p95 < 50 ms,
 * stats and workload p95 < 200 ms).
 *
 * 1. Seeds N tickets (default 100000) spread over 50 bench tenants and 20 support agents, with about
 *    5 messages each (500000 at the default; one in ten an internal note), in a few INSERT … SELECT
 *    statements over generate_series (untimed), then ANALYZE.
 * 2. Starts the app in this process on an ephemeral port, signs in one support agent and times each
 *    request from the client: list combinations (filters with each sort, a second page by cursor),
 *    full-text q (a rare code, a common word, two words), stats (1, 7 and 30 days) and the workload.
 * Prints one JSON object per line: the config, one record per case (p50, p95, max, rows answered) and
 * a summary with the targets. The bench tenants (their tickets and messages cascade) and the bench
 * users are deleted at the end, also after a failure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApp } from '../../app/http-app';
import { loadConfig } from '../../lib/config';
import { createRuntime } from '../../app/runtime';
import { runMigrations } from '../../storage/migrate';
import { hashPassword } from '../../api/auth/passwords';
import { uuidv7 } from '../../storage/ids';
import { percentile } from './load';
import { emit, log, parseFlags, round } from './common';

const TENANTS = 50;
const AGENTS = 20;
const PASSWORD = 'Bench-Support-42-Desk';
const WORDS = (
  'account address admin amount api app archive bank basket batch billing blocked brand broken bug bulk button cache card cart ' +
  'catalog category charge checkout code collection coupon csv currency customer dashboard data delivery discount domain draft ' +
  'duplicate email error export feed field filter fraud gateway gift image import index inventory invoice issue item key label ' +
  'language layout limit link login logo mail menu merchant missing mobile order page password payment payout permission price ' +
  'product promotion queue rate receipt refund region report request return review role sale search session shipping sitemap ' +
  'size slow sms stock store subscription sync tax template theme timeout token tracking transfer translation upload variant ' +
  'vendor voucher warehouse webhook weight widget zone'
).split(' ');

interface Case {
  name: string;
  kind: 'list' | 'q' | 'stats' | 'workload';
  paths: string[];
}

async function seed(
  db: import('typeorm').DataSource,
  tickets: number,
): Promise<{ tenants: string[]; agents: string[]; agentEmail: string }> {
  const tenants = Array.from({ length: TENANTS }, () => uuidv7());
  await db.query(
    `INSERT INTO tenants (id, name, kind) SELECT id, 'Support bench ' || ord, 'merchant' FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, ord)`,
    [tenants],
  );
  const agents = Array.from({ length: AGENTS }, () => uuidv7());
  const agentEmail = `support-bench-${agents[0]}@example.test`;
  await db.query(
    `INSERT INTO users (id, tenant_id, tenant_role, platform_role, email, password_hash, name)
     SELECT id, NULL, NULL, 'support_agent', CASE WHEN ord = 1 THEN $2 ELSE 'support-bench-' || id || '@example.test' END, $3, 'Bench agent ' || ord
       FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, ord)`,
    [agents, agentEmail, await hashPassword(PASSWORD)],
  );
  const started = performance.now();
  // Tickets: created over the last 180 days; priorities 25/45/20/10 %; 30 % unresolved; 80 % assigned.
  await db.query(
    `CREATE TEMP TABLE bench_tickets AS
     SELECT g, gen_random_uuid() AS id, ($1::uuid[])[1 + g % ${TENANTS}] AS tenant_id,
            CASE WHEN r1 < 0.25 THEN 'LOW' WHEN r1 < 0.70 THEN 'NORMAL' WHEN r1 < 0.90 THEN 'HIGH' ELSE 'URGENT' END AS priority,
            CASE WHEN r2 < 0.12 THEN 'OPEN' WHEN r2 < 0.22 THEN 'IN_PROGRESS' WHEN r2 < 0.30 THEN 'WAITING_ON_CUSTOMER'
                 WHEN r2 < 0.60 THEN 'RESOLVED' ELSE 'CLOSED' END AS status,
            CASE WHEN random() < 0.8 THEN ($2::uuid[])[1 + floor(random() * ${AGENTS})::int] END AS assignee,
            CASE WHEN random() < 0.1 THEN 'PLATFORM' ELSE 'STORE' END AS audience,
            now() - random() * interval '180 days' AS created_at,
            1 + floor(random() * 9)::int AS message_count,
            random() AS r3,
            'Order ' || ($3::text[])[1 + floor(random() * ${WORDS.length})::int] || ' ' || ($3::text[])[1 + floor(random() * ${WORDS.length})::int]
              || ' sku' || floor(random() * 5000)::int AS subject
       FROM (SELECT g, random() AS r1, random() AS r2 FROM generate_series(1, $4::int) g) s`,
    [tenants, agents, WORDS, tickets],
  );
  await db.query(
    `CREATE TEMP TABLE bench_messages AS
     SELECT gen_random_uuid() AS id, t.id AS ticket_id, k, k > 1 AND random() < 0.1 AS internal,
            t.created_at + (k - 1) * interval '3 hours' AS created_at,
            ($1::text[])[1 + floor(random() * ${WORDS.length})::int] || ' ' || ($1::text[])[1 + floor(random() * ${WORDS.length})::int] || ' ' ||
            ($1::text[])[1 + floor(random() * ${WORDS.length})::int] || ' ' || ($1::text[])[1 + floor(random() * ${WORDS.length})::int] || ' ' ||
            ($1::text[])[1 + floor(random() * ${WORDS.length})::int] || ' ' || ($1::text[])[1 + floor(random() * ${WORDS.length})::int] AS body
       FROM bench_tickets t, generate_series(1, t.message_count) k`,
    [WORDS],
  );
  await db.query(
    `INSERT INTO support_tickets (id, tenant_id, audience, status, priority, subject, assignee_user_id, message_count, public_message_count,
       first_response_due_at, first_responded_at, resolution_due_at, resolved_at, closed_at, last_message_at, created_at, updated_at, search)
     SELECT t.id, t.tenant_id, t.audience, t.status, t.priority, t.subject, t.assignee, t.message_count, m.public_count,
            t.created_at + sla.first_h * interval '1 hour',
            CASE WHEN t.message_count > 1 OR t.status IN ('RESOLVED', 'CLOSED') THEN t.created_at + t.r3 * 2 * sla.first_h * interval '1 hour' END,
            t.created_at + sla.resolution_h * interval '1 hour',
            CASE WHEN t.status IN ('RESOLVED', 'CLOSED') THEN t.created_at + (0.2 + t.r3 * 1.5) * sla.resolution_h * interval '1 hour' END,
            CASE WHEN t.status = 'CLOSED' THEN t.created_at + (0.3 + t.r3 * 1.5) * sla.resolution_h * interval '1 hour' END,
            m.last_at, t.created_at, m.last_at,
            to_tsvector('simple', t.subject || ' ' || m.bodies)
       FROM bench_tickets t
       JOIN (VALUES ('URGENT', 1, 8), ('HIGH', 4, 24), ('NORMAL', 8, 48), ('LOW', 24, 120)) AS sla(priority, first_h, resolution_h) ON sla.priority = t.priority
       JOIN (SELECT ticket_id, count(*) FILTER (WHERE NOT internal)::int AS public_count, max(created_at) AS last_at,
                    string_agg(body, ' ') FILTER (WHERE NOT internal) AS bodies
               FROM bench_messages GROUP BY ticket_id) m ON m.ticket_id = t.id`,
  );
  await db.query(
    `INSERT INTO ticket_messages (id, ticket_id, author_kind, internal, body, created_at)
     SELECT id, ticket_id, CASE WHEN internal OR k % 2 = 0 THEN 'STAFF' ELSE 'MERCHANT' END, internal, body, created_at FROM bench_messages`,
  );
  const [{ n }] = await db.query('SELECT count(*)::int AS n FROM bench_messages');
  await db.query('DROP TABLE bench_tickets');
  await db.query('DROP TABLE bench_messages');
  await db.query('ANALYZE support_tickets');
  await db.query('ANALYZE ticket_messages');
  emit({
    bench: 'support',
    seeded: { tickets, messages: n, tenants: TENANTS, agents: AGENTS, seconds: round((performance.now() - started) / 1000, 1) },
  });
  return { tenants, agents, agentEmail };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), []);
  const tickets = Number(flags.get('tickets') ?? process.env.TICKETS ?? 100_000);
  const runs = Number(flags.get('runs') ?? process.env.RUNS ?? 100);
  if (!Number.isInteger(tickets) || tickets < 1000) throw new Error('--tickets must be an integer of at least 1000');
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const runtime = await createRuntime(config, 'bench-support');
  await runMigrations(runtime.dataSource);
  const db = runtime.dataSource;
  emit({ bench: 'support', tickets, runsPerCase: runs, targets: { listP95Ms: 50, qP95Ms: 50, statsP95Ms: 200, workloadP95Ms: 200 } });
  let seeded: Awaited<ReturnType<typeof seed>> | undefined;
  const server = http.createServer(createApp({ ...runtime }).callback());
  try {
    seeded = await seed(db, tickets);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: seeded.agentEmail, password: PASSWORD }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    if (!accessToken) throw new Error(`sign-in failed: ${login.status}`);
    const headers = { Authorization: `Bearer ${accessToken}` };
    const get = async (path: string): Promise<{ ms: number; body: { items?: unknown[]; nextCursor?: string | null } }> => {
      const started = performance.now();
      const res = await fetch(`${base}${path}`, { headers });
      const body = (await res.json()) as { items?: unknown[]; nextCursor?: string | null };
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return { ms, body };
    };
    const agent = (i: number) => seeded!.agents[i % AGENTS]!;
    const word = (i: number) => WORDS[(i * 7) % WORDS.length]!;
    const per = (make: (i: number) => string) => Array.from({ length: runs }, (_, i) => make(i));
    // Second pages: the cursor of each first page.
    const firstPage = await get('/support/tickets?status=OPEN&sort=priority-desc&limit=50');
    const cases: Case[] = [
      { name: 'list newest first (no filter)', kind: 'list', paths: per(() => '/support/tickets?limit=50') },
      { name: 'list status=OPEN sort=priority-desc', kind: 'list', paths: per(() => '/support/tickets?status=OPEN&sort=priority-desc') },
      {
        name: 'list status=OPEN sort=priority-desc, page 2',
        kind: 'list',
        paths: per(() => `/support/tickets?status=OPEN&sort=priority-desc&cursor=${firstPage.body.nextCursor}`),
      },
      {
        name: 'list assigneeId sort=createdAt-desc',
        kind: 'list',
        paths: per((i) => `/support/tickets?assigneeId=${agent(i)}&sort=createdAt-desc`),
      },
      {
        name: 'list assigneeId status=IN_PROGRESS sort=messages-desc',
        kind: 'list',
        paths: per((i) => `/support/tickets?assigneeId=${agent(i)}&status=IN_PROGRESS&sort=messages-desc`),
      },
      {
        name: 'list assigned=false sort=messages-desc',
        kind: 'list',
        paths: per(() => '/support/tickets?assigned=false&sort=messages-desc'),
      },
      {
        name: 'list priority=URGENT response=BREACHED sort=createdAt-asc',
        kind: 'list',
        paths: per(() => '/support/tickets?priority=URGENT&response=BREACHED&sort=createdAt-asc'),
      },
      {
        name: 'list response=AWAITING sort=priority-desc',
        kind: 'list',
        paths: per(() => '/support/tickets?response=AWAITING&sort=priority-desc'),
      },
      {
        name: 'list slaBreachHours=4 sort=priority-desc',
        kind: 'list',
        paths: per(() => '/support/tickets?slaBreachHours=4&sort=priority-desc'),
      },
      {
        name: 'list audience=PLATFORM createdFrom..createdTo (30 days) sort=ticketNumber-desc',
        kind: 'list',
        paths: per((i) => {
          const to = new Date(Date.now() - (i % 60) * 86_400_000);
          const from = new Date(to.getTime() - 30 * 86_400_000);
          return `/support/tickets?audience=PLATFORM&createdFrom=${from.toISOString().slice(0, 10)}&createdTo=${to.toISOString().slice(0, 10)}&sort=ticketNumber-desc`;
        }),
      },
      { name: 'q rare code (sku)', kind: 'q', paths: per((i) => `/support/tickets?q=sku${(i * 37) % 5000}`) },
      { name: 'q one common word', kind: 'q', paths: per((i) => `/support/tickets?q=${word(i)}`) },
      {
        name: 'q two words, sort=priority-desc',
        kind: 'q',
        paths: per((i) => `/support/tickets?q=${word(i)}+${word(i + 3)}&sort=priority-desc`),
      },
      { name: 'q word + status=OPEN', kind: 'q', paths: per((i) => `/support/tickets?q=${word(i)}&status=OPEN`) },
      { name: 'stats periodDays=1', kind: 'stats', paths: per(() => '/support/tickets/stats?periodDays=1') },
      { name: 'stats periodDays=7', kind: 'stats', paths: per(() => '/support/tickets/stats?periodDays=7') },
      { name: 'stats periodDays=30', kind: 'stats', paths: per(() => '/support/tickets/stats?periodDays=30') },
      { name: 'workload', kind: 'workload', paths: per(() => '/support/tickets/workload') },
    ];
    const worst: Record<Case['kind'], number> = { list: 0, q: 0, stats: 0, workload: 0 };
    for (const c of cases) {
      for (const path of c.paths.slice(0, 5)) await get(path); // warm-up
      const ms: number[] = [];
      let rows = 0;
      for (const path of c.paths) {
        const r = await get(path);
        ms.push(r.ms);
        rows += Array.isArray(r.body.items) ? r.body.items.length : 1;
      }
      ms.sort((x, y) => x - y);
      const p95 = percentile(ms, 95);
      worst[c.kind] = Math.max(worst[c.kind], p95);
      emit({
        case: c.name,
        kind: c.kind,
        n: ms.length,
        p50Ms: round(percentile(ms, 50)),
        p95Ms: round(p95),
        maxMs: round(ms[ms.length - 1]!),
        avgRows: round(rows / ms.length, 1),
      });
    }
    emit({
      summary: 'support',
      worstP95Ms: { list: round(worst.list), q: round(worst.q), stats: round(worst.stats), workload: round(worst.workload) },
      targetsMet: { list: worst.list < 50, q: worst.q < 50, stats: worst.stats < 200, workload: worst.workload < 200 },
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (seeded) {
      log('cleaning up the bench tenants and users');
      await db.query('DELETE FROM support_tickets WHERE tenant_id = ANY($1::uuid[])', [seeded.tenants]);
      await db.query('DELETE FROM tenants WHERE id = ANY($1::uuid[])', [seeded.tenants]);
      await db.query('DELETE FROM users WHERE id = ANY($1::uuid[])', [seeded.agents]);
      await db.query('VACUUM ANALYZE support_tickets').catch(() => undefined);
    }
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
