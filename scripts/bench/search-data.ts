/**
 * The search benchmark's store: a fresh tenant and store written straight into PostgreSQL, with
 * ~50 brands, a two-level tree of categories (10 roots × 10 leaves), tags, a filter configuration
 * showing size and colour facets, and N published products built from word lists (1–4 variants
 * with size/colour options, prices 1–2000 with some compare-at prices, counters, attributes).
 * Rows go in with one `INSERT … SELECT FROM unnest(…)` per table and batch, so memory stays flat.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { uuidv7 } from '../../storage/ids';

/** A small deterministic PRNG (mulberry32), so a seed gives the same catalogue and queries. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** `count` distinct items of `list`. */
  sample<T>(list: readonly T[], count: number): T[] {
    const copy = [...list];
    const out: T[] = [];
    while (out.length < count && copy.length > 0) out.push(copy.splice(Math.floor(this.next() * copy.length), 1)[0]!);
    return out;
  }
}

export const ADJECTIVES = [
  'classic',
  'modern',
  'vintage',
  'slim',
  'oversized',
  'lightweight',
  'heavy',
  'waterproof',
  'breathable',
  'insulated',
  'compact',
  'portable',
  'wireless',
  'ergonomic',
  'premium',
  'essential',
  'rugged',
  'soft',
  'stretch',
  'quilted',
  'padded',
  'foldable',
  'adjustable',
  'organic',
  'recycled',
  'handmade',
  'minimalist',
  'deluxe',
  'everyday',
  'travel',
  'outdoor',
  'urban',
  'retro',
  'cozy',
  'sporty',
  'elegant',
  'casual',
  'durable',
  'smart',
  'silent',
] as const;

export const MATERIALS = [
  'cotton',
  'linen',
  'wool',
  'merino',
  'cashmere',
  'leather',
  'suede',
  'denim',
  'canvas',
  'nylon',
  'polyester',
  'bamboo',
  'oak',
  'walnut',
  'steel',
  'aluminium',
  'titanium',
  'ceramic',
  'glass',
  'silicone',
  'rubber',
  'silk',
  'velvet',
  'fleece',
  'cork',
] as const;

export const COLOURS = ['black', 'white', 'navy', 'grey', 'red', 'green', 'olive', 'beige', 'brown', 'blue', 'pink', 'yellow'] as const;
export const SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'] as const;

/** Root categories and their product nouns (each noun becomes a leaf category). */
export const CATALOGUE: Record<string, readonly string[]> = {
  Clothing: ['shirt', 'jacket', 'sweater', 'hoodie', 'dress', 'skirt', 'trousers', 'jeans', 'coat', 'vest'],
  Footwear: ['sneakers', 'boots', 'sandals', 'loafers', 'slippers', 'trainers', 'heels', 'clogs', 'espadrilles', 'moccasins'],
  Bags: ['backpack', 'tote', 'duffel', 'wallet', 'satchel', 'briefcase', 'pouch', 'messenger', 'clutch', 'suitcase'],
  Kitchen: ['kettle', 'skillet', 'saucepan', 'knife', 'blender', 'toaster', 'teapot', 'colander', 'grater', 'mug'],
  Home: ['lamp', 'cushion', 'blanket', 'rug', 'curtain', 'vase', 'mirror', 'clock', 'candle', 'basket'],
  Electronics: ['headphones', 'speaker', 'charger', 'keyboard', 'mouse', 'webcam', 'monitor', 'router', 'earbuds', 'powerbank'],
  Outdoor: ['tent', 'sleeping bag', 'lantern', 'hammock', 'compass', 'flask', 'stove', 'cooler', 'poles', 'tarp'],
  Sports: ['yoga mat', 'dumbbell', 'racket', 'helmet', 'gloves', 'jersey', 'shorts', 'leggings', 'skipping rope', 'kettlebell'],
  Beauty: ['serum', 'moisturiser', 'cleanser', 'shampoo', 'conditioner', 'lipstick', 'mascara', 'perfume', 'sunscreen', 'toner'],
  Toys: ['puzzle', 'robot', 'doll', 'train set', 'kite', 'building blocks', 'teddy bear', 'board game', 'scooter', 'yo-yo'],
};

export const BRAND_NAMES = [
  'Northwind',
  'Acme',
  'Lumen',
  'Everpeak',
  'Brightwater',
  'Copperline',
  'Fjordic',
  'Halcyon',
  'Ironwood',
  'Juniper',
  'Kestrel',
  'Larkspur',
  'Meridian',
  'Nimbus',
  'Oakhurst',
  'Pinnacle',
  'Quartzite',
  'Redfern',
  'Solstice',
  'Tidewater',
  'Umbra',
  'Vantage',
  'Westbrook',
  'Yarrow',
  'Zephyr',
  'Alder',
  'Bramble',
  'Cinder',
  'Driftwood',
  'Ember',
  'Foxglove',
  'Granite',
  'Harbor',
  'Indigo',
  'Jasper',
  'Kinfolk',
  'Lodestar',
  'Marlow',
  'Nordvik',
  'Orchard',
  'Pebble',
  'Quill',
  'Rowan',
  'Sable',
  'Thistle',
  'Upland',
  'Verdant',
  'Willow',
  'Xenon',
  'Yukon',
] as const;

export const TAG_NAMES = [
  'new',
  'bestseller',
  'gift',
  'eco',
  'limited',
  'sale',
  'summer',
  'winter',
  'autumn',
  'spring',
  'kids',
  'unisex',
  'vegan',
  'handcrafted',
  'bundle-ready',
  'clearance',
  'exclusive',
  'trending',
  'staff-pick',
  'back-in-stock',
  'fair-trade',
  'local',
  'imported',
  'waterproof',
  'travel',
  'office',
  'gym',
  'party',
  'wedding',
  'camping',
] as const;

export const ORIGINS = ['Portugal', 'Italy', 'Vietnam', 'Turkey', 'Japan', 'Germany', 'Mexico', 'India', 'Peru', 'Canada'] as const;

export const DESCRIPTION_WORDS = [
  'crafted',
  'for',
  'comfort',
  'and',
  'style',
  'with',
  'a',
  'timeless',
  'look',
  'made',
  'to',
  'last',
  'easy',
  'care',
  'perfect',
  'gift',
  'fits',
  'true',
  'size',
  'designed',
  'in',
  'our',
  'studio',
  'finished',
  'by',
  'hand',
  'responsibly',
  'sourced',
  'materials',
  'everyday',
  'use',
  'great',
  'value',
  'quality',
  'details',
  'reinforced',
  'stitching',
  'smooth',
  'texture',
  'versatile',
] as const;

export interface BenchStore {
  tenantId: string;
  storeId: string;
  brands: Array<{ id: string; name: string }>;
  /** Roots first, then leaves. */
  categories: Array<{ id: string; name: string; parentId: string | null; noun?: string }>;
  tags: Array<{ id: string; name: string }>;
  /** The store's enabled facet keys, in order (what the storefront filter configuration holds). */
  facetKeys: string[];
  /** Full API key value (`sk_…`) with every scope on the bench store. */
  apiKey: string;
}

export const BENCH_FACETS = [
  { key: 'category', label: 'Category', display: 'checkbox' },
  { key: 'brand', label: 'Brand', display: 'checkbox' },
  { key: 'price', label: 'Price', display: 'range' },
  { key: 'rating', label: 'Rating', display: 'rating' },
  { key: 'inStock', label: 'In stock', display: 'toggle' },
  { key: 'discounted', label: 'On sale', display: 'toggle' },
  { key: 'option:size', label: 'Size', display: 'checkbox' },
  { key: 'option:colour', label: 'Colour', display: 'swatch' },
] as const;

/** The bench store's configured price buckets; the public search counts each (one query per bucket). */
export const BENCH_PRICE_BUCKETS = [
  { min: 0, max: 50 },
  { min: 50, max: 100 },
  { min: 100, max: 250 },
  { min: 250, max: 500 },
  { min: 500, max: null },
];

const slugify = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Creates the tenant, store, brands, categories (with attributes), tags, filter configuration and an API key. */
export async function createBenchStore(db: DataSource, _rng: Rng): Promise<BenchStore> {
  const tenantId = uuidv7();
  const storeId = uuidv7();
  const suffix = storeId.replace(/-/g, '').slice(-12);
  await db.query(`INSERT INTO tenants (id, name, kind) VALUES ($1, $2, 'merchant')`, [tenantId, `Search bench ${suffix}`]);
  await db.query(`INSERT INTO stores (id, tenant_id, name, slug, currency, is_default) VALUES ($1, $2, $3, $4, 'EUR', true)`, [
    storeId,
    tenantId,
    'Search bench',
    `search-bench-${suffix}`,
  ]);

  const brands = BRAND_NAMES.map((name) => ({ id: uuidv7(), name }));
  await db.query(
    `INSERT INTO brands (id, tenant_id, store_id, name, slug) SELECT id, $1, $2, name, slug FROM unnest($3::uuid[], $4::text[], $5::text[]) AS t(id, name, slug)`,
    [tenantId, storeId, brands.map((b) => b.id), brands.map((b) => b.name), brands.map((b) => slugify(b.name))],
  );

  const categories: BenchStore['categories'] = [];
  for (const root of Object.keys(CATALOGUE)) categories.push({ id: uuidv7(), name: root, parentId: null });
  for (const root of categories.slice()) {
    for (const noun of CATALOGUE[root.name]!) {
      const name = noun.replace(/\b\w/g, (c) => c.toUpperCase());
      categories.push({ id: uuidv7(), name: name.endsWith('s') ? name : `${name}s`, parentId: root.id, noun });
    }
  }
  await db.query(
    `INSERT INTO categories (id, tenant_id, store_id, parent_id, name, slug, position)
     SELECT id, $1, $2, parent_id, name, slug, position FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::int[]) AS t(id, parent_id, name, slug, position)`,
    [
      tenantId,
      storeId,
      categories.map((c) => c.id),
      categories.map((c) => c.parentId),
      categories.map((c) => c.name),
      categories.map((c) => slugify(c.parentId ? `${c.name}-${c.id.slice(-6)}` : c.name)),
      categories.map((_, i) => i),
    ],
  );
  const leaves = categories.filter((c) => c.parentId);
  // Every leaf defines the attributes the products carry, so a product passes the merchant API's checks on replace.
  const attrRows = leaves.flatMap((c) => [
    { id: uuidv7(), categoryId: c.id, name: 'material', position: 0 },
    { id: uuidv7(), categoryId: c.id, name: 'origin', position: 1 },
  ]);
  await db.query(
    `INSERT INTO category_attributes (id, tenant_id, store_id, category_id, name, type, filterable, position)
     SELECT id, $1, $2, category_id, name, 'text', true, position FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::int[]) AS t(id, category_id, name, position)`,
    [
      tenantId,
      storeId,
      attrRows.map((a) => a.id),
      attrRows.map((a) => a.categoryId),
      attrRows.map((a) => a.name),
      attrRows.map((a) => a.position),
    ],
  );

  const tags = TAG_NAMES.map((name) => ({ id: uuidv7(), name }));
  await db.query(
    `INSERT INTO product_tags (id, tenant_id, store_id, name, slug) SELECT id, $1, $2, name, name FROM unnest($3::uuid[], $4::text[]) AS t(id, name)`,
    [tenantId, storeId, tags.map((t) => t.id), tags.map((t) => t.name)],
  );

  const facets = BENCH_FACETS.map((f, position) => ({ ...f, position, enabled: true }));
  const priceBuckets = BENCH_PRICE_BUCKETS;
  await db.query(
    `INSERT INTO storefront_filter_configs (store_id, tenant_id, facets, price_buckets) VALUES ($1, $2, $3::jsonb, $4::jsonb)`,
    [storeId, tenantId, JSON.stringify(facets), JSON.stringify(priceBuckets)],
  );

  // A store API key exactly as POST /api-keys stores it: `sk_<10 chars>_<secret>`, prefix readable, SHA-256 of the whole key.
  // Random, not from the seeded generator: a kept store of an earlier run holds the seeded prefix.
  const prefix = `sk_${Array.from(randomBytes(10), (byte) => 'abcdefghijklmnopqrstuvwxyz0123456789'[byte % 36]).join('')}`;
  const apiKey = `${prefix}_${randomBytes(32).toString('base64url')}`;
  await db.query(
    `INSERT INTO api_keys (id, tenant_id, store_id, name, prefix, secret_hash, scopes) VALUES ($1, $2, $3, 'search bench', $4, $5, $6::text[])`,
    [uuidv7(), tenantId, storeId, prefix, createHash('sha256').update(apiKey, 'utf8').digest('hex'), ['*']],
  );
  return { tenantId, storeId, brands, categories, tags, facetKeys: BENCH_FACETS.map((f) => f.key), apiKey };
}

const titleCase = (s: string): string => s.replace(/\b\w/g, (c) => c.toUpperCase());

/** Amount with 2 decimals as a string (never through floating point sums). */
const cents = (value: number): string => (Math.round(value * 100) / 100).toFixed(2);

/**
 * Inserts `count` published products (with variants, one image, one leaf category, 0–3 tags) in
 * batches of `batchSize`. Product ids are UUIDv7, so they sort in insertion order.
 */
export async function insertProducts(
  db: DataSource,
  store: BenchStore,
  rng: Rng,
  count: number,
  batchSize = 2_000,
  onBatch?: (done: number) => void,
): Promise<void> {
  const leaves = store.categories.filter((c) => c.parentId);
  const now = Date.now();
  const year = 365 * 24 * 3600 * 1000;
  for (let start = 0; start < count; start += batchSize) {
    const n = Math.min(batchSize, count - start);
    const p = {
      id: [] as string[],
      title: [] as string[],
      slug: [] as string[],
      description: [] as string[],
      price: [] as string[],
      compareAt: [] as Array<string | null>,
      brandId: [] as string[],
      vendorId: [] as Array<string | null>,
      vendorName: [] as Array<string | null>,
      attributes: [] as string[],
      rating: [] as string[],
      reviews: [] as number[],
      sales: [] as number[],
      views: [] as number[],
      created: [] as string[],
    };
    const v = {
      id: [] as string[],
      productId: [] as string[],
      sku: [] as string[],
      options: [] as string[],
      stock: [] as number[],
      position: [] as number[],
    };
    const img = { id: [] as string[], productId: [] as string[], url: [] as string[] };
    const cat = { productId: [] as string[], categoryId: [] as string[] };
    const tag = { productId: [] as string[], tagId: [] as string[] };

    for (let i = 0; i < n; i += 1) {
      const id = uuidv7();
      const leaf = rng.pick(leaves);
      const brand = rng.pick(store.brands);
      const adjective = rng.pick(ADJECTIVES);
      const material = rng.pick(MATERIALS);
      const title = titleCase(`${brand.name} ${adjective} ${material} ${leaf.noun!}${rng.chance(0.3) ? ` ${rng.pick(COLOURS)}` : ''}`);
      p.id.push(id);
      p.title.push(title);
      p.slug.push(`${slugify(title)}-${start + i}`);
      const words = Array.from({ length: rng.int(12, 30) }, () => rng.pick(DESCRIPTION_WORDS));
      p.description.push(
        `<p>${titleCase(adjective)} ${leaf.noun!} in ${material}. ${words.join(' ')}.</p><ul><li>${rng.pick(DESCRIPTION_WORDS)} ${rng.pick(DESCRIPTION_WORDS)}</li></ul>`,
      );
      // Log-uniform prices 1–2000, so cheap items are common and expensive ones rare.
      const price = Math.exp(rng.next() * Math.log(2000));
      p.price.push(cents(price));
      p.compareAt.push(rng.chance(0.25) ? cents(price * (1 + rng.int(5, 60) / 100)) : null);
      p.brandId.push(brand.id);
      const vendor = rng.chance(0.3) ? rng.pick(store.brands) : null;
      p.vendorId.push(vendor?.id ?? null);
      p.vendorName.push(vendor ? `${vendor.name} Trading` : null);
      p.attributes.push(JSON.stringify({ material: titleCase(material), origin: rng.pick(ORIGINS) }));
      const reviews = rng.chance(0.3) ? 0 : Math.floor(Math.exp(rng.next() * Math.log(5000)));
      p.reviews.push(reviews);
      p.rating.push(reviews === 0 ? '0' : (1 + rng.next() * 4).toFixed(2));
      p.sales.push(Math.floor(Math.exp(rng.next() * Math.log(20000))));
      p.views.push(Math.floor(Math.exp(rng.next() * Math.log(200000))));
      p.created.push(new Date(now - rng.next() * year).toISOString());

      const variants = rng.int(1, 4);
      const sizes = rng.sample(SIZES, variants);
      const colour = rng.pick(COLOURS);
      for (let k = 0; k < variants; k += 1) {
        v.id.push(uuidv7());
        v.productId.push(id);
        v.sku.push(`B${(start + i).toString(36)}-${k}`);
        v.options.push(JSON.stringify({ size: sizes[k]!, colour: k % 2 === 0 ? titleCase(colour) : titleCase(rng.pick(COLOURS)) }));
        v.stock.push(rng.chance(0.15) ? 0 : rng.int(1, 500));
        v.position.push(k);
      }
      img.id.push(uuidv7());
      img.productId.push(id);
      img.url.push(`https://images.example.com/${id}.jpg`);
      cat.productId.push(id);
      cat.categoryId.push(leaf.id);
      for (const t of rng.sample(store.tags, rng.int(0, 3))) {
        tag.productId.push(id);
        tag.tagId.push(t.id);
      }
    }

    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO products (id, tenant_id, store_id, title, slug, description_html, type, status, price, compare_at_price, currency, brand_id,
                               vendor_id, vendor_name, attributes, rating, review_count, sales_count, view_count, published_at, created_at, updated_at)
         SELECT id, $1, $2, title, slug, description, 'PHYSICAL', 'PUBLISHED', price, compare_at, 'EUR', brand_id, vendor_id, vendor_name, attributes,
                rating, reviews, sales, views, created, created, created
           FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::numeric[], $9::uuid[], $10::uuid[], $11::text[], $12::jsonb[],
                       $13::numeric[], $14::int[], $15::int[], $16::bigint[], $17::timestamptz[])
                AS t(id, title, slug, description, price, compare_at, brand_id, vendor_id, vendor_name, attributes, rating, reviews, sales, views, created)`,
        [
          store.tenantId,
          store.storeId,
          p.id,
          p.title,
          p.slug,
          p.description,
          p.price,
          p.compareAt,
          p.brandId,
          p.vendorId,
          p.vendorName,
          p.attributes,
          p.rating,
          p.reviews,
          p.sales,
          p.views,
          p.created,
        ],
      );
      await tx.query(
        `INSERT INTO product_variants (id, tenant_id, store_id, product_id, sku, options, stock, position)
         SELECT id, $1, $2, product_id, sku, options, stock, position FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::jsonb[], $7::int[], $8::int[]) AS t(id, product_id, sku, options, stock, position)`,
        [store.tenantId, store.storeId, v.id, v.productId, v.sku, v.options, v.stock, v.position],
      );
      await tx.query(
        `INSERT INTO product_images (id, product_id, url, position) SELECT id, product_id, url, 0 FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS t(id, product_id, url)`,
        [img.id, img.productId, img.url],
      );
      await tx.query(
        `INSERT INTO product_categories (product_id, category_id, position) SELECT product_id, category_id, 0 FROM unnest($1::uuid[], $2::uuid[]) AS t(product_id, category_id)`,
        [cat.productId, cat.categoryId],
      );
      if (tag.productId.length) {
        await tx.query(
          `INSERT INTO product_tag_assignments (tag_id, product_id) SELECT tag_id, product_id FROM unnest($1::uuid[], $2::uuid[]) AS t(tag_id, product_id)`,
          [tag.tagId, tag.productId],
        );
      }
    });
    onBatch?.(start + n);
  }
}

/** Removes the bench tenant and everything under it (products first: categories refuse to lose a parent mid-cascade). */
export async function deleteBenchStore(db: DataSource, store: Pick<BenchStore, 'tenantId' | 'storeId'>): Promise<void> {
  await db.query('DELETE FROM products WHERE store_id = $1', [store.storeId]);
  await db.query('DELETE FROM categories WHERE store_id = $1 AND parent_id IS NOT NULL', [store.storeId]);
  await db.query('DELETE FROM tenants WHERE id = $1', [store.tenantId]);
}
