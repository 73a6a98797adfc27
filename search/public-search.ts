/**
 * The public product search of a store, as a pipeline of five steps, each one module that hands its
 * result to the next (docs/search.md, "Public search pipeline"):
 *
 *   parse     public-search-parse.ts     request parameters → applied parameters, ignored ones, keys
 *   plan      public-search-plan.ts      → snapshot request, strict and looser attempts, sponsored slots
 *   run       public-search-run.ts       → the attempt that answered and its Meilisearch results
 *   assemble  public-search-assemble.ts  → the answer (items, sponsored slots, facets) and its snapshot
 *   cache     public-search-cache.ts     → the serialised answer, kept with its snapshot
 *
 * The engine only wires them: it holds the caches (whole answers and facet snapshots per store and
 * normalised parameters, dropped the moment the indexer announces a change of that store), the
 * store profiles, the Meilisearch transport and the zero-result counting. Suggest and the other
 * cached public reads live here too.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../lib/errors';
import { storeNotFound } from '../domain/store-access';
import { RawJson } from '../lib/raw-json';
import { servicesOf, type RequestContext } from '../storage/request-context';
import { localeField } from './product-document';
import type { PublicSearchParams } from './public-search-request';
import { cacheStamp, ResultCache } from './result-cache';
import type { FacetSnapshot } from './facet-snapshot';
import { loadStoreProfile, type StoreProfile } from './store-profile';
import { matchLexicon, type SuggestAnswer, type SuggestParams } from './suggest';
import { storeIndexUid } from './index-names';
import type { SearchTransport } from './search-transport';
import { meiliLocale } from './index-settings';
import { calmLog } from '../lib/calm-log';
import { observePublicSearch } from '../lib/metrics';
import { normaliseSearchText, parseSearch, type ParsedSearch } from './public-search-parse';
import { planSearch } from './public-search-plan';
import { isIndexMissing, meiliRunner, runSearch, type MeiliRunner } from './public-search-run';
import { assembleSearch, type AssembledSearch } from './public-search-assemble';
import { cacheSearch, rawBytes } from './public-search-cache';
import { withCountCache } from './count-cache';
import type { QueryResult } from './facet-snapshot';

export { SPONSORED_SHARE, sponsoredSlots } from './public-search-plan';
export type { SearchAnswer, SearchItem, FacetResult, FacetValue } from './public-search-assemble';

export interface SearchEngineOptions {
  cacheMaxBytes: number;
  cacheTtlMs: number;
  /**
   * Counts a search of the store with words whose answer merchants watch (search-synonyms): `zero`, it
   * found nothing; `weak`, only a looser pass found something (the answer's looseMatch).
   */
  recordQueryOutcome?: (storeId: string, q: string, outcome: SearchOutcome) => Promise<void>;
  /**
   * While at most this many searches of this process are being computed (this one included), a
   * search sends its main query and its count queries (facets of selected groups, price buckets,
   * sponsored candidates) as two concurrent Meilisearch requests instead of one multi-search, which
   * Meilisearch runs one query after the other: the answer comes sooner when there are cores to
   * spare. Under load nothing is split (it would only add requests). 0: never split.
   */
  splitMaxInFlight?: number;
}

/** The process's search engine (request contexts of the api role always carry it). */
export function searchEngineOf(ctx: RequestContext): SearchEngine {
  const engine = servicesOf(ctx).search;
  if (!engine) throw new Error('public reads need the search engine in the request context');
  return engine;
}

type Hit = Record<string, unknown>;

declare module '../storage/request-context' {
  interface ContextServices {
    /** Public search and suggest with their cache (absent in contexts built for storage-level tests). */
    search?: SearchEngine;
  }
}

export class SearchEngine {
  readonly answers: ResultCache<RawJson>;
  readonly profiles: ResultCache<StoreProfile>;
  /** Totals, facet counts and matching of searches, for their other pages and sorts (search/facet-snapshot.ts). */
  readonly snapshots: ResultCache<FacetSnapshot>;
  /** Answers to queries asking for no products (counts, facets), by index uid (search/count-cache.ts). */
  readonly counts: ResultCache<QueryResult>;
  /** False while invalidation messages cannot be received: nothing is served from or put in the cache then. */
  cacheLive = false;
  /** Searches being computed (cache misses waiting for Meilisearch). */
  private computing = 0;
  /** Sends a search's queries; splits them while few searches are being computed (options.splitMaxInFlight). */
  private readonly run: MeiliRunner;

  constructor(
    private readonly dataSource: DataSource,
    private readonly client: SearchTransport,
    private readonly logger: Logger,
    private readonly options: SearchEngineOptions,
  ) {
    this.answers = new ResultCache({ maxBytes: options.cacheMaxBytes, ttlMs: options.cacheTtlMs });
    this.profiles = new ResultCache({ maxBytes: Math.max(1 << 20, options.cacheMaxBytes / 8), ttlMs: options.cacheTtlMs });
    this.snapshots = new ResultCache({ maxBytes: options.cacheMaxBytes / 4, ttlMs: options.cacheTtlMs });
    this.counts = new ResultCache({ maxBytes: options.cacheMaxBytes / 4, ttlMs: options.cacheTtlMs });
    const split = (): boolean => this.computing <= (this.options.splitMaxInFlight ?? 0);
    // With the cache turned off (SEARCH_CACHE_SIZE=0) no key is even built.
    const countsLive = (): boolean => this.cacheLive && options.cacheMaxBytes > 0;
    this.run = withCountCache(meiliRunner(client, logger, split), this.counts, countsLive);
  }

  /** Replaces some options (tests turn splitting off to count requests). */
  setOptions(options: Partial<Pick<SearchEngineOptions, 'recordQueryOutcome' | 'splitMaxInFlight'>>): void {
    Object.assign(this.options, options);
  }

  /** Drops everything cached for the store (`*`: for every store). */
  invalidate(storeId: string): void {
    if (storeId === '*') {
      this.answers.clear();
      this.profiles.clear();
      this.snapshots.clear();
      this.counts.clear();
      return;
    }
    this.answers.invalidateStore(storeId);
    this.profiles.invalidateStore(storeId);
    this.snapshots.invalidateStore(storeId);
    this.counts.invalidateStore(storeIndexUid(storeId));
  }

  /** The store's profile; 404 store_not_found when it does not exist or is archived. */
  async profile(storeId: string): Promise<StoreProfile> {
    const key = `profile:${storeId.toLowerCase()}`;
    const cached = this.cacheLive ? this.profiles.get(key) : undefined;
    if (cached) return cached;
    const since = cacheStamp();
    const profile = await loadStoreProfile(this.dataSource, storeId);
    if (!profile) throw storeNotFound();
    if (this.cacheLive)
      this.profiles.set(
        profile.id,
        key,
        profile,
        1024 + 64 * (profile.categories.size + profile.brands.size + profile.vendors.size) + 256 * profile.sponsored.length,
        { since },
      );
    return profile;
  }

  /**
   * The answer to a public search, serialised: parse → (a cached answer, else) plan → run →
   * assemble → cache. Where the visitor may not see prices, the price filters and price sorts are
   * dropped before anything is asked (public-search-parse.ts withoutPrices) and named in
   * `ignoredParams`. A search with words that finds nothing, or only loosely related products, is
   * counted, cached or not (outcomeOf).
   */
  async search(requested: PublicSearchParams, pricesShownFor: (profile: StoreProfile) => boolean): Promise<RawJson> {
    const started = performance.now();
    const since = cacheStamp();
    const profile = await this.profile(requested.storeId);
    const parsed = parseSearch(requested, pricesShownFor(profile));
    const cached = this.cacheLive ? this.answers.get(parsed.cacheKey) : undefined;
    const raw = cached ?? (await this.compute(parsed, profile, since));
    const outcome = parsed.q ? outcomeOf(raw) : undefined;
    if (outcome) this.countOutcome(profile.id, parsed.params.q!, outcome);
    observePublicSearch('search', cached !== undefined, (performance.now() - started) / 1000);
    return raw;
  }

  /** `since`: the cache stamp taken when the search began (nothing is kept if the store changed meanwhile). */
  private async compute(parsed: ParsedSearch, profile: StoreProfile, since: number): Promise<RawJson> {
    this.computing += 1;
    let assembled: AssembledSearch;
    try {
      const snapshot = this.cacheLive ? this.snapshots.get(parsed.snapshotKey) : undefined;
      const attempts = planSearch(parsed, profile, snapshot);
      const ran = await runSearch(attempts, this.run);
      assembled = assembleSearch(parsed, profile, attempts.sponsored, ran);
    } finally {
      this.computing -= 1;
    }
    const caches = { answers: this.answers, snapshots: this.snapshots, live: this.cacheLive, since };
    return cacheSearch(caches, profile.id, parsed, assembled);
  }

  /**
   * Another public read of a store, cached like search answers (same invalidation): `compute` runs
   * on a miss; `ttlMs` shortens the entry's life (content scheduled to appear). Errors are not cached.
   */
  async cachedRead(storeId: string, key: unknown[], compute: () => Promise<unknown>, ttlMs?: number): Promise<RawJson> {
    const cacheKeyText = JSON.stringify(['read', storeId.toLowerCase(), ...key]);
    const cached = this.cacheLive ? this.answers.get(cacheKeyText) : undefined;
    if (cached) return cached;
    const since = cacheStamp();
    const raw = new RawJson(JSON.stringify(await compute()));
    if (this.cacheLive && (ttlMs === undefined || ttlMs > 0))
      this.answers.set(storeId.toLowerCase(), cacheKeyText, raw, rawBytes(raw), { ttlMs, since });
    return raw;
  }

  /** Suggestions for a partial query, serialised. */
  async suggest(params: SuggestParams, pricesShownFor: (profile: StoreProfile) => boolean): Promise<RawJson> {
    const started = performance.now();
    const profile = await this.profile(params.storeId);
    const pricesShown = pricesShownFor(profile);
    const q = normaliseSearchText(params.q);
    const key = JSON.stringify(['suggest', profile.id, q, params.limit, params.locale ?? null, pricesShown]);
    const cached = this.cacheLive ? this.answers.get(key) : undefined;
    if (cached) {
      observePublicSearch('suggest', true, (performance.now() - started) / 1000);
      return cached;
    }
    const since = cacheStamp();
    const titleField = params.locale ? `title_${localeField(params.locale)}` : undefined;
    const localeLang = params.locale ? meiliLocale(params.locale) : undefined;
    let hits: Hit[] = [];
    try {
      const result = await this.client.search<{ hits: Hit[] }>(storeIndexUid(profile.id), {
        q,
        limit: params.limit,
        filter: 'status = "PUBLISHED"',
        // Every word but the last is complete; while typing, fewer matched words still suggest something.
        matchingStrategy: 'last',
        attributesToRetrieve: ['id', 'slug', 'title', 'imageUrl', 'brand', 'price', 'currency', ...(titleField ? [titleField] : [])],
        ...(localeLang ? { locales: [localeLang] } : {}),
      });
      hits = result.hits;
    } catch (error) {
      if (!isIndexMissing(error)) {
        calmLog(this.logger).warn('suggest', error, {}, 'suggest: Meilisearch request failed');
        throw new ServiceUnavailableError('Search is temporarily unavailable; try again shortly.', 2);
      }
    }
    const answer: SuggestAnswer = {
      q: params.q,
      products: hits.map((hit) => ({
        id: hit.id as string,
        slug: hit.slug as string,
        title: ((titleField && (hit[titleField] as string | undefined)) || hit.title) as string,
        imageUrl: (hit.imageUrl as string | null) ?? null,
        brand: (hit.brand as string | null) ?? null,
        ...(pricesShown ? { price: hit.price as number, currency: hit.currency as string } : {}),
      })),
      ...matchLexicon(profile, q, params.limit),
    };
    const raw = new RawJson(JSON.stringify(answer));
    if (this.cacheLive) this.answers.set(profile.id, key, raw, rawBytes(raw), { since });
    observePublicSearch('suggest', false, (performance.now() - started) / 1000);
    return raw;
  }

  private countOutcome(storeId: string, q: string, outcome: SearchOutcome): void {
    this.options
      .recordQueryOutcome?.(storeId, q, outcome)
      .catch((error: unknown) => calmLog(this.logger).warn('zero-results', error, {}, `search: could not count a ${outcome}-result query`));
  }
}

/** How merchants watch a search's words: found nothing, or only loosely related products. */
export type SearchOutcome = 'zero' | 'weak';

/**
 * The outcome a search with words is counted as; none when it found products strictly, or when the
 * store had no index to ask (a new store's searches say nothing about its catalog yet; a store whose
 * first indexing is still running is left out when the counts are written).
 */
export function outcomeOf(raw: RawJson): SearchOutcome | undefined {
  if (raw.search?.indexed === false) return undefined;
  if (raw.total === 0) return 'zero';
  return raw.search?.looseMatch ? 'weak' : undefined;
}
