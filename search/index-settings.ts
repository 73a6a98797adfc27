/**
 * Per-store index settings, derived from the store's data (its locales; its synonyms, built-in and
 * its own), and applied idempotently: when a store's index is created, or when the settings on the
 * server differ from what they should be.
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { Meilisearch, Settings } from 'meilisearch';
import { MeilisearchApiError } from 'meilisearch';
import { localeField } from './product-document';
import { MeiliTaskError, settle } from './meili-tasks';
import { storeEmbedderDimensions } from '../storage/vectors';
import { mergeSynonyms, type StoreSynonymRule } from './unit-synonyms';

/**
 * Up to how many matches Meilisearch counts exactly (`pagination.maxTotalHits`: it caps the reported
 * total and the reachable offset; the public search pages no further than 100 × 60). High, so that
 * `total` is exact in the first request for any store below a million products: the cap costs
 * Meilisearch nothing measurable on broad searches (docs/benchmarks.md), while a total at the cap
 * needs one more request for the exact count (public-search-run.ts exactTotal).
 */
export const MAX_TOTAL_HITS = 1_000_000;
export const MAX_VALUES_PER_FACET = 200;

/** Meilisearch's ISO 639-3 codes for the ISO 639-1 primary subtags stores use most. */
const ISO639_3: Record<string, string> = {
  en: 'eng',
  fr: 'fra',
  de: 'deu',
  es: 'spa',
  it: 'ita',
  pt: 'por',
  nl: 'nld',
  sv: 'swe',
  da: 'dan',
  nb: 'nob',
  no: 'nob',
  fi: 'fin',
  pl: 'pol',
  cs: 'ces',
  sk: 'slk',
  sl: 'slv',
  hr: 'hrv',
  sr: 'srp',
  hu: 'hun',
  ro: 'ron',
  bg: 'bul',
  el: 'ell',
  tr: 'tur',
  ru: 'rus',
  uk: 'ukr',
  be: 'bel',
  lt: 'lit',
  lv: 'lav',
  et: 'est',
  ar: 'ara',
  he: 'heb',
  hi: 'hin',
  ja: 'jpn',
  ko: 'kor',
  zh: 'cmn',
  th: 'tha',
  vi: 'vie',
  id: 'ind',
  ca: 'cat',
  af: 'afr',
  fa: 'pes',
  ka: 'kat',
  hy: 'hye',
  tl: 'tgl',
  bn: 'ben',
  ta: 'tam',
  te: 'tel',
  ur: 'urd',
};

export function meiliLocale(locale: string): string | undefined {
  const primary = locale.toLowerCase().split(/[-_]/)[0] ?? '';
  return ISO639_3[primary] ?? (Object.values(ISO639_3).includes(primary) ? primary : undefined);
}

export interface StoreSearchData {
  defaultLocale: string;
  /** Locale keys found in the translations of the store's products. */
  locales: string[];
  /** Meilisearch synonyms (a term → its equivalents): the built-in unit synonyms merged with the store's rules. */
  synonyms: Record<string, string[]>;
  /** Vector length of the store's image embedder while visual search is enabled (vision/). */
  imageDimensions?: number;
}

/**
 * Meilisearch's synonyms map of a store: the built-in unit synonyms (search/unit-synonyms.ts) and the
 * store's rules. A MULTI_WAY rule maps every term to all the others; a ONE_WAY rule maps its input to
 * its synonyms. A term a store rule maps from (active or not) loses its built-in mapping; only active
 * rules add their own. Terms shared by several rules get the union of their equivalents (sorted, so
 * the map is stable for settingsMatch).
 */
export async function storeSynonyms(db: DataSource | EntityManager, storeId: string): Promise<Record<string, string[]>> {
  const rules: StoreSynonymRule[] = await db.query(
    'SELECT id, type, input, terms, is_active AS "isActive" FROM search_synonyms WHERE store_id = $1 ORDER BY id',
    [storeId],
  );
  return mergeSynonyms(rules);
}

export async function loadStoreSearchData(dataSource: DataSource, storeId: string): Promise<StoreSearchData> {
  const [store]: Array<{ default_locale: string | null }> = await dataSource.query('SELECT default_locale FROM stores WHERE id = $1', [
    storeId,
  ]);
  const locales: Array<{ locale: string }> = await dataSource.query(
    `SELECT DISTINCT jsonb_object_keys(translations) AS locale FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND translations <> '{}'::jsonb`,
    [storeId],
  );
  return {
    defaultLocale: store?.default_locale ?? 'en',
    locales: locales.map((l) => l.locale).sort(),
    synonyms: await storeSynonyms(dataSource, storeId),
    imageDimensions: await storeEmbedderDimensions(dataSource, storeId),
  };
}

export function indexSettings(data: StoreSearchData): Settings {
  const fields = [...new Set(data.locales.map(localeField).filter(Boolean))].sort();
  const localized: Array<{ attributePatterns: string[]; locales: string[] }> = [];
  for (const field of fields) {
    const locale = meiliLocale(field);
    if (locale) localized.push({ attributePatterns: [`title_${field}`, `description_${field}`], locales: [locale] });
  }
  const base = meiliLocale(data.defaultLocale);
  if (base) localized.push({ attributePatterns: ['title', 'description'], locales: [base] });
  return {
    // Most important first: the attribute ranking rule prefers matches in earlier attributes. The
    // brand leads so a query naming a brand shows that brand's products before others that merely
    // mention it; brand names rarely contain the generic words of other queries, so this costs
    // nothing elsewhere. Then the product words of the title (product-document.ts titleProductWords):
    // a query naming a kind of product finds that kind before titles that merely mention the word
    // (+0.01 nDCG@10 on the relevance benchmark). Category names come right after the title, above
    // tags and description.
    searchableAttributes: [
      'brand',
      'titleProductWords',
      'title',
      ...fields.map((f) => `title_${f}`),
      'categories',
      'tags',
      'options',
      'attrs',
      'categoryPath',
      'vendor',
      'description',
      ...fields.map((f) => `description_${f}`),
    ],
    filterableAttributes: [
      'id',
      'status',
      'type',
      'categoryIds',
      'brandId',
      'vendorId',
      'tagIds',
      'price',
      'priceCell',
      'rating',
      'stars',
      'inStock',
      'discounted',
      'options',
      'attrs',
      'optionValues',
      'attrValues',
    ],
    sortableAttributes: ['createdAt', 'price', 'discountPercent', 'reviewCount', 'rating', 'salesCount', 'viewCount'],
    // `sort` first: a shopper who picks "price: low to high" expects exactly that order. Relevance
    // sort sends no sort, so the rule is inert and the text rules decide. Strict queries already
    // require every word, so sorting first never lets a poor match in. `attribute` before
    // `proximity`: a product naming the query's words in its title (or brand, or category) comes
    // before one whose description happens to hold them side by side. Last, among equal matches,
    // the shorter title (more about the words, less about other things) first. Measured with the
    // relevance benchmark (docs/benchmarks.md, "Relevance").
    rankingRules: ['sort', 'words', 'typo', 'attribute', 'proximity', 'exactness', 'titleWords:asc'],
    // No typo on words of four letters or fewer: one changed letter there is mostly another word
    // (snow/show, boot/book, mat/map), so "snow boots" must not find show tickets.
    typoTolerance: {
      enabled: true,
      minWordSizeForTypos: { oneTypo: 4, twoTypos: 8 },
      disableOnNumbers: true,
    },
    pagination: { maxTotalHits: MAX_TOTAL_HITS },
    faceting: { maxValuesPerFacet: MAX_VALUES_PER_FACET },
    // Facet counts come with the search itself; nothing asks Meilisearch to search within facet
    // values, and its facet-search structures are rebuilt on every document batch (a large part of
    // what an import costs Meilisearch), so they are not built.
    facetSearch: false,
    synonyms: data.synonyms,
    localizedAttributes: localized.length > 0 ? localized : null,
    // Visual search: product image vectors come with the documents (`_vectors.image`).
    ...(data.imageDimensions ? { embedders: { image: { source: 'userProvided' as const, dimensions: data.imageDimensions } } } : {}),
  };
}

const UNORDERED = new Set(['filterableAttributes', 'sortableAttributes']);

/** Whether every setting we want is what `actual` holds (arrays exact, except sets compared sorted; objects as subsets). */
export function settingsMatch(wanted: unknown, actual: unknown, key = ''): boolean {
  if (Array.isArray(wanted)) {
    if (!Array.isArray(actual) || actual.length !== wanted.length) return false;
    if (UNORDERED.has(key)) return JSON.stringify([...wanted].map(String).sort()) === JSON.stringify([...actual].map(String).sort());
    return wanted.every((item, i) => settingsMatch(item, actual[i]));
  }
  if (wanted !== null && typeof wanted === 'object') {
    if (actual === null || typeof actual !== 'object') return false;
    if (key === 'synonyms' && Object.keys(wanted).length !== Object.keys(actual).length) return false;
    return Object.entries(wanted).every(([k, v]) => settingsMatch(v, (actual as Record<string, unknown>)[k], k));
  }
  if (wanted === null && Array.isArray(actual)) return actual.length === 0;
  return wanted === actual;
}

const isNotFound = (error: unknown): boolean => error instanceof MeilisearchApiError && error.cause?.code === 'index_not_found';

/**
 * Creates the index `uid` when missing (unless `create` is false) and brings its settings to
 * `settings`; does nothing beyond a read when they already match. Says what it did.
 */
export async function applyIndexSettings(
  client: Meilisearch,
  uid: string,
  settings: Settings,
  options: { timeoutMs?: number; create?: boolean } = {},
): Promise<'unchanged' | 'updated' | 'created' | 'missing'> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let current: Settings | undefined;
  try {
    current = await client.index(uid).getSettings();
  } catch (error) {
    if (!isNotFound(error)) throw error;
    if (options.create === false) return 'missing';
    await settle(client.createIndex(uid, { primaryKey: 'id' }), timeoutMs, ['index_already_exists']);
  }
  if (current && settingsMatch(settings, current)) return 'unchanged';
  try {
    await settle(client.index(uid).updateSettings(settings), timeoutMs);
  } catch (error) {
    // Adding the image embedder fails while older documents lack `_vectors.image`; apply the rest now,
    // the embedder follows once the vision worker has rewritten them (the next settings check).
    const refusedVectors =
      error instanceof MeiliTaskError &&
      ['vector_embedding_error', 'invalid_vector_dimensions', 'invalid_vectors_type'].includes(error.task.error?.code ?? '');
    if (!refusedVectors || !settings.embedders || (current && settingsMatch({ embedders: settings.embedders }, current))) throw error;
    const { embedders: _embedders, ...rest } = settings;
    await settle(client.index(uid).updateSettings(rest), timeoutMs);
  }
  return current ? 'updated' : 'created';
}
