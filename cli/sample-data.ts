/**
 * The bundled sample shop `svc-theme dev` and `audit` render on: a store with categories, brands, a
 * collection, products and a content page, answered in the shapes of the public API operations the
 * storefront's sections call (catalog, search, content), so a theme sees exactly what it will see
 * on a real store. Images are inline SVG (data: URLs): nothing is fetched from anywhere.
 */

export const SAMPLE_STORE_ID = '0190a5c0-0000-7000-8000-00000000d3e0';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const image = (label: string, colour: string): string =>
  `data:image/svg+xml,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="480"><rect width="480" height="480" fill="${colour}"/><text x="240" y="250" font-size="40" text-anchor="middle" fill="#fff" font-family="sans-serif">${label}</text></svg>`,
  )}`;

const categories = [
  { id: '0190a5c0-0000-7000-8000-0000000000c1', name: 'Shoes', slug: 'shoes', parentId: null },
  { id: '0190a5c0-0000-7000-8000-0000000000c2', name: 'Bags', slug: 'bags', parentId: null },
  { id: '0190a5c0-0000-7000-8000-0000000000c3', name: 'Accessories', slug: 'accessories', parentId: null },
];
const brands = [
  { id: '0190a5c0-0000-7000-8000-0000000000b1', name: 'Northwind', slug: 'northwind' },
  { id: '0190a5c0-0000-7000-8000-0000000000b2', name: 'Contoso', slug: 'contoso' },
];

const productRows: Array<[string, string, string, number, string | null, number, number, string]> = [
  ['Trail running shoe', 'shoes', 'northwind', 89.9, '119.00', 4.6, 128, '#1e3a8a'],
  ['City sneaker', 'shoes', 'contoso', 64.5, null, 4.2, 54, '#065f46'],
  ['Leather boot', 'shoes', 'northwind', 149, null, 4.8, 31, '#7c2d12'],
  ['Canvas tote', 'bags', 'contoso', 24.99, '29.99', 4.1, 77, '#4c1d95'],
  ['Travel backpack', 'bags', 'northwind', 79, null, 4.7, 210, '#0f766e'],
  ['Wool scarf', 'accessories', 'contoso', 19.5, null, 3.9, 12, '#9f1239'],
  ['Leather belt', 'accessories', 'northwind', 34, null, 4.4, 45, '#374151'],
  ['Sun hat', 'accessories', 'contoso', 22, '27.50', 4.0, 8, '#a16207'],
];

const products = productRows.map(([title, categorySlug, brandSlug, price, compareAt, rating, reviews, colour], index) => {
  const category = categories.find((c) => c.slug === categorySlug)!;
  const brand = brands.find((b) => b.slug === brandSlug)!;
  const id = `0190a5c0-0000-7000-8000-0000000001${String(index).padStart(2, '0')}`;
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const url = image(title, colour);
  const priceText = price.toFixed(2);
  return {
    id,
    title,
    slug,
    description: `${title}: a sample product of the theme preview. Made to last, easy to care for.`,
    price: priceText,
    compareAtPrice: compareAt,
    discountPercent: compareAt ? Math.round((1 - price / Number(compareAt)) * 100) : 0,
    currency: 'EUR',
    inStock: index !== 5,
    rating,
    reviewCount: reviews,
    imageUrl: url,
    images: [{ url, alt: title }],
    brand: { id: brand.id, name: brand.name, slug: brand.slug },
    brandId: brand.id,
    categories: [{ id: category.id, name: category.name, slug: category.slug }],
    categoryIds: [category.id],
    variants: [
      {
        id: `${id.slice(0, -4)}1${id.slice(-3)}`,
        sku: `SKU-${index + 1}-S`,
        price: priceText,
        inStock: index !== 5,
        options: { Size: 'S' },
      },
      { id: `${id.slice(0, -4)}2${id.slice(-3)}`, sku: `SKU-${index + 1}-M`, price: priceText, inStock: true, options: { Size: 'M' } },
    ],
    type: 'PHYSICAL',
    createdAt: new Date(Date.UTC(2025, 0, index + 1)).toISOString(),
  };
});

const card = (p: (typeof products)[number]): Json => ({
  id: p.id,
  title: p.title,
  slug: p.slug,
  price: p.price,
  compareAtPrice: p.compareAtPrice,
  discountPercent: p.discountPercent,
  currency: p.currency,
  inStock: p.inStock,
  rating: p.rating,
  reviewCount: p.reviewCount,
  imageUrl: p.imageUrl,
  sponsored: false,
});

const collection = {
  id: '0190a5c0-0000-7000-8000-0000000000a1',
  name: 'Summer picks',
  slug: 'summer-picks',
  description: 'Light things for warm days.',
  products: [products[3]!, products[5]!, products[7]!].map(card),
};

const pages = [
  {
    id: '0190a5c0-0000-7000-8000-0000000000e1',
    title: 'About us',
    slug: 'about-us',
    bodyHtml:
      '<p>We are a sample shop. This page shows how a content page looks in your theme.</p><h2>Delivery</h2><p>Orders ship within two days.</p>',
  },
];

/** The pages of the sample shop a theme can be looked at on, by template. */
export const SAMPLE_PAGES: Array<{ template: string; path: string }> = [
  { template: 'index', path: '' },
  { template: 'search', path: '/search?q=shoe' },
  { template: 'category', path: '/categories/shoes' },
  { template: 'brand', path: '/brands/northwind' },
  { template: 'collection', path: '/collections/summer-picks' },
  { template: 'product', path: `/products/${products[0]!.slug}` },
  { template: 'page', path: '/pages/about-us' },
  { template: '404', path: '/no-such-page' },
];

const SORTS: Record<string, (a: (typeof products)[number], b: (typeof products)[number]) => number> = {
  price_asc: (a, b) => Number(a.price) - Number(b.price),
  price_desc: (a, b) => Number(b.price) - Number(a.price),
  rating: (a, b) => b.rating - a.rating,
  most_reviewed: (a, b) => b.reviewCount - a.reviewCount,
  best_selling: (a, b) => b.reviewCount - a.reviewCount,
  newest: (a, b) => b.createdAt.localeCompare(a.createdAt),
  discount: (a, b) => b.discountPercent - a.discountPercent,
};

function list(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function search(query: Record<string, string | string[] | undefined>): Json {
  const q = list(query.q)[0]?.toLowerCase().trim() ?? '';
  const categoryIds = list(query.categoryIds).concat(list(query.categoryId));
  const brandIds = list(query.brandIds).concat(list(query.brandId));
  const perPage = Math.min(Math.max(Number(list(query.perPage)[0] ?? 24) || 24, 1), 100);
  const sort = list(query.sort)[0] ?? (q ? 'relevance' : 'best_selling');
  let found = products.filter(
    (p) =>
      (!q || q.split(/\s+/).every((w) => `${p.title} ${p.description}`.toLowerCase().includes(w))) &&
      (!categoryIds.length || p.categoryIds.some((id) => categoryIds.includes(id))) &&
      (!brandIds.length || brandIds.includes(p.brandId)) &&
      (list(query.inStock)[0] !== 'true' || p.inStock),
  );
  if (SORTS[sort]) found = [...found].sort(SORTS[sort]);
  const totalPages = Math.max(1, Math.ceil(found.length / perPage));
  const page = Math.min(Math.max(Number(list(query.page)[0] ?? 1) || 1, 1), totalPages);
  const facetOf = (
    key: string,
    label: string,
    values: Array<{ id: string; name: string }>,
    of: (p: (typeof products)[number]) => string[],
    chosen: string[],
  ) => ({
    key,
    label,
    display: 'checkbox',
    values: values
      .map((v) => ({
        value: v.id,
        label: v.name,
        count: found.filter((p) => of(p).includes(v.id)).length,
        selected: chosen.includes(v.id),
      }))
      .filter((v) => v.count > 0 || v.selected),
  });
  return {
    items: found.slice((page - 1) * perPage, page * perPage).map(card),
    total: found.length,
    page,
    perPage,
    totalPages,
    sort,
    pricesShown: true,
    looseMatch: false,
    fullMatch: true,
    facets: [
      facetOf('category', 'Category', categories, (p) => p.categoryIds, categoryIds),
      facetOf('brand', 'Brand', brands, (p) => [p.brandId], brandIds),
      {
        key: 'inStock',
        label: 'In stock',
        display: 'toggle',
        values: [{ value: 'true', label: 'In stock', count: found.filter((p) => p.inStock).length, selected: false }],
      },
    ],
  };
}

export interface SampleAnswer {
  status: number;
  body: Json;
}

const notFound = (what: string): SampleAnswer => ({
  status: 404,
  body: { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: `The sample shop has no ${what}.` },
});

/** What the public API would answer the storefront for the sample store (path below /api/v1). */
export function sampleApi(method: string, path: string, query: Record<string, string | string[] | undefined>): SampleAnswer {
  const store = `/stores/${SAMPLE_STORE_ID}`;
  const ok = (body: Json): SampleAnswer => ({ status: 200, body });
  if (method === 'POST' && path === `/visual-search/public${store}/query`)
    return { status: 409, body: { status: 409, code: 'visual_search_disabled', detail: 'The sample shop has no visual search.' } };
  if (method !== 'GET') return notFound('such operation');
  if (path === '/catalog/public/search') return list(query.storeId)[0] === SAMPLE_STORE_ID ? ok(search(query)) : notFound('such store');
  if (!path.includes(store)) return notFound('such store');
  const rest = path.replace(/^\/(catalog|content|store-integrations)\/public/, '').replace(store, '');
  const area = path.split('/')[1];
  let m: RegExpExecArray | null;
  if (area === 'store-integrations') return ok({ analytics: [] });
  if (area === 'content') {
    if (rest === '/pages') return ok({ items: pages.map(({ title, slug }) => ({ title, slug })) });
    if ((m = /^\/pages\/([^/]+)$/.exec(rest))) {
      const found = pages.find((p) => p.slug === m![1]);
      return found ? ok(found) : notFound('such page');
    }
    return notFound('such content');
  }
  if (rest === '/price-visibility') return ok({ priceVisibility: 'EVERYONE', open: true });
  if (rest === '/categories') return ok({ items: categories });
  if (rest === '/collections')
    return ok({ items: [{ id: collection.id, name: collection.name, slug: collection.slug, description: collection.description }] });
  if ((m = /^\/categories\/([^/]+)$/.exec(rest))) {
    const found = categories.find((c) => c.slug === m![1]);
    return found ? ok(found) : notFound('such category');
  }
  if ((m = /^\/brands\/([^/]+)$/.exec(rest))) {
    const found = brands.find((b) => b.slug === m![1]);
    return found ? ok(found) : notFound('such brand');
  }
  if ((m = /^\/collections\/([^/]+)$/.exec(rest))) return m[1] === collection.slug ? ok(collection) : notFound('such collection');
  if ((m = /^\/products\/([^/]+)\/related$/.exec(rest))) {
    const product = products.find((p) => p.id === m![1]);
    return product
      ? ok({ items: products.filter((p) => p.id !== product.id && p.categoryIds[0] === product.categoryIds[0]).map(card) })
      : notFound('such product');
  }
  if ((m = /^\/products\/([^/]+)\/bundle$/.exec(rest))) return ok({ items: [] });
  if ((m = /^\/products\/([^/]+)$/.exec(rest))) {
    const found = products.find((p) => p.slug === m![1] || p.id === m![1]);
    return found ? ok(found) : notFound('such product');
  }
  return notFound('such resource');
}
