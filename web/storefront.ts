/**
 * The storefront: server-rendered pages of the default theme under /shop/<storeId>, built only on
 * the public API (catalog, search and suggest, content, visual search).
 */
import Router from '@koa/router';
import type Koa from 'koa';
import rawBody from 'raw-body';
import { ApiError, apiClientFor, type ApiClient, type Json } from './api-client';
import { PageNotFound, type PageContext, type SectionLoader, type SectionRef, type ThemeEngine } from './theme-engine';
import { SORTS, activeFilterCount, apiQuery, facetView, pagination, searchState, stateUrl } from './search-state';
import { STOREFRONT_CSP, pageHeaders } from './page-security';
import { addCheckoutRoutes } from './checkout';
import { integrationsHead } from './integrations-head';
import { StoreThemes } from './theme-packages';
import { isUuid } from '../storage/ids';

const SLUG_RE = /^[a-z0-9][a-z0-9-]{0,199}$/i;

/** Visually similar products per product image, for a few minutes. */
const similarCache = new Map<string, { at: number; items: unknown[] }>();
const SIMILAR_TTL_MS = 5 * 60_000;

function queryLists(ctx: Koa.Context): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(ctx.query)) {
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? value : [value];
  }
  return out;
}

async function publicPages(api: ApiClient, storeId: string): Promise<Array<{ title: string; slug: string }>> {
  const res = await api.request('GET', `/content/public/stores/${storeId}/pages`, { query: { limit: 20 } });
  return res.ok && Array.isArray(res.json?.items)
    ? res.json.items.map((p: { title: string; slug: string }) => ({ title: p.title, slug: p.slug }))
    : [];
}

export const sectionLoaders: Record<string, SectionLoader> = {
  header: async (api, page) => {
    const categories = await api.get(`/catalog/public/stores/${page.storeId}/categories`);
    return { categories: categories.items };
  },
  footer: async (api, page) => ({ content_pages: await publicPages(api, page.storeId) }),
  'collection-list': async (api, page, settings) => {
    const res = await api.get(`/catalog/public/stores/${page.storeId}/collections`);
    return { collections: res.items.slice(0, Number(settings.limit)) };
  },
  'category-list': async (api, page) => {
    const res = await api.get(`/catalog/public/stores/${page.storeId}/categories`);
    return { categories: res.items };
  },
  'featured-products': async (api, page, settings) => {
    const res = await api.get('/catalog/public/search', {
      storeId: page.storeId,
      sort: String(settings.sort),
      perPage: Number(settings.limit),
    });
    return { products: res.items, pricesShown: res.pricesShown };
  },
  'main-search': async (api, page) => {
    const fixed = (page.page.fixed ?? {}) as Record<string, string>;
    const state = searchState(page.query);
    const res = await api.get('/catalog/public/search', apiQuery(state, { storeId: page.storeId, ...fixed }));
    const views = facetView(res.facets, page.path, state, {
      categoryId: Boolean(fixed.categoryId),
      brandId: Boolean(fixed.brandId),
    }) as Array<Record<string, Json>>;
    const toggleCount = (param: string) => views.find((v) => v.kind === 'toggle' && v.param === param)?.count;
    const priceFacet = views.find((v) => v.kind === 'price');
    return {
      results: res,
      q: state.q?.[0] ?? '',
      sort: res.sort,
      sorts: SORTS,
      facets: views.filter((v) => v.kind === 'checkbox' || v.kind === 'radio'),
      toggles: [
        { param: 'inStock', label: 'In stock only', checked: state.inStock?.[0] === 'true', count: toggleCount('inStock') },
        { param: 'discounted', label: 'Discounted only', checked: state.discounted?.[0] === 'true', count: toggleCount('discounted') },
      ],
      price: res.pricesShown
        ? (priceFacet ?? { label: 'Price', min: state.priceMin?.[0] ?? '', max: state.priceMax?.[0] ?? '', buckets: [] })
        : undefined,
      hidden_state: (state.q ?? []).map((value) => ({ key: 'q', value })),
      pagination: pagination(page.path, state, res.page, res.totalPages),
      clear_url: stateUrl(page.path, state.q ? { q: state.q } : {}),
      filtered: Object.keys(state).some((k) => !['q', 'sort', 'page'].includes(k)),
      filter_count: activeFilterCount(state),
    };
  },
  'main-product': async (api, page) => {
    const product = page.page.product as { price?: number };
    if (product.price !== undefined) return {};
    const visibility = await api.get(`/catalog/public/stores/${page.storeId}/price-visibility`);
    return { price_visibility: visibility.priceVisibility };
  },
  'related-products': async (api, page, settings) => {
    const product = page.page.product as { id: string };
    const res = await api.get(`/catalog/public/stores/${page.storeId}/products/${product.id}/related`, { limit: Number(settings.limit) });
    return { products: res.items };
  },
  'product-bundle': async (api, page) => {
    const product = page.page.product as { id: string };
    const res = await api.request('GET', `/catalog/public/stores/${page.storeId}/products/${product.id}/bundle`);
    return { bundles: res.ok ? res.json.items : [] };
  },
  'similar-products': async (api, page, settings) => {
    const product = page.page.product as { id: string; images: Array<{ url: string }> };
    const imageUrl = product.images[0]?.url;
    if (!imageUrl) return { products: [] };
    const key = `${page.storeId}:${product.id}:${imageUrl}`;
    const cached = similarCache.get(key);
    if (cached && Date.now() - cached.at < SIMILAR_TTL_MS) return { products: cached.items };
    // The product's stored vector, ranked within its categories by the store's sameCategory setting:
    // nothing is embedded per page.
    const res = await api.request('GET', `/visual-search/public/stores/${page.storeId}/products/${product.id}/similar`, {
      query: { limit: Number(settings.limit) },
    });
    // 409: visual search is off for the store, or the product's image is not indexed yet: no section, nothing to log.
    if (res.status === 409) return { products: [] };
    if (!res.ok) throw new ApiError(res.status, res.json, 'similar products');
    const items = res.json.items as unknown[];
    if (similarCache.size > 500) similarCache.clear();
    similarCache.set(key, { at: Date.now(), items });
    return { products: items };
  },
};

const shopperApi = (ctx: Koa.Context): ApiClient => apiClientFor(ctx);

/** Stores known to answer the public API (an unknown or archived store answers 404 there), for a minute. */
const knownStores = new Map<string, number>();
/**
 * Whether the shop exists and is open (not suspended for an unpaid subscription invoice). An open
 * shop is remembered for a minute, so a suspension shows within a minute; a closed one is asked
 * about again on every page.
 */
async function storeState(ctx: Koa.Context, storeId: string): Promise<'open' | 'closed' | 'missing'> {
  const seen = knownStores.get(storeId);
  if (seen && Date.now() - seen < 60_000) return 'open';
  const res = await shopperApi(ctx).request('GET', `/catalog/public/stores/${storeId}/price-visibility`);
  if (res.status === 404) return 'missing';
  if (!res.ok) throw new ApiError(res.status, res.json, 'price-visibility');
  if (res.json.open === false) return 'closed';
  if (knownStores.size > 10_000) knownStores.clear();
  knownStores.set(storeId, Date.now());
  return 'open';
}

export function buildStorefrontRouter(
  theme: ThemeEngine,
  options: { uploadMaxBytes: number; appSecret?: string; formLimitBytes?: number },
): Router {
  const router = new Router();
  const storeThemes = new StoreThemes(theme);

  function context(ctx: Koa.Context, page: Record<string, unknown> = {}): { page: PageContext; api: ApiClient } {
    const storeId = ctx.params.storeId!;
    return {
      api: shopperApi(ctx),
      page: { storeId, shopBase: `/shop/${storeId}`, publicBaseUrl: theme.publicBaseUrl, path: ctx.path, query: queryLists(ctx), page },
    };
  }

  async function render(
    ctx: Koa.Context,
    template: string,
    title: string,
    page: Record<string, unknown> = {},
    extra: SectionRef[] = [],
  ): Promise<void> {
    // The store's analytics tags for the layout's head, and the page's CSP widened to their hosts.
    const integrations = await integrationsHead(ctx, shopperApi(ctx), ctx.params.storeId!);
    const { page: pageCtx, api } = context(ctx, { ...page, integrations });
    // The store's active theme package, or the built-in theme (web/theme-packages.ts).
    const themed = await storeThemes.forPage(api, ctx.params.storeId!, template);
    const sections = [...themed.sections, ...extra];
    try {
      const { html } = await themed.engine.renderPage('theme', sections, pageCtx, api, title);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = html;
    } catch (err) {
      if (err instanceof PageNotFound) return notFound(ctx, pageCtx, api);
      throw err;
    }
  }

  async function notFound(ctx: Koa.Context, pageCtx?: PageContext, api?: ApiClient): Promise<void> {
    const c = pageCtx && api ? { page: pageCtx, api } : context(ctx);
    const themed = await storeThemes.forPage(c.api, ctx.params.storeId!, '404');
    const { html } = await themed.engine.renderPage('theme', themed.sections, c.page, c.api, 'Page not found');
    ctx.status = 404;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  }

  /** Loads the page's main resource; 404 page when the API says it does not exist. */
  async function main<T>(ctx: Koa.Context, path: string): Promise<T | undefined> {
    const res = await shopperApi(ctx).request<T>('GET', path);
    if (res.status === 404 || res.status === 400) {
      await notFound(ctx);
      return undefined;
    }
    if (!res.ok) throw new ApiError(res.status, res.json, path);
    return res.json;
  }

  router.param('storeId', async (id, ctx, next) => {
    // Every answer under /shop/<storeId>, the 404 pages included; Referrer-Policy same-origin so the
    // cart and checkout forms post with their Origin (web/page-security.ts).
    pageHeaders(ctx, STOREFRONT_CSP);
    const state = isUuid(id) ? await storeState(ctx, id) : 'missing';
    if (state !== 'open') {
      ctx.status = state === 'missing' ? 404 : 503;
      if (state === 'closed') ctx.set('Retry-After', '3600');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = await theme.renderFile('landing.liquid', {
        error: state === 'missing' ? 'There is no shop at this address.' : 'This shop is temporarily unavailable. Please come back later.',
      });
      return;
    }
    await next();
  });
  router.param('slug', async (slug, ctx, next) => {
    if (!SLUG_RE.test(slug)) return notFound(ctx);
    await next();
  });

  router.get('/shop/:storeId', (ctx) => render(ctx, 'index', 'Home'));
  router.get('/shop/:storeId/search', (ctx) => {
    const q = typeof ctx.query.q === 'string' ? ctx.query.q : '';
    return render(ctx, 'search', q ? `Search: ${q}` : 'All products');
  });
  router.get('/shop/:storeId/categories/:slug', async (ctx) => {
    const category = await main<{ id: string; name: string }>(
      ctx,
      `/catalog/public/stores/${ctx.params.storeId}/categories/${ctx.params.slug}`,
    );
    if (category) await render(ctx, 'category', category.name, { category, heading: category.name, fixed: { categoryId: category.id } });
  });
  router.get('/shop/:storeId/brands/:slug', async (ctx) => {
    const brand = await main<{ id: string; name: string }>(ctx, `/catalog/public/stores/${ctx.params.storeId}/brands/${ctx.params.slug}`);
    if (brand) await render(ctx, 'brand', brand.name, { brand, heading: brand.name, fixed: { brandId: brand.id } });
  });
  router.get('/shop/:storeId/collections/:slug', async (ctx) => {
    const collection = await main<{ name: string }>(ctx, `/catalog/public/stores/${ctx.params.storeId}/collections/${ctx.params.slug}`);
    if (collection) await render(ctx, 'collection', collection.name, { collection });
  });
  router.get('/shop/:storeId/products/:slug', async (ctx) => {
    const product = await main<{ title: string; variants: Array<{ options: Record<string, string> }> }>(
      ctx,
      `/catalog/public/stores/${ctx.params.storeId}/products/${ctx.params.slug}`,
    );
    if (!product) return;
    const optionNames = [...new Set(product.variants.flatMap((v) => Object.keys(v.options)))];
    await render(ctx, 'product', product.title, { product, option_names: optionNames });
  });
  router.get('/shop/:storeId/pages/:slug', async (ctx) => {
    const res = await shopperApi(ctx).request('GET', `/content/public/stores/${ctx.params.storeId}/pages/${ctx.params.slug}`);
    // The content API answers or the page is left out (404), whatever the reason.
    if (!res.ok) return notFound(ctx);
    await render(ctx, 'page', res.json.title, { content: res.json });
  });
  router.get('/shop/:storeId/photo', (ctx) => render(ctx, 'photo', 'Search by photo'));
  router.post('/shop/:storeId/photo', async (ctx) => {
    const contentType = ctx.get('Content-Type');
    if (!contentType.startsWith('multipart/form-data')) {
      ctx.status = 415;
      return render(ctx, 'photo', 'Search by photo', { photo_error: 'Choose a photo to upload.' });
    }
    let body: Buffer;
    try {
      body = await rawBody(ctx.req, { limit: options.uploadMaxBytes + 64 * 1024 });
    } catch {
      ctx.status = 413;
      return render(ctx, 'photo', 'Search by photo', { photo_error: 'That photo is too large.' });
    }
    const api = shopperApi(ctx);
    const res = await api.request('POST', `/visual-search/public/stores/${ctx.params.storeId}/query`, { raw: { body, contentType } });
    if (!res.ok) {
      const messages: Record<number, string> = {
        409: 'Search by photo is not available in this shop right now.',
        413: 'That photo is too large.',
        415: 'That file is not a photo we can read (JPEG, PNG, WebP, GIF).',
        429: 'Too many photo searches: please try again in a minute.',
      };
      ctx.status = res.status === 404 ? 404 : 200;
      return render(ctx, 'photo', 'Search by photo', { photo_error: messages[res.status] ?? 'The photo could not be searched.' });
    }
    await render(ctx, 'photo', 'Search by photo', { photo_results: res.json.items, searched: true });
  });
  if (options.appSecret)
    addCheckoutRoutes(router, {
      appSecret: options.appSecret,
      publicBaseUrl: theme.publicBaseUrl,
      formLimitBytes: options.formLimitBytes ?? 64 * 1024,
      render: (ctx, template, title, page) => render(ctx, template, title, page),
    });
  storeThemes.addAssetRoute(router);
  router.get('/shop/:storeId/{*rest}', (ctx) => notFound(ctx));
  return router;
}
