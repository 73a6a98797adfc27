/**
 * The factory data of a sandbox (100 products, 50 customers, 200 orders, 3 vendors),
 * generated locally and deterministically: a seeded PRNG picks titles, descriptions, categories,
 * brands, variants, prices, stock, customers and orders, so every sandbox and every reset starts from
 * the same catalog. Only ids and timestamps differ (ids are unique platform-wide; order dates are
 * spread over the 90 days before the seed). Pure data: sandbox.service writes it.
 */

export const SEED_COUNTS = { products: 100, customers: 50, orders: 200, vendors: 3 } as const;
export const SEED_CURRENCY = 'TRY';

/** mulberry32: a small deterministic PRNG (not for secrets). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeedCategory {
  key: string;
  name: string;
  slug: string;
  description: string;
  parent?: string;
}

export interface SeedVariant {
  sku: string;
  options: Record<string, string>;
  /** Decimal string, or null to use the product's price. */
  price: string | null;
  stock: number;
}

export interface SeedProduct {
  index: number;
  title: string;
  slug: string;
  descriptionHtml: string;
  price: string;
  compareAtPrice: string | null;
  brand: number;
  vendor: number;
  category: string;
  rating: string;
  reviewCount: number;
  viewCount: number;
  tags: string[];
  /** Colours of the generated image (hex), and its pattern. */
  image: { background: string; foreground: string; shape: 'circle' | 'square' | 'triangle' | 'diamond' | 'stripes' };
  variants: SeedVariant[];
}

export interface SeedCustomer {
  name: string;
  email: string;
  phone: string;
  city: string;
  district: string;
  acceptsMarketing: boolean;
}

export interface SeedOrder {
  customer: number;
  /** [product index, variant index, quantity] */
  lines: Array<[number, number, number]>;
  /** Minutes before the seed time. */
  minutesAgo: number;
  cancelled: boolean;
}

export interface SeedData {
  categories: SeedCategory[];
  brands: Array<{ name: string; slug: string; description: string; websiteUrl: string }>;
  vendors: string[];
  products: SeedProduct[];
  customers: SeedCustomer[];
  orders: SeedOrder[];
}

interface Family {
  category: string;
  nouns: string[];
  adjectives: string[];
  materials: string[];
  priceRange: [number, number];
  variants: 'apparel' | 'shoes' | 'colour' | 'capacity' | 'single';
  hue: number;
}

const FAMILIES: Family[] = [
  {
    category: 'tops',
    nouns: ['T-Shirt', 'Polo Shirt', 'Hoodie', 'Sweatshirt', 'Linen Shirt'],
    adjectives: ['Classic', 'Relaxed', 'Organic', 'Everyday', 'Heritage'],
    materials: ['organic cotton', 'linen', 'merino wool', 'recycled polyester'],
    priceRange: [249, 1299],
    variants: 'apparel',
    hue: 210,
  },
  {
    category: 'bottoms',
    nouns: ['Chino Trousers', 'Denim Jeans', 'Jogger Pants', 'Cargo Shorts'],
    adjectives: ['Slim', 'Straight', 'Tapered', 'Utility'],
    materials: ['stretch cotton', 'selvedge denim', 'twill'],
    priceRange: [399, 1599],
    variants: 'apparel',
    hue: 230,
  },
  {
    category: 'shoes',
    nouns: ['Running Shoes', 'Leather Sneakers', 'Trail Boots', 'Canvas Slip-Ons'],
    adjectives: ['Lightweight', 'Waterproof', 'Cushioned', 'Minimal'],
    materials: ['full-grain leather', 'knit mesh', 'canvas', 'suede'],
    priceRange: [899, 3999],
    variants: 'shoes',
    hue: 20,
  },
  {
    category: 'kitchen',
    nouns: ['Cast Iron Skillet', 'Chef Knife', 'Espresso Cups', 'Cutting Board', 'Tea Kettle'],
    adjectives: ['Professional', 'Handcrafted', 'Nordic', 'Everyday', 'Artisan'],
    materials: ['cast iron', 'olive wood', 'porcelain', 'stainless steel'],
    priceRange: [149, 2499],
    variants: 'colour',
    hue: 35,
  },
  {
    category: 'decor',
    nouns: ['Ceramic Vase', 'Table Lamp', 'Wool Throw', 'Scented Candle', 'Wall Clock'],
    adjectives: ['Minimalist', 'Rustic', 'Modern', 'Boho'],
    materials: ['stoneware', 'brass', 'wool', 'soy wax'],
    priceRange: [129, 1899],
    variants: 'colour',
    hue: 140,
  },
  {
    category: 'audio',
    nouns: ['Wireless Earbuds', 'Bluetooth Speaker', 'Over-Ear Headphones', 'Portable Radio'],
    adjectives: ['Noise-Cancelling', 'Compact', 'Studio', 'Rugged'],
    materials: ['aluminium', 'recycled plastic', 'fabric'],
    priceRange: [599, 6999],
    variants: 'colour',
    hue: 270,
  },
  {
    category: 'accessories',
    nouns: ['Phone Case', 'USB-C Charger', 'Power Bank', 'Laptop Sleeve'],
    adjectives: ['Slim', 'Fast', 'Protective', 'Travel'],
    materials: ['silicone', 'vegan leather', 'aluminium'],
    priceRange: [99, 1499],
    variants: 'capacity',
    hue: 290,
  },
  {
    category: 'skincare',
    nouns: ['Face Serum', 'Moisturiser', 'Cleansing Gel', 'Sunscreen SPF 50'],
    adjectives: ['Hydrating', 'Gentle', 'Vitamin C', 'Daily'],
    materials: ['hyaluronic acid', 'aloe vera', 'niacinamide'],
    priceRange: [179, 999],
    variants: 'single',
    hue: 330,
  },
  {
    category: 'fitness',
    nouns: ['Yoga Mat', 'Resistance Bands', 'Water Bottle', 'Foam Roller', 'Kettlebell'],
    adjectives: ['Non-Slip', 'Eco', 'Pro', 'Insulated'],
    materials: ['natural rubber', 'TPE', 'stainless steel', 'EVA foam'],
    priceRange: [149, 1999],
    variants: 'colour',
    hue: 100,
  },
  {
    category: 'camping',
    nouns: ['Camping Tent', 'Sleeping Bag', 'Headlamp', 'Trekking Poles'],
    adjectives: ['Ultralight', 'All-Season', 'Compact', 'Expedition'],
    materials: ['ripstop nylon', 'down', 'carbon fibre'],
    priceRange: [349, 7999],
    variants: 'single',
    hue: 60,
  },
];

const CATEGORIES: SeedCategory[] = [
  { key: 'apparel', name: 'Apparel', slug: 'apparel', description: 'Clothing for every day.' },
  { key: 'tops', name: 'Tops', slug: 'tops', description: 'T-shirts, shirts and hoodies.', parent: 'apparel' },
  { key: 'bottoms', name: 'Bottoms', slug: 'bottoms', description: 'Trousers, jeans and shorts.', parent: 'apparel' },
  { key: 'shoes', name: 'Shoes', slug: 'shoes', description: 'Sneakers, boots and runners.' },
  { key: 'home', name: 'Home & Kitchen', slug: 'home-kitchen', description: 'For the kitchen and the living room.' },
  { key: 'kitchen', name: 'Kitchen', slug: 'kitchen', description: 'Cookware and tableware.', parent: 'home' },
  { key: 'decor', name: 'Decor', slug: 'decor', description: 'Lamps, vases and textiles.', parent: 'home' },
  { key: 'electronics', name: 'Electronics', slug: 'electronics', description: 'Audio and accessories.' },
  { key: 'audio', name: 'Audio', slug: 'audio', description: 'Headphones and speakers.', parent: 'electronics' },
  { key: 'accessories', name: 'Accessories', slug: 'accessories', description: 'Chargers, cases and sleeves.', parent: 'electronics' },
  { key: 'skincare', name: 'Skincare', slug: 'skincare', description: 'Serums, creams and cleansers.' },
  { key: 'sports', name: 'Sports & Outdoors', slug: 'sports-outdoors', description: 'Training and camping gear.' },
  { key: 'fitness', name: 'Fitness', slug: 'fitness', description: 'Mats, bands and weights.', parent: 'sports' },
  { key: 'camping', name: 'Camping', slug: 'camping', description: 'Tents, sleeping bags and lights.', parent: 'sports' },
];

const BRANDS = [
  'Northwind',
  'Lumen & Co',
  'Atlas Outfitters',
  'Kivi',
  'Marmara Goods',
  'Solstice',
  'Everpeak',
  'Cobalt Audio',
  'Olive Grove',
  'Urban Fable',
];
const VENDORS = ['Anatolia Trading', 'Bosphorus Supply', 'Cappadocia Crafts'];
const COLOURS: Array<[string, string]> = [
  ['Black', '#1f2937'],
  ['White', '#f3f4f6'],
  ['Navy', '#1e3a8a'],
  ['Olive', '#4d7c0f'],
  ['Terracotta', '#c2410c'],
  ['Sand', '#d6c3a0'],
  ['Grey', '#6b7280'],
  ['Red', '#b91c1c'],
];
const SHAPES: SeedProduct['image']['shape'][] = ['circle', 'square', 'triangle', 'diamond', 'stripes'];
const FIRST = [
  'Ayşe',
  'Mehmet',
  'Elif',
  'Can',
  'Zeynep',
  'Emre',
  'Deniz',
  'Selin',
  'Burak',
  'Ece',
  'Kerem',
  'Defne',
  'Ali',
  'Merve',
  'Onur',
  'Naz',
  'Eren',
  'İpek',
  'Arda',
  'Duru',
  'Anna',
  'Lukas',
  'Sofia',
  'Jonas',
  'Mila',
];
const LAST = ['Yılmaz', 'Kaya', 'Demir', 'Şahin', 'Çelik', 'Aydın', 'Öztürk', 'Arslan', 'Doğan', 'Koç', 'Schmidt', 'Rossi', 'Novak'];
const PLACES: Array<[string, string[]]> = [
  ['İstanbul', ['Kadıköy', 'Beşiktaş', 'Üsküdar', 'Şişli', 'Bakırköy']],
  ['Ankara', ['Çankaya', 'Keçiören', 'Yenimahalle']],
  ['İzmir', ['Karşıyaka', 'Bornova', 'Konak']],
  ['Bursa', ['Nilüfer', 'Osmangazi']],
  ['Antalya', ['Muratpaşa', 'Konyaaltı']],
];

const ascii = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/ı/g, 'i')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
const slugify = (s: string): string =>
  ascii(s)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A price between min and max ending in .90 or .99 (decimal string). */
function price(rand: () => number, [min, max]: [number, number]): string {
  const whole = Math.floor(min + rand() * (max - min));
  return `${whole}.${rand() < 0.5 ? '90' : '99'}`;
}

function hsl(h: number, s: number, l: number): string {
  const a = (s * Math.min(l, 1 - l)) / 1;
  const f = (n: number): string => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(Math.min(k - 3, 9 - k, 1), -1);
    return Math.round(255 * c)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

function buildSeed(): SeedData {
  const rand = prng(0x5eed_2026);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const int = (min: number, max: number): number => min + Math.floor(rand() * (max - min + 1));
  const products: SeedProduct[] = [];
  const slugs = new Set<string>();
  const skus = new Set<string>();
  for (let index = 0; index < SEED_COUNTS.products; index += 1) {
    const family = FAMILIES[index % FAMILIES.length]!;
    const brand = (index * 7 + Math.floor(index / FAMILIES.length)) % BRANDS.length;
    let title = '';
    for (let attempt = 0; attempt < 50; attempt += 1) {
      title = `${BRANDS[brand]} ${pick(family.adjectives)} ${pick(family.nouns)}`;
      if (!slugs.has(slugify(title))) break;
      title = `${title} ${['II', 'Plus', 'Lite', 'Max', 'Air'][attempt % 5]}`;
      if (!slugs.has(slugify(title))) break;
    }
    let slug = slugify(title);
    if (slugs.has(slug)) slug = `${slug}-${index}`;
    slugs.add(slug);
    const material = pick(family.materials);
    const basePrice = price(rand, family.priceRange);
    const discounted = rand() < 0.25;
    const compareAt = discounted ? `${Math.ceil(Number(basePrice) * 1.25)}.00` : null;
    const colourCount = family.variants === 'colour' ? int(1, 3) : 1;
    const variants: SeedVariant[] = [];
    const skuBase = `SBX-${String(index + 1).padStart(3, '0')}`;
    const stock = (): number => (rand() < 0.06 ? 0 : int(5, 120));
    if (family.variants === 'apparel') {
      for (const size of ['S', 'M', 'L', 'XL'])
        variants.push({ sku: `${skuBase}-${size}`, options: { size }, price: null, stock: stock() });
    } else if (family.variants === 'shoes') {
      for (const size of ['40', '41', '42', '43', '44'])
        variants.push({ sku: `${skuBase}-${size}`, options: { size }, price: null, stock: stock() });
    } else if (family.variants === 'capacity') {
      const bump = Math.round(Number(basePrice) * 0.3);
      variants.push({ sku: `${skuBase}-STD`, options: { capacity: 'Standard' }, price: null, stock: stock() });
      variants.push({
        sku: `${skuBase}-XL`,
        options: { capacity: 'Extended' },
        price: `${Math.floor(Number(basePrice)) + bump}.90`,
        stock: stock(),
      });
    } else if (family.variants === 'colour') {
      const start = int(0, COLOURS.length - 1);
      for (let c = 0; c < colourCount; c += 1) {
        const [colour] = COLOURS[(start + c * 3) % COLOURS.length]!;
        variants.push({ sku: `${skuBase}-${colour.toUpperCase()}`, options: { colour }, price: null, stock: stock() });
      }
    } else {
      variants.push({ sku: `${skuBase}`, options: {}, price: null, stock: stock() });
    }
    for (const v of variants) skus.add(v.sku);
    const hue = (family.hue + int(-15, 15) + 360) % 360;
    products.push({
      index,
      title,
      slug,
      descriptionHtml: `<p>${title} made of ${material}. ${pick(['Designed to last for years of daily use.', 'Tested by our team on real trips and in real kitchens.', 'Made in small batches with traceable materials.', 'A customer favourite, now in more options.'])}</p><ul><li>Material: ${material}</li><li>Care: ${pick(['machine washable at 30 °C', 'wipe clean with a damp cloth', 'hand wash only', 'no special care needed'])}</li><li>Ships in 1–3 business days</li></ul>`,
      price: basePrice,
      compareAtPrice: compareAt,
      brand,
      vendor: index % VENDORS.length,
      category: family.category,
      rating: (3 + rand() * 2).toFixed(2),
      reviewCount: int(0, 480),
      viewCount: int(50, 20_000),
      tags: [family.category, material.split(' ').slice(-1)[0]!, ...(discounted ? ['sale'] : [])],
      image: { background: hsl(hue, 0.55, 0.82), foreground: hsl((hue + 180) % 360, 0.6, 0.38), shape: SHAPES[index % SHAPES.length]! },
      variants,
    });
  }
  const customers: SeedCustomer[] = [];
  for (let i = 0; i < SEED_COUNTS.customers; i += 1) {
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[(i * 5 + Math.floor(i / FIRST.length)) % LAST.length]!;
    const [city, districts] = PLACES[i % PLACES.length]!;
    customers.push({
      name: `${first} ${last}`,
      email: `${ascii(first)}.${ascii(last)}${i + 1}@example.com`,
      phone: `+90 5${int(30, 59)} ${int(100, 999)} ${int(10, 99)} ${int(10, 99)}`,
      city,
      district: pick(districts),
      acceptsMarketing: rand() < 0.4,
    });
  }
  const orders: SeedOrder[] = [];
  for (let i = 0; i < SEED_COUNTS.orders; i += 1) {
    const lines: Array<[number, number, number]> = [];
    const lineCount = int(1, 3);
    const seen = new Set<string>();
    for (let l = 0; l < lineCount; l += 1) {
      const p = int(0, SEED_COUNTS.products - 1);
      const v = int(0, products[p]!.variants.length - 1);
      if (seen.has(`${p}:${v}`)) continue;
      seen.add(`${p}:${v}`);
      lines.push([p, v, rand() < 0.8 ? 1 : int(2, 3)]);
    }
    orders.push({
      customer: int(0, SEED_COUNTS.customers - 1),
      lines,
      minutesAgo: Math.floor(((SEED_COUNTS.orders - i) / SEED_COUNTS.orders) * 90 * 24 * 60) - int(0, 600),
      cancelled: rand() < 0.05,
    });
  }
  return {
    categories: CATEGORIES,
    brands: BRANDS.map((name) => ({
      name,
      slug: slugify(name),
      description: `${name}: goods made to be used.`,
      websiteUrl: `https://${slugify(name)}.example.com`,
    })),
    vendors: VENDORS,
    products,
    customers,
    orders,
  };
}

let cached: SeedData | undefined;

/** The factory data (built once per process; the same in every process). */
export function seedData(): SeedData {
  cached ??= buildSeed();
  return cached;
}
