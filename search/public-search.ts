/**
 * The public product search of a store: one Meilisearch multi-search per answer (results, the
 * disjunctive facet counts and sponsored candidates together), a looser second pass when the
 * strict one finds nothing, and an in-process cache of whole answers per store and normalised
 * parameters, dropped the moment the indexer announces a change of that store.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../lib/errors';
import { storeNotFound } from '../domain/store-access';
import { RawJson } from '../lib/raw-json';
import { servicesOf, type RequestContext } from '../storage/request-context';
import { localeField } from './product-document';
import { looseAttempts, type LooseAttempt, type LooseStrategy } from './loose-query';
import {
  buildSearchPlan,
  splitPair,
  withoutPrices,
  type FacetGroup,
  type MeiliQuery,
  type PublicSearchParams,
  type SearchPlan,
} from './public-search-request';
import { ResultCache } from './result-cache';
import {
  assembleResults,
  hitsRequest,
  snapshotBytes,
  snapshotKey,
  takeSnapshot,
  wordsAndFilters,
  type FacetSnapshot,
  type QueryResult,
} from './facet-snapshot';
import { loadStoreProfile, sponsoredFor, type StoreProfile } from './store-profile';
import { matchLexicon, type SuggestAnswer, type SuggestParams } from './suggest';
import { storeIndexUid } from './index-names';
import { MeiliResponseError, type SearchTransport } from './search-transport';
import { meiliLocale } from './index-settings';
import { calmLog } from '../lib/calm-log';

export interface SponsoredCandidate {
  listingId: string;
  productId: string;
}

export interface SearchItem {
  id: string;
  slug: string;
  title: string;
  type: string;
  brand: { id: string; name: string | null } | null;
  vendor: { id: string; name: string | null } | null;
  currency?: string;
  price?: number;
  compareAtPrice?: number | null;
  discountPercent?: number;
  discounted: boolean;
  inStock: boolean;
  rating: number;
  reviewCount: number;
  imageUrl: string | null;
  /** FLASH_SALE while a running flash sale sets the price (with its end as ISO time), else null. */
  badge: string | null;
  flashSaleEndsAt: string | null;
  sponsored: boolean;
  sponsoredListingId?: string;
}

export interface FacetValue {
  value: string;
  label: string;
  count: number;
  selected: boolean;
}

export interface FacetResult {
  key: string;
  label: string;
  display: string;
  values: FacetValue[];
  /** Price: the lowest and highest price among the results (ignoring the price selection). */
  stats?: { min: number; max: number } | null;
  /** Price: the store's buckets; counts unless the facet is shown as a range. */
  buckets?: Array<{ min: number; max: number | null; label: string; count?: number; selected: boolean }>;
}

export interface SearchAnswer {
  items: SearchItem[];
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
  sort: string;
  facets: FacetResult[];
  /** How the results were matched: strictly, or by a looser rewrite of the query (then `q` is what matched). */
  matching: { strategy: 'strict' | LooseStrategy; q: string | null };
  looseMatch: boolean;
  pricesShown: boolean;
  /**
   * Parameters given but not applied: priceMin, priceMax and a price sort (then `sort` answers
   * relevance) when the visitor may not see prices, so nothing in the answer depends on a price.
   */
  ignoredParams: string[];
}

export interface SearchEngineOptions {
  cacheMaxBytes: number;
  cacheTtlMs: number;
  /** Counts a search of the store that found nothing (the zero-result queries of search-synonyms). */
  recordZeroResult?: (storeId: string, q: string) => Promise<void>;
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

/** One sponsored slot per started eight organic results of the first page (so 3 on a page of 24). */
export const SPONSORED_SHARE = 8;
export const sponsoredSlots = (perPage: number): number => Math.floor(perPage / SPONSORED_SHARE);

const RATING_LABEL = (stars: number): string => (stars >= 5 ? '5 stars' : `${stars} stars & up`);

/** Normalised search text: NFKC, whitespace collapsed, trimmed, lowercase (matching ignores case). */
export function normaliseSearchText(q: string | undefined): string {
  return (q ?? '').normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The cache key: every parameter that changes the answer, normalised, in a fixed order. */
export function cacheKey(
  params: PublicSearchParams,
  pricesShown: boolean,
  normalisedQ = normaliseSearchText(params.q),
  ignoredParams: string[] = [],
): string {
  return JSON.stringify([...wordsAndFilters(params, normalisedQ), params.page, params.perPage, params.sort, pricesShown, ignoredParams]);
}

type Hit = Record<string, unknown>;

const isIndexMissing = (error: unknown): boolean => error instanceof MeiliResponseError && error.code === 'index_not_found';

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
  /** False while invalidation messages cannot be received: nothing is served from or put in the cache then. */
  cacheLive = false;
  /** Searches being computed (cache misses waiting for Meilisearch). */
  private computing = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly client: SearchTransport,
    private readonly logger: Logger,
    private readonly options: SearchEngineOptions,
  ) {
    this.answers = new ResultCache({ maxBytes: options.cacheMaxBytes, ttlMs: options.cacheTtlMs });
    this.profiles = new ResultCache({ maxBytes: Math.max(1 << 20, options.cacheMaxBytes / 8), ttlMs: options.cacheTtlMs });
    this.snapshots = new ResultCache({ maxBytes: options.cacheMaxBytes / 4, ttlMs: options.cacheTtlMs });
  }

  /** Replaces some options (tests turn splitting off to count requests). */
  setOptions(options: Partial<Pick<SearchEngineOptions, 'recordZeroResult' | 'splitMaxInFlight'>>): void {
    Object.assign(this.options, options);
  }

  /** Drops everything cached for the store (`*`: for every store). */
  invalidate(storeId: string): void {
    if (storeId === '*') {
      this.answers.clear();
      this.profiles.clear();
      this.snapshots.clear();
      return;
    }
    this.answers.invalidateStore(storeId);
    this.profiles.invalidateStore(storeId);
    this.snapshots.invalidateStore(storeId);
  }

  /** The store's profile; 404 store_not_found when it does not exist or is archived. */
  async profile(storeId: string): Promise<StoreProfile> {
    const key = `profile:${storeId.toLowerCase()}`;
    const cached = this.cacheLive ? this.profiles.get(key) : undefined;
    if (cached) return cached;
    const profile = await loadStoreProfile(this.dataSource, storeId);
    if (!profile) throw storeNotFound();
    if (this.cacheLive)
      this.profiles.set(
        profile.id,
        key,
        profile,
        1024 + 64 * (profile.categories.size + profile.brands.size + profile.vendors.size) + 256 * profile.sponsored.length,
      );
    return profile;
  }

  /**
   * The answer to a public search, serialised. Where the visitor may not see prices, the price
   * filters and price sorts are dropped before anything is asked (withoutPrices) and named in
   * `ignoredParams`.
   */
  async search(requested: PublicSearchParams, pricesShownFor: (profile: StoreProfile) => boolean): Promise<RawJson> {
    const profile = await this.profile(requested.storeId);
    const pricesShown = pricesShownFor(profile);
    const { params, ignored } = pricesShown ? { params: requested, ignored: [] } : withoutPrices(requested);
    const q = normaliseSearchText(params.q);
    const key = cacheKey(params, pricesShown, q, ignored);
    const cached = this.cacheLive ? this.answers.get(key) : undefined;
    if (cached) {
      if (q && cached.total === 0) this.zeroResult(profile.id, params.q!);
      return cached;
    }
    this.computing += 1;
    let answer: SearchAnswer;
    try {
      answer = { ...(await this.compute(params, q, profile, pricesShown)), ignoredParams: ignored };
    } finally {
      this.computing -= 1;
    }
    if (q && answer.total === 0) this.zeroResult(profile.id, params.q!);
    const raw = new RawJson(JSON.stringify(answer), answer.total);
    if (this.cacheLive) this.answers.set(profile.id, key, raw, raw.json.length * 2 + 200);
    return raw;
  }

  /**
   * Another public read of a store, cached like search answers (same invalidation): `compute` runs
   * on a miss; `ttlMs` shortens the entry's life (content scheduled to appear). Errors are not cached.
   */
  async cachedRead(storeId: string, key: unknown[], compute: () => Promise<unknown>, ttlMs?: number): Promise<RawJson> {
    const cacheKeyText = JSON.stringify(['read', storeId.toLowerCase(), ...key]);
    const cached = this.cacheLive ? this.answers.get(cacheKeyText) : undefined;
    if (cached) return cached;
    const raw = new RawJson(JSON.stringify(await compute()));
    if (this.cacheLive && (ttlMs === undefined || ttlMs > 0))
      this.answers.set(storeId.toLowerCase(), cacheKeyText, raw, raw.json.length * 2 + 200, Date.now(), ttlMs);
    return raw;
  }

  /** Suggestions for a partial query, serialised. */
  async suggest(params: SuggestParams, pricesShownFor: (profile: StoreProfile) => boolean): Promise<RawJson> {
    const profile = await this.profile(params.storeId);
    const pricesShown = pricesShownFor(profile);
    const q = normaliseSearchText(params.q);
    const key = JSON.stringify(['suggest', profile.id, q, params.limit, params.locale ?? null, pricesShown]);
    const cached = this.cacheLive ? this.answers.get(key) : undefined;
    if (cached) return cached;
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
    if (this.cacheLive) this.answers.set(profile.id, key, raw, raw.json.length * 2 + 200);
    return raw;
  }

  private zeroResult(storeId: string, q: string): void {
    this.options
      .recordZeroResult?.(storeId, q)
      .catch((error: unknown) => calmLog(this.logger).warn('zero-results', error, {}, 'search: could not count a zero-result query'));
  }

  private async compute(
    params: PublicSearchParams,
    normalisedQ: string,
    profile: StoreProfile,
    pricesShown: boolean,
  ): Promise<Omit<SearchAnswer, 'ignoredParams'>> {
    const facets = profile.facets.filter((f) => pricesShown || f.key !== 'price');
    const slots = params.page === 1 ? sponsoredSlots(params.perPage) : 0;
    const candidates = slots > 0 ? sponsoredFor(profile, params.q ?? '', slots + params.perPage) : [];
    const sponsoredIds = candidates.map((c) => c.productId);
    const strictMatching: SearchAnswer['matching'] = { strategy: 'strict', q: params.q?.trim() || null };

    // Another page or sort of a search answered before: its counts are known, only the hits are read.
    const snapshotAt = snapshotKey(params, normalisedQ, pricesShown);
    const snapshot = this.cacheLive ? this.snapshots.get(snapshotAt) : undefined;
    if (snapshot) {
      const { attempt } = snapshot;
      const plan = buildSearchPlan(params, facets, {
        priceBuckets: profile.priceBuckets,
        sponsoredIds,
        ...(attempt ? { q: attempt.q, matchingStrategy: attempt.matchingStrategy } : { filtersOnlyCount: true }),
      });
      const request = hitsRequest(plan, snapshot, params.page, params.perPage);
      const fetched = request && (request.queries.length ? await this.run(request.queries) : []);
      if (request && fetched) {
        const results = assembleResults(plan, snapshot, { roles: request.roles, results: fetched });
        return this.answer(
          params,
          profile,
          plan,
          results,
          candidates,
          slots,
          pricesShown,
          attempt ? { strategy: attempt.strategy, q: attempt.q } : strictMatching,
        );
      }
    }

    let plan = buildSearchPlan(params, facets, { priceBuckets: profile.priceBuckets, sponsoredIds, filtersOnlyCount: true });
    let results = await this.run(plan.queries);
    let matching = strictMatching;
    let winner: LooseAttempt | undefined;
    const q = params.q?.trim() ?? '';
    const filtersOnly = plan.roles.findIndex((r) => r.kind === 'filtersOnly');
    // Looser words cannot help where the filters alone match nothing.
    const filtersMatch = filtersOnly < 0 || (results?.[filtersOnly]?.totalHits ?? 0) > 0;
    const attempts = q && results && filtersMatch && (results[0]!.totalHits ?? 0) === 0 ? looseAttempts(q) : [];
    if (attempts.length > 0) {
      const loosePlan = (attempt: LooseAttempt): SearchPlan =>
        buildSearchPlan(params, facets, {
          priceBuckets: profile.priceBuckets,
          sponsoredIds,
          q: attempt.q,
          matchingStrategy: attempt.matchingStrategy,
        });
      let winnerResults: QueryResult[] | undefined;
      if (attempts.length === 1) {
        // A single looser form is run in full at once: a probe first would only add a request.
        const only = loosePlan(attempts[0]!);
        winnerResults = await this.run(only.queries);
        if ((winnerResults?.[0]?.totalHits ?? 0) > 0) [winner, plan] = [attempts[0], only];
      } else {
        // One request counts every looser form (count only, no facets); the first that finds something
        // is then run in full. So a query that finds nothing costs one request more, not one per form.
        const probes = attempts.map((attempt) => {
          const {
            page: _page,
            hitsPerPage: _hitsPerPage,
            sort: _sort,
            attributesToRetrieve: _fields,
            ...query
          } = buildSearchPlan(params, [], { q: attempt.q, matchingStrategy: attempt.matchingStrategy }).queries[0]!;
          return { ...query, limit: 1, attributesToRetrieve: ['id'] };
        });
        const counted = await this.run(probes);
        winner = attempts.find((_, i) => (counted?.[i]?.hits.length ?? 0) > 0);
        if (winner) {
          plan = loosePlan(winner);
          winnerResults = await this.run(plan.queries);
        }
      }
      if (winner) {
        results = winnerResults;
        matching = { strategy: winner.strategy, q: winner.q };
      }
    }
    if (this.cacheLive && results) {
      const taken = takeSnapshot(
        plan,
        results,
        winner && { strategy: winner.strategy, q: winner.q, matchingStrategy: winner.matchingStrategy },
      );
      this.snapshots.set(profile.id, snapshotAt, taken, snapshotBytes(taken));
    }
    return this.answer(params, profile, plan, results, candidates, slots, pricesShown, matching);
  }

  /** The multi-search results in query order; undefined when the store has no index yet (nothing published). */
  private async run(queries: MeiliQuery[]): Promise<QueryResult[] | undefined> {
    const split = queries.length > 1 && this.computing <= (this.options.splitMaxInFlight ?? 0);
    try {
      if (!split) return (await this.client.multiSearch<QueryResult>({ queries })).results;
      const [main, counts] = await Promise.all([
        this.client.multiSearch<QueryResult>({ queries: queries.slice(0, 1) }),
        this.client.multiSearch<QueryResult>({ queries: queries.slice(1) }),
      ]);
      return [...main.results, ...counts.results];
    } catch (error) {
      if (isIndexMissing(error)) return undefined;
      calmLog(this.logger).warn('search', error, {}, 'search: Meilisearch request failed');
      throw new ServiceUnavailableError('Search is temporarily unavailable; try again shortly.', 2);
    }
  }

  private answer(
    params: PublicSearchParams,
    profile: StoreProfile,
    plan: SearchPlan,
    results: QueryResult[] | undefined,
    candidates: SponsoredCandidate[],
    slots: number,
    pricesShown: boolean,
    matching: SearchAnswer['matching'],
  ): Omit<SearchAnswer, 'ignoredParams'> {
    const main = results?.[0];
    const titleField = params.locale ? `title_${localeField(params.locale)}` : undefined;
    const toItem = (hit: Hit): SearchItem => {
      const item: SearchItem = {
        id: hit.id as string,
        slug: hit.slug as string,
        title: ((titleField && (hit[titleField] as string | undefined)) || hit.title) as string,
        type: hit.type as string,
        brand: hit.brandId ? { id: hit.brandId as string, name: (hit.brand as string | null) ?? null } : null,
        vendor: hit.vendorId ? { id: hit.vendorId as string, name: (hit.vendor as string | null) ?? null } : null,
        discounted: hit.discounted as boolean,
        inStock: hit.inStock as boolean,
        rating: hit.rating as number,
        reviewCount: hit.reviewCount as number,
        imageUrl: (hit.imageUrl as string | null) ?? null,
        badge: (hit.badge as string | null) ?? null,
        flashSaleEndsAt: typeof hit.flashSaleEndsAt === 'number' ? new Date(hit.flashSaleEndsAt * 1000).toISOString() : null,
        sponsored: false,
      };
      if (pricesShown) {
        item.currency = hit.currency as string;
        item.price = hit.price as number;
        item.compareAtPrice = (hit.compareAtPrice as number | null) ?? null;
        item.discountPercent = hit.discountPercent as number;
      }
      return item;
    };
    const items = (main?.hits ?? []).map(toItem);

    // Sponsored: matching candidates in the listing's priority order, not already on the page.
    const sponsoredAt = plan.roles.findIndex((r) => r.kind === 'sponsored');
    if (sponsoredAt >= 0 && results && slots > 0) {
      const matched = new Map((results[sponsoredAt]!.hits ?? []).map((h) => [h.id as string, h]));
      const onPage = new Set(items.map((i) => i.id));
      const chosen = candidates.filter((c) => matched.has(c.productId) && !onPage.has(c.productId)).slice(0, slots);
      chosen.forEach((candidate, i) => {
        const item = { ...toItem(matched.get(candidate.productId)!), sponsored: true, sponsoredListingId: candidate.listingId };
        items.splice(Math.min(items.length, i * (SPONSORED_SHARE + 1)), 0, item);
      });
    }

    const total = main?.totalHits ?? 0;
    return {
      items,
      page: params.page,
      perPage: params.perPage,
      total,
      totalPages: Math.ceil(total / params.perPage),
      sort: params.sort,
      facets: this.facets(params, profile, plan, results, pricesShown),
      matching,
      looseMatch: matching.strategy !== 'strict',
      pricesShown,
    };
  }

  private facets(
    params: PublicSearchParams,
    profile: StoreProfile,
    plan: SearchPlan,
    results: QueryResult[] | undefined,
    pricesShown: boolean,
  ): FacetResult[] {
    const distributionOf = (group: FacetGroup): { counts: Record<string, number>; stats?: { min: number; max: number } } => {
      const at = plan.roles.findIndex((r) => r.kind === 'facet' && r.group === group.key);
      const result = results?.[at >= 0 ? at : 0];
      return { counts: result?.facetDistribution?.[group.attribute] ?? {}, stats: result?.facetStats?.[group.attribute] };
    };
    const chosen = (values: string[] | undefined): Set<string> => new Set((values ?? []).map((v) => v.toLowerCase()));
    const out: FacetResult[] = [];
    for (const facet of profile.facets) {
      const group = plan.groups.get(facet.key);
      if (!group) continue;
      if (facet.key === 'price' && !pricesShown) continue;
      const { counts, stats } = distributionOf(group);
      const result: FacetResult = { key: facet.key, label: facet.label, display: facet.display, values: [] };
      const byCount = (values: FacetValue[]): FacetValue[] => values.sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
      switch (facet.key) {
        case 'category':
        case 'brand':
        case 'vendor': {
          const names = facet.key === 'category' ? profile.categories : facet.key === 'brand' ? profile.brands : profile.vendors;
          const selected = chosen(
            facet.key === 'category'
              ? params.categoryIds
              : facet.key === 'brand'
                ? params.brandIds
                : params.vendorId
                  ? [params.vendorId]
                  : [],
          );
          result.values = byCount(
            Object.entries(counts)
              .filter(([id]) => names.has(id))
              .map(([id, count]) => ({ value: id, label: names.get(id)!, count, selected: selected.has(id.toLowerCase()) })),
          );
          break;
        }
        case 'type':
          result.values = byCount(
            Object.entries(counts).map(([value, count]) => ({ value, label: value, count, selected: params.type === value })),
          );
          break;
        case 'inStock':
        case 'discounted': {
          const current = facet.key === 'inStock' ? params.inStock : params.discounted;
          result.values = ['true', 'false']
            .filter((v) => counts[v] !== undefined)
            .map((v) => ({
              value: v,
              label: v === 'true' ? 'Yes' : 'No',
              count: counts[v]!,
              selected: current !== undefined && String(current) === v,
            }));
          break;
        }
        case 'rating': {
          // Whole stars → "N stars & up" counts (cumulative from the top).
          let running = 0;
          const values: FacetValue[] = [];
          for (let stars = 5; stars >= 1; stars -= 1) {
            running += counts[String(stars)] ?? 0;
            values.push({ value: String(stars), label: RATING_LABEL(stars), count: running, selected: params.minRating === stars });
          }
          result.values = values.filter((v) => v.count > 0);
          break;
        }
        case 'price': {
          result.stats = stats ? { min: stats.min, max: stats.max } : null;
          const counted = facet.display !== 'range';
          result.buckets = profile.priceBuckets.map((bucket, i) => {
            const at = plan.roles.findIndex((r) => r.kind === 'priceBucket' && r.bucket === i);
            const label = bucket.label ?? (bucket.max === null ? `${bucket.min}+` : `${bucket.min}–${bucket.max}`);
            const selected =
              params.priceMin === bucket.min && (bucket.max === null ? params.priceMax === undefined : params.priceMax === bucket.max);
            return {
              min: bucket.min,
              max: bucket.max,
              label,
              selected,
              ...(counted && at >= 0 ? { count: results?.[at]?.totalHits ?? 0 } : {}),
            };
          });
          break;
        }
        default: {
          // option:<name> / attr:<name>: the `name:value` entries of that name.
          const name = facet.key.slice(facet.key.indexOf(':') + 1).toLowerCase();
          const selected = chosen(facet.key.startsWith('option:') ? params.options : params.attrs);
          const values: FacetValue[] = [];
          for (const [pair, count] of Object.entries(counts)) {
            const split = splitPair(pair);
            if (split.name?.toLowerCase() !== name) continue;
            values.push({ value: pair, label: split.value, count, selected: selected.has(pair.toLowerCase()) });
          }
          result.values = byCount(values);
        }
      }
      out.push(result);
    }
    return out;
  }
}
