/** The long descriptions of the storefront route table (storefront.routes.ts), kept out of its rows. */

/** The per-client request limit of search and suggest (api/storefront/public-limits.ts). */
export const PUBLIC_SEARCH_LIMIT =
  'Rate limited per client address: search and suggest together at most SEARCH_PUBLIC_REQUESTS_PER_MINUTE requests a minute (1200 by default, across all stores; an IPv6 client counts by its /64), then 429 rate_limited with Retry-After. Cached answers count too.';

/** What every built public read shares (docs/decisions.md, Tenancy). */
export const PUBLIC =
  "No token. A store that does not exist or is archived answers 404 store_not_found; only this store's published products and active categories, brands, collections and bundles are shown.";

/** What the price-carrying public reads say about price visibility. */
export const NO_PRICES =
  'When the store does not show prices to this visitor (price visibility HIDDEN, or SIGNED_IN without a valid access token), the price fields are absent';

export const PRICE_VISIBILITY_DESCRIPTION = `${PUBLIC} The store's price visibility (EVERYONE, SIGNED_IN, HIDDEN) and whether this request sees prices. Signed in means the request carries \`Authorization: Bearer <access token>\` of a signed-in user (any tenant); a missing, malformed, expired or revoked token never fails a public request, it only counts as not signed in. Where prices are not shown, search, suggest, product, related products, bundle, collection, flash sale and query-by-image reads leave the price fields out, search and query by image ignore price filters and price sorts, the public filter configuration leaves out the price facet, and the shipping quote does not use catalog prices.`;

export const searchDescription = (SPONSORED_SHARE: number): string =>
  [
    'No token. Only published products of the store (a store that does not exist or is archived answers 404 store_not_found).',
    'Filters: `type`, `categoryId` (the category and its whole subtree), `brandId`, `vendorId`, `ids`, `priceMin`/`priceMax` (inclusive), `minRating`, `inStock`, `discounted`, `categoryIds`/`brandIds` (any of), `options`/`attrs`. Array parameters accept repeated parameters and comma-separated values.',
    "Facets are the enabled facets of the store's filter configuration, in its order, with disjunctive counts: a facet's counts apply every selection except its own (categoryIds, brandIds, vendorId, type, price range, minRating, inStock, discounted, and the `name:value` selections of that option or attribute), so a shopper sees what the other values would give. categoryId and brandId are page context (a category or brand page) and always apply.",
    "The price facet gives `stats` (the lowest and highest price of the matching products, ignoring the price selection) and `buckets`, each with its `count` under every selection except the price range. The buckets are the merchant's when the store's filter configuration has at least one (`bucketSource: configured`); otherwise they are derived from the prices of the store's published products (`bucketSource: derived`): about five ranges with rounded bounds (1, 2, 2.5 or 5 × 10^k, e.g. 100–250, 2,500+), chosen from the price quantiles so that each holds a fair share of the products and none is empty; the first starts at or below the lowest price and the last has no upper bound (max null). A store whose products all share one price (or that has fewer than two products) gets no derived buckets. A bucket's count can be 0 under the current filters; the storefront does not offer those as links.",
    'Sorts: relevance (default; the query words decide), newest, price_asc, price_desc, discount (largest percent off first), most_reviewed, rating, best_selling, most_viewed; ties go to the newest product. A chosen sort orders the results strictly.',
    "Matching: every word must match (one typo from 4 letters, two from 8; the last word also as a prefix when it has 4 characters or more). When fewer products than a page hold every word, looser readings are asked in one more request: word forms (plurals in the singular, a number split from its unit such as 500ml, a model code split) and the query with one word dropped at a time (two from queries of 4 words or more), scored by the words they keep (the product word most; stop words, numbers and units little); their words are matched whole, short ones exactly, and a reading that drops words yet finds more than half of what the filters allow is not used. A first page in relevance order with fewer full matches than perPage is filled with the best partial matches after them (items say `fullMatch`; `matching.partialMatches` counts them; `total` includes them); when nothing matches every word, the best reading answers alone (`looseMatch` true; `matching.strategy`, `q`, `dropped` and `changed` say exactly how). A search with a query that still finds nothing is counted in the store's zero-result queries, one answered only loosely in its weak-result queries.",
    `Sponsored: on the first page, active sponsored listings of the store whose keywords match the query and whose product matches every filter take at most one slot per ${SPONSORED_SHARE} results of perPage (3 on a page of 24), marked \`sponsored: true\`, at positions 1, ${SPONSORED_SHARE + 2}, ${2 * SPONSORED_SHARE + 3}; a product already among the page's results is not repeated. They are not counted in total.`,
    'Prices (price, compareAtPrice, discountPercent, currency) and the price facet (its stats and buckets) are left out when the store does not show prices to this visitor (price visibility). Nothing may then depend on a price either: priceMin and priceMax are ignored, and so are the price sorts (price_asc, price_desc, and discount, which orders by the percent off); the search runs as if they had not been sent (a price sort as relevance), `sort` answers the sort applied, and `ignoredParams` names what was ignored (e.g. `["priceMin", "sort"]`; empty otherwise). They are ignored rather than refused so that shared links and storefront sections that ask for them keep working for visitors who cannot see prices.',
    "Answers are cached per store and normalised parameters, and dropped as soon as the store's index, settings, price visibility, filter configuration or sponsored listings change.",
    PUBLIC_SEARCH_LIMIT,
  ].join('\n\n');

export const SUGGEST_DESCRIPTION =
  "No token. Products whose words start with what was typed (the last word as a prefix, typos tolerated, fewer words matched while typing), plus the store's active categories and brands whose names match (every typed word starts a word of the name, or is one typo away from a word of 5 letters or more); each list holds at most `limit`. q is the text being completed, so it stays required (the specification marks it required with length 1 to 200). locale is not typed for suggest; it follows the public search rule. limit has no stated default; 8. Prices are left out when the store does not show them to this visitor. Cached like search. " +
  PUBLIC_SEARCH_LIMIT;

export const GET_PRODUCT_DESCRIPTION = `${PUBLIC} Drafts, archived and unknown slugs answer 404 product_not_found (slug compared case-insensitively). Public fields only: no costs, no stock levels (inStock per variant and for the product), ids of the product, its variants, brand and categories only. ${NO_PRICES} (price, compareAtPrice, discountPercent, currency, and each variant's price and compareAtPrice).`;

export const TRACK_PRODUCT_VIEW_DESCRIPTION = `${PUBLIC} Adds one to the product's view count (the most_viewed sort of the public search) with a single UPDATE, at most once per client address and product in PRODUCT_VIEW_WINDOW_SECONDS (an hour by default; an IPv6 client counts by its /64): a repeated view, such as a reload, answers 204 all the same but is not counted. A product that is not published in the store answers 404 product_not_found. No audit entry and no outbox row: a visitor counter is not a merchant write, and the search index picks the count up with the product's next event or a reindex.`;

export const LIST_CATEGORIES_DESCRIPTION = `${PUBLIC} The active categories as a tree (children in display order); an inactive category hides its whole subtree.`;

export const LIST_BRANDS_DESCRIPTION = `${PUBLIC} Ordered by name; not paged.`;

export const GET_BRAND_DESCRIPTION = `${PUBLIC} An inactive or unknown brand answers 404 brand_not_found.`;

export const FILTER_CONFIG_DESCRIPTION = `${PUBLIC} The configuration as merchants saved it (or the default), with only the enabled facets, in position order. An empty priceBuckets means none are configured: the search then derives them from the store's prices (see the public search). When the store does not show prices to this visitor, the price facet is left out and priceBuckets is empty.`;

export const GET_CATEGORY_DESCRIPTION = `${PUBLIC} One active category (not under an inactive one) with its active children and its ancestors from the root (breadcrumb); otherwise 404 category_not_found.`;

export const RELATED_PRODUCTS_DESCRIPTION = `${PUBLIC} Published related products: RELATED first by position, then UPSELL, then CROSS_SELL. A product that is not published in the store answers 404 product_not_found. limit is not typed by the specification; 1 to 100, default 50. ${NO_PRICES} (price, compareAtPrice, discountPercent of each item).`;

export const PRODUCT_BUNDLE_DESCRIPTION = `${PUBLIC} The active bundles sold as the product or containing it, with computed prices as the bundle read returns them; a product that is not published answers 404 product_not_found, one without an active bundle 404 bundle_not_found. ${NO_PRICES} (pricing, currency, itemsTotal, bundlePrice, savings, savingsPercent, and each item's unitPrice and productCurrency).`;

export const SITEMAP_FEED_DESCRIPTION =
  PUBLIC +
  ' Published products ordered by id. cursor and limit are not typed by the specification: cursor is the opaque nextCursor of the previous page; limit is 1 to 1000, default 500 (sitemap generators read large pages).';

export const LIST_COLLECTIONS_DESCRIPTION = `${PUBLIC} In display order; not paged.`;

export const GET_COLLECTION_DESCRIPTION = `${PUBLIC} An inactive or unknown collection answers 404 collection_not_found; its published products in the collection's order. ${NO_PRICES} (price, compareAtPrice, discountPercent of each product).`;
