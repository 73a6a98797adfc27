/**
 * `npm run bench:sandbox [-- --sandboxes N] [-- --resets R]`: sandbox creation and reset timings
 * (docs/benchmarks.md, "Sandbox": a reset re-seeds in seconds; target under 5 s for the default data).
 *
 * Starts the app in this process on an ephemeral port (against the configured database, Redis and
 * Meilisearch), creates N sandboxes (default 3) through POST /api/v1/sandbox and resets each R times
 * (default 5) through POST /api/v1/sandbox/reset, timing each request from the client, and reads the
 * server's own durationMs of each reset. The first creation of a process may compute the seed image
 * vectors when no process has stored them yet (sandbox_seed_vectors); it is reported apart.
 * Prints one JSON object per line; the sandboxes' tenants and indexes are removed at the end.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApp } from '../../app/http-app';
import { loadConfig } from '../../lib/config';
import { createRuntime } from '../../app/runtime';
import { runMigrations } from '../../storage/migrate';
import { storeIndexUid } from '../../search/index-names';
import { seedImageVersion } from '../../api/sandbox/sandbox.seed-writer';
import { percentile } from './load';
import { emit, roundScaled } from './common';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const raw = i >= 0 ? process.argv[i + 1] : process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return {
    n: sorted.length,
    p50: roundScaled(percentile(sorted, 50)),
    max: roundScaled(sorted[sorted.length - 1]!),
    min: roundScaled(sorted[0]!),
  };
};

async function main(): Promise<void> {
  const sandboxes = option('sandboxes', 3);
  const resets = option('resets', 5);
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const runtime = await createRuntime(config, 'bench-sandbox');
  await runMigrations(runtime.dataSource);
  const app = createApp({ ...runtime });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const [cached] = await runtime.dataSource.query(
    "SELECT count(*)::int AS n FROM sandbox_seed_vectors WHERE model = 'mobilenet-v2' AND seed_version = $1",
    [seedImageVersion()],
  );
  emit({ bench: 'sandbox', sandboxes, resets, seedVectorsStored: cached.n === 100 });

  const created: Array<{ token: string; tenantId: string; storeId: string }> = [];
  const createMs: number[] = [];
  const resetClientMs: number[] = [];
  const resetServerMs: number[] = [];
  try {
    for (let i = 0; i < sandboxes; i += 1) {
      // The benchmark is one client: it clears its own creation count (10 an hour per address) first.
      await runtime.services.rateLimiter.reset('sandbox:create:ip:127.0.0.1');
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/sandbox`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: `bench-${Date.now()}-${i}@example.com` }),
      });
      const body = (await res.json()) as {
        token: string;
        tenantId: string;
        storeId: string;
        counts: unknown;
        searchReady: boolean;
        visualSearch: boolean;
      };
      const ms = performance.now() - started;
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(body)}`);
      created.push(body);
      createMs.push(ms);
      emit({ step: 'create', i, ms: roundScaled(ms), counts: body.counts, searchReady: body.searchReady, visualSearch: body.visualSearch });
    }
    for (const sandbox of created) {
      for (let r = 0; r < resets; r += 1) {
        const started = performance.now();
        const res = await fetch(`${base}/api/v1/sandbox/reset`, { method: 'POST', headers: { Authorization: `Bearer ${sandbox.token}` } });
        const body = (await res.json()) as { durationMs: number; counts: unknown; searchReady: boolean };
        const ms = performance.now() - started;
        if (res.status !== 200) throw new Error(`reset answered ${res.status}: ${JSON.stringify(body)}`);
        resetClientMs.push(ms);
        resetServerMs.push(body.durationMs);
      }
    }
    const summary = {
      summary: 'sandbox',
      create: { first: roundScaled(createMs[0]!), rest: createMs.length > 1 ? stats(createMs.slice(1)) : null },
      resetClientMs: stats(resetClientMs),
      resetServerMs: stats(resetServerMs),
      targetResetMs: 5000,
      resetWithinTarget: Math.max(...resetClientMs) < 5000,
    };
    emit(summary);
  } finally {
    for (const s of created) {
      await runtime.meiliAdmin
        .deleteIndex(storeIndexUid(s.storeId))
        .waitTask({ timeout: 10_000 })
        .catch(() => undefined);
    }
    const tenants = created.map((s) => s.tenantId);
    await runtime.dataSource.query(
      "UPDATE outbox SET status = 'done', done_at = now() WHERE tenant_id = ANY($1::uuid[]) AND status <> 'done'",
      [tenants],
    );
    await runtime.dataSource.query('DELETE FROM tenants WHERE id = ANY($1::uuid[])', [tenants]);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
