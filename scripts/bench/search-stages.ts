/**
 * `npm run bench:search-stages`: what Meilisearch spends on the requests one public search sends, by
 * stage, against Meilisearch answering the same queries' strict body alone (docs/benchmarks.md,
 * "Meilisearch's CPU per search, by stage").
 *
 * 1. Builds a bench store of N products (the search benchmark's data) and indexes it.
 * 2. Runs the search benchmark's distinct queries one by one through this build's search engine (in
 *    process, its caches on, as in the api), recording every multi-search it sends and in which
 *    position of its search (1st: the strict request or a snapshot's hits; 2nd: the looser readings'
 *    probes; 3rd: the full run of the reading that answers, or the pages that fill a short page).
 * 3. Runs the same searches again through a fresh engine whose transport gives Meilisearch's recorded
 *    answers back (serialising each request and parsing each answer, as the real one does): the
 *    engine's own CPU per search, without the api's HTTP server and client (--engine-rounds, 5).
 * 4. Replays the recordings to Meilisearch, four requests at a time, alternating block by block (100
 *    searches) the comparison body (`meiliRequestFor` of the same queries, what `bench:search` sends Meilisearch
 *    directly) and each stage, and reads Meilisearch's CPU time around each from /proc. Beside it,
 *    the same comparison body with Meilisearch's default `matchingStrategy: last` (it drops words
 *    from the end while nothing matches: a comparison that also answers loosely).
 *
 * Replaying without the app, the load generator or other requests in between measures Meilisearch's
 * own cost far more steadily than the load runs of `bench:search` (whose ratios move by ±10 % between
 * runs on a shared machine). Options: --n / N (20000), --queries / QUERIES (2000), --rounds / ROUNDS
 * (5), --engine-rounds / ENGINE_ROUNDS (5; 0 skips step 3), --seed / SEED, --keep / KEEP=1 (leave the store's rows and index).
 */
import pino from 'pino';
import { loadConfig } from '../../lib/config';
import { createDataSource } from '../../storage/data-source';
import { runMigrations } from '../../storage/migrate';
import { createAdminClient, ensureSearchKey } from '../../search/meili';
import { storeIndexUid } from '../../search/index-names';
import { settle } from '../../search/meili-tasks';
import { createSearchTransport, type SearchTransport } from '../../search/search-transport';
import { SearchEngine } from '../../search/public-search';
import { meiliRequestFor, type PublicSearchParams } from '../../search/public-search-request';
import type { DataSource } from 'typeorm';
import { reindexStore } from '../../indexer/reindex';
import { emit, localMeiliPid, log, parseFlags, round, startServices } from './common';
import { processCpuMs } from './load';
import { BENCH_PRICE_BUCKETS, createBenchStore, deleteBenchStore, insertProducts, Rng } from './search-data';
import { distinctParams } from './search-queries';

/** One build's recording: each search's multi-search bodies in order, and the comparison body of each search. */
interface Recording {
  searches: string[][];
  direct: string[];
}

const STAGES = ['1st', '2nd', '3rd', 'more'] as const;
/** Searches replayed together before switching to the next body set (see the replay loop). */
const BLOCK = 100;
const stageOf = (position: number): (typeof STAGES)[number] => STAGES[Math.min(position, STAGES.length - 1)]!;

function parseOptions(argv: string[], env: NodeJS.ProcessEnv) {
  const flags = parseFlags(argv, ['keep']);
  const known = ['n', 'queries', 'rounds', 'engine-rounds', 'seed', 'keep'];
  for (const name of flags.keys())
    if (!known.includes(name)) throw new Error(`unknown option --${name} (known: ${known.map((k) => `--${k}`).join(' ')})`);
  const get = (flag: string, variable: string): string | undefined => flags.get(flag) ?? env[variable];
  const int = (flag: string, variable: string, fallback: number): number => {
    const raw = get(flag, variable);
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    const least = flag === 'engine-rounds' ? 0 : 1;
    if (!Number.isInteger(value) || value < least) throw new Error(`--${flag} must be a whole number of at least ${least}, got ${raw}`);
    return value;
  };
  return {
    n: int('n', 'N', 20_000),
    queries: int('queries', 'QUERIES', 2_000),
    rounds: int('rounds', 'ROUNDS', 5),
    engineRounds: int('engine-rounds', 'ENGINE_ROUNDS', 5),
    seed: int('seed', 'SEED', 42),
    keep: flags.has('keep') || ['1', 'true'].includes(env.KEEP ?? ''),
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), process.env);
  startServices();
  const config = loadConfig({ ...process.env, NODE_ENV: 'development' });
  const db = await createDataSource(config, 'commerce-bench').initialize();
  const meili = createAdminClient(config, 600_000);
  const pid = localMeiliPid();
  if (!pid) throw new Error('bench:search-stages reads the CPU time of the local Meilisearch: leave MEILI_URL unset');
  const rng = new Rng(options.seed);
  await runMigrations(db);
  const store = await createBenchStore(db, rng);
  const key = await ensureSearchKey(meili, config.meiliMasterKey);
  const direct = createSearchTransport(config.meiliUrl, key);
  try {
    log(`store ${store.storeId}: ${options.n} products`);
    await insertProducts(db, store, rng, options.n, 2_000, () => undefined);
    await reindexStore(db, meili, store.storeId);

    // 2. Record this build's requests, each search's in order, and Meilisearch's answers.
    const recording: Recording = { searches: [], direct: [] };
    const answers = new Map<string, string>();
    const recorder: SearchTransport = {
      multiSearch: async <T>(body: { queries: unknown[] }) => {
        const text = JSON.stringify(body);
        recording.searches.at(-1)!.push(text);
        const answer = await direct.multiSearch<T>(body);
        answers.set(text, JSON.stringify(answer));
        return answer;
      },
      search: (uid, body) => direct.search(uid, body),
      close: () => undefined,
    };
    const engine = benchEngine(db, recorder);
    const searches = [...distinctParams(store, rng, options.queries)];
    for (const params of searches) {
      recording.searches.push([]);
      await engine.search(params, () => true);
      recording.direct.push(JSON.stringify(meiliRequestFor(params, store.facetKeys, BENCH_PRICE_BUCKETS)));
    }
    const perSearch = new Map<number, number>();
    for (const sent of recording.searches) perSearch.set(sent.length, (perSearch.get(sent.length) ?? 0) + 1);
    emit({
      step: 'recorded',
      searches: recording.searches.length,
      requests_per_search: Object.fromEntries([...perSearch].sort((a, b) => a[0] - b[0])),
      queries_per_search: round(
        recording.searches.flat().reduce((sum, body) => sum + (JSON.parse(body) as { queries: unknown[] }).queries.length, 0) /
          recording.searches.length,
      ),
      direct_queries_per_search: round(
        recording.direct.reduce((sum, body) => sum + (JSON.parse(body) as { queries: unknown[] }).queries.length, 0) /
          recording.direct.length,
      ),
    });

    // 3. The engine's own CPU: the same searches, Meilisearch's answers given back from memory.
    await engineCpu(db, searches, answers, options.engineRounds);

    // 4. Replay, alternating.
    const replay = async (bodies: string[]): Promise<number> => {
      const before = processCpuMs(pid)!;
      for (let i = 0; i < bodies.length; i += 4)
        await Promise.all(bodies.slice(i, i + 4).map((body) => direct.multiSearch(JSON.parse(body) as { queries: unknown[] })));
      return processCpuMs(pid)! - before;
    };
    const byStage = (searches: string[][]): Map<string, string[]> => {
      const stages = new Map<string, string[]>(STAGES.map((s) => [s, []]));
      for (const sent of searches) sent.forEach((body, i) => stages.get(stageOf(i))!.push(body));
      return stages;
    };
    // The same bodies as Meilisearch answers them by default (`matchingStrategy: last`: words dropped
    // from the end while nothing matches), a comparison that answers loosely too; reported beside.
    const directLast = recording.direct.map((body) => {
      const parsed = JSON.parse(body) as { queries: Array<Record<string, unknown>> };
      return JSON.stringify({ queries: parsed.queries.map((q) => (q.q ? { ...q, matchingStrategy: 'last' } : q)) });
    });
    const totals = { direct: 0, directLast: 0, ours: 0 };
    const stageTotals = new Map<string, number>(STAGES.map((s) => [s, 0]));
    await replay(recording.direct.slice(0, 200)); // warm Meilisearch's page cache
    for (let r = 1; r <= options.rounds; r += 1) {
      // Block by block (BLOCK searches), the three replayed one after the other: the machine's drift
      // during a round weighs on all three alike.
      const round_ = { direct: 0, directLast: 0, stages: {} as Record<string, number> };
      for (let from = 0; from < recording.searches.length; from += BLOCK) {
        const to = from + BLOCK;
        round_.direct += await replay(recording.direct.slice(from, to));
        for (const [stage, bodies] of byStage(recording.searches.slice(from, to)))
          if (bodies.length) round_.stages[stage] = (round_.stages[stage] ?? 0) + (await replay(bodies));
        round_.directLast += await replay(directLast.slice(from, to));
      }
      const oursMs = Object.values(round_.stages).reduce((a, b) => a + b, 0);
      totals.direct += round_.direct;
      totals.directLast += round_.directLast;
      totals.ours += oursMs;
      for (const [stage, ms] of Object.entries(round_.stages)) stageTotals.set(stage, stageTotals.get(stage)! + ms);
      emit({
        step: 'round',
        round: r,
        direct_ms: round_.direct,
        direct_last_ms: round_.directLast,
        ours_ms: oursMs,
        stages_ms: round_.stages,
      });
    }
    const n = recording.searches.length * options.rounds;
    emit({
      step: 'summary',
      meili_cpu_ms_per_search: {
        direct: round(totals.direct / n, 3),
        direct_last: round(totals.directLast / n, 3),
        ours: round(totals.ours / n, 3),
        ...Object.fromEntries([...stageTotals].filter(([, ms]) => ms > 0).map(([stage, ms]) => [`ours_${stage}`, round(ms / n, 3)])),
      },
      ratio: round(totals.ours / totals.direct, 3),
      ratio_to_direct_last: round(totals.ours / totals.directLast, 3),
      target: '<= 1.1',
      pass: totals.ours / totals.direct <= 1.1,
    });
  } finally {
    direct.close();
    if (!options.keep) {
      await settle(meili.deleteIndex(storeIndexUid(store.storeId)), 600_000, ['index_not_found']).catch(() => undefined);
      await deleteBenchStore(db, store).catch((error: unknown) => log(`cleanup failed: ${(error as Error).message}`));
    }
    await db.destroy();
  }
}

/**
 * A search engine as the api runs it (caches live), one search at a time and never split, so each
 * search's requests come in a fixed order: the recording and the engine's replay must ask the same.
 */
function benchEngine(db: DataSource, transport: SearchTransport): SearchEngine {
  const engine = new SearchEngine(db, transport, pino({ level: 'warn' }), {
    cacheMaxBytes: 64 << 20,
    cacheTtlMs: 10 * 60_000,
    splitMaxInFlight: 0,
  });
  engine.cacheLive = true;
  return engine;
}

/**
 * The search engine's own CPU per search (api process, without its HTTP server and client): the
 * recorded searches run again through a fresh engine (empty caches) whose transport serialises each
 * request and parses Meilisearch's recorded answer, as the real one does, without sending anything.
 */
async function engineCpu(db: DataSource, searches: PublicSearchParams[], answers: Map<string, string>, rounds: number): Promise<void> {
  const replayed: SearchTransport = {
    multiSearch: async <T>(body: { queries: unknown[] }) => {
      const answer = answers.get(JSON.stringify(body));
      if (answer === undefined) throw new Error('bench:search-stages: a search asked what it did not ask when recorded');
      return JSON.parse(answer) as { results: T[] };
    },
    search: () => Promise.reject(new Error('not recorded')),
    close: () => undefined,
  };
  const engine = benchEngine(db, replayed);
  const perSearch: number[] = [];
  for (let r = 0; r <= rounds; r += 1) {
    engine.invalidate('*');
    await engine.profile(searches[0]!.storeId); // the store's profile comes from PostgreSQL once, as in the api
    const before = process.cpuUsage();
    for (const params of searches) await engine.search(params, () => true);
    const used = process.cpuUsage(before);
    // Round 0 warms the code up (optimised by V8 by its end) and is not counted.
    if (r > 0) perSearch.push((used.user + used.system) / 1000 / searches.length);
  }
  perSearch.sort((a, b) => a - b);
  emit({
    step: 'engine_cpu',
    rounds: perSearch.map((ms) => round(ms, 3)),
    median_ms_per_search: perSearch.length ? round(perSearch[Math.floor(perSearch.length / 2)]!, 3) : null,
  });
}

main().catch((error: unknown) => {
  log(`bench:search-stages failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
