/**
 * Product → search document. Re-reads products from PostgreSQL in batches (by ids) together with
 * their variants, first image, categories (with ancestors), brand, tags and translations, and builds
 * the documents of the store's Meilisearch index.
 *
 * Decision: only PUBLISHED products are indexed. A product that is DRAFT, ARCHIVED or deleted is
 * removed from its store's index, so the public search can never show it whatever filter it builds.
 * `status` is still stored (and filterable) so public search adds `status = PUBLISHED` as a second
 * guard.
 */
import type { DataSource } from 'typeorm';
import sanitizeHtml from 'sanitize-html';
import type { ProductStatus, ProductType } from '../storage/entities/product.entity';
import { currentVectors } from '../storage/vectors';
import { publicPrices } from '../domain/pricing-engine';
import { ladderCell } from './price-buckets';
import { isPlainParagraphs } from '../domain/product-rules';
import { discountPercent, toUnits } from '../domain/money';

export interface ProductDocument {
  id: string;
  storeId: string;
  status: ProductStatus;
  type: ProductType;
  title: string;
  /**
   * Words in the title: the last relevance tie-breaker (search/index-settings.ts), so among products
   * that match a query equally well the one whose title is mostly about it comes first.
   */
  titleWords: number;
  /**
   * The product word of each part of the title (titleProductWords), searched right after the brand:
   * a query naming the kind of product ("yellow dress") finds the dresses before a "Yellow Dress
   * Shirt", whose title only mentions the word.
   */
  titleProductWords: string[];
  description: string;
  brandId: string | null;
  brand: string | null;
  /** The assigned categories and all their ancestors (filtering by a parent finds its subtree). */
  categoryIds: string[];
  /** Names of the assigned categories. */
  categories: string[];
  /** Names of the ancestors of the assigned categories (searchable, weighed below `categories`). */
  categoryPath: string[];
  vendorId: string | null;
  vendor: string | null;
  tagIds: string[];
  tags: string[];
  /** `name:value` of every variant option value. */
  options: string[];
  /** `name:value` of every attribute value. */
  attrs: string[];
  /** The bare values of `options` and `attrs`, so a filter can name a value without its option. */
  optionValues: string[];
  attrValues: string[];
  currency: string;
  /**
   * The effective public price (domain/pricing-engine.ts: no customer group, quantity 1, at indexing
   * time): the stored price after the store's pricing rules and running flash sales. The pricing
   * scheduler re-indexes a product when a window that reaches it opens or closes.
   */
  price: number;
  /**
   * The price's cell on the ladder of nice numbers (search/price-buckets.ts ladderCell): a facet of
   * at most 49 values from which the count of every price bucket with bounds on the ladder (all
   * derived buckets, and configured ones such as 0–50, 50–100, 100–250) is summed, instead of one
   * count query per bucket.
   */
  priceCell: number;
  /** When the engine lowers the price: the higher of the stored price and the stored compare-at price; otherwise the stored compare-at price. */
  compareAtPrice: number | null;
  discountPercent: number;
  discounted: boolean;
  /** 'FLASH_SALE' while a running flash-sale campaign sets the price (storefront badge), else null. */
  badge: 'FLASH_SALE' | null;
  /** The campaign that sets the price, and when it ends (Unix seconds), for a countdown; null without one. */
  flashSaleId: string | null;
  flashSaleEndsAt: number | null;
  inStock: boolean;
  rating: number;
  /** Whole stars (rating rounded down), the rating facet's buckets. */
  stars: number;
  reviewCount: number;
  salesCount: number;
  viewCount: number;
  /** Unix seconds. */
  createdAt: number;
  publishedAt: number | null;
  slug: string;
  imageUrl: string | null;
  /**
   * The main image's vector under the user-provided embedder `image` (visual search), null when there
   * is none. Always present: once a store's index has the embedder, Meilisearch refuses documents
   * without it, and addDocuments replaces whole documents, so every rebuild must carry it.
   */
  _vectors: { image: number[] | null };
  /** Translations: title_<locale>, description_<locale> (locale as stored, non-alphanumerics → `_`). */
  [translated: `title_${string}` | `description_${string}`]: string;
}

interface ProductRow {
  id: string;
  store_id: string;
  title: string;
  slug: string;
  description_html: string;
  type: ProductType;
  status: ProductStatus;
  price: string;
  compare_at_price: string | null;
  currency: string;
  brand_id: string | null;
  brand_name: string | null;
  vendor_id: string | null;
  vendor_name: string | null;
  attributes: Record<string, string | number | boolean> | null;
  translations: Record<string, { title?: string; descriptionHtml?: string }> | null;
  rating: string;
  review_count: number;
  sales_count: number;
  view_count: string;
  published_at: Date | null;
  created_at: Date;
}

interface CategoryNode {
  id: string;
  parentId: string | null;
  name: string;
}

/** Field-name form of a locale key: `pt-BR` → `pt_br`. */
/**
 * The last word of each part of a title, the parts split at dashes, commas, brackets, slashes and
 * "with"/"for"/"w/": "Men's Yellow Dress Shirt" → shirt; "Keurig K45 Coffee Maker with 48 K-Cup
 * Packs" → maker, packs; "Samsung S860 - digital camera" → s860, camera.
 */
export function titleProductWords(title: string): string[] {
  const parts = title.toLowerCase().split(/\s[-–—|]\s|[,;:()[\]/]|\s(?:with|for|w\/|in|by)\s/u);
  const heads = new Set<string>();
  for (const part of parts) {
    const words = part.match(/[\p{L}\p{N}]+/gu)?.filter((w) => /\p{L}/u.test(w)) ?? [];
    if (words.length) heads.add(words[words.length - 1]!);
  }
  return [...heads];
}

/** Words (runs of letters and digits) in a title. */
export const titleWordCount = (title: string): number => title.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

export function localeField(locale: string): string {
  return locale.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

const BLOCK = /<(\/?)(p|br|li|ul|ol|h[1-6]|div|tr|td|th|table|blockquote|pre|hr)\b/gi;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Plain text of sanitised HTML: tags dropped (block tags become spaces), entities decoded, whitespace collapsed. */
export function plainText(html: string): string {
  if (!html) return '';
  // Plain text and plain paragraphs (most descriptions) need no HTML parser: the tags become spaces.
  if (isPlainParagraphs(html))
    return html
      .replace(/<\/?p>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  const text = sanitizeHtml(html.replace(BLOCK, ' <$1$2'), { allowedTags: [], allowedAttributes: {} });
  return text
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+\d*);/gi, (whole, name: string) => {
      const key = name.toLowerCase();
      if (key in ENTITIES) return ENTITIES[key]!;
      if (key.startsWith('#x')) return String.fromCodePoint(parseInt(key.slice(2), 16));
      if (key.startsWith('#')) return String.fromCodePoint(parseInt(key.slice(1), 10));
      return whole;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

const unix = (date: Date | null): number | null => (date ? Math.floor(date.getTime() / 1000) : null);

/**
 * Builds documents for products. Holds a per-store cache of the category tree for its lifetime, so
 * build one per delivery or per reindex run.
 */
/** A product's attributes as its document's `attrs` holds them: `name:value` each. */
export function attributeTokens(attributes: Record<string, string | number | boolean> | null | undefined): string[] {
  return Object.entries(attributes ?? {}).map(([name, value]) => `${name}:${String(value)}`);
}

export class ProductDocumentBuilder {
  private readonly trees = new Map<string, Map<string, CategoryNode>>();

  constructor(private readonly dataSource: DataSource) {}

  /** Documents of the given products that are PUBLISHED, and the ids that are not (missing, draft, archived). */
  async build(ids: string[]): Promise<{ documents: ProductDocument[]; removed: string[] }> {
    if (ids.length === 0) return { documents: [], removed: [] };
    const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
    const rows: ProductRow[] = await this.dataSource.query(
      `SELECT p.id, p.store_id, p.title, p.slug, p.description_html, p.type, p.status, p.price, p.compare_at_price, p.currency,
              p.brand_id, b.name AS brand_name, p.vendor_id, p.vendor_name, p.attributes, p.translations, p.rating,
              p.review_count, p.sales_count, p.view_count, p.published_at, p.created_at
         FROM products p LEFT JOIN brands b ON b.id = p.brand_id
        WHERE p.id = ANY($1::uuid[]) AND p.status = 'PUBLISHED'`,
      [unique],
    );
    const found = new Set(rows.map((r) => r.id));
    const removed = unique.filter((id) => !found.has(id));
    if (rows.length === 0) return { documents: [], removed };
    const productIds = rows.map((r) => r.id);

    const [variants, images, categories, tags] = await Promise.all([
      this.dataSource.query(
        `SELECT product_id, options, stock FROM product_variants WHERE product_id = ANY($1::uuid[]) ORDER BY product_id, position, id`,
        [productIds],
      ) as Promise<Array<{ product_id: string; options: Record<string, string> | null; stock: number }>>,
      this.dataSource.query(
        `SELECT DISTINCT ON (product_id) product_id, url FROM product_images WHERE product_id = ANY($1::uuid[]) ORDER BY product_id, position, id`,
        [productIds],
      ) as Promise<Array<{ product_id: string; url: string }>>,
      this.dataSource.query(
        `SELECT product_id, category_id FROM product_categories WHERE product_id = ANY($1::uuid[]) ORDER BY product_id, position, category_id`,
        [productIds],
      ) as Promise<Array<{ product_id: string; category_id: string }>>,
      this.dataSource.query(
        `SELECT a.product_id, t.id, t.name FROM product_tag_assignments a JOIN product_tags t ON t.id = a.tag_id
          WHERE a.product_id = ANY($1::uuid[]) ORDER BY a.product_id, t.name`,
        [productIds],
      ) as Promise<Array<{ product_id: string; id: string; name: string }>>,
    ]);

    const vectors = await currentVectors(this.dataSource, productIds);
    const effective = await publicPrices(this.dataSource, rows);

    const group = <T extends { product_id: string }>(list: T[]): Map<string, T[]> => {
      const map = new Map<string, T[]>();
      for (const item of list) {
        const bucket = map.get(item.product_id);
        if (bucket) bucket.push(item);
        else map.set(item.product_id, [item]);
      }
      return map;
    };
    const variantsBy = group(variants);
    const imageBy = new Map(images.map((i) => [i.product_id, i.url]));
    const categoriesBy = group(categories);
    const tagsBy = group(tags);

    const documents: ProductDocument[] = [];
    for (const row of rows) {
      const tree = await this.tree(row.store_id);
      const assigned = (categoriesBy.get(row.id) ?? []).map((c) => c.category_id).filter((id) => tree.has(id));
      const categoryIds = new Set<string>(assigned);
      const ancestorNames: string[] = [];
      for (const id of assigned) {
        let parent = tree.get(id)?.parentId ?? null;
        for (let depth = 0; parent && depth < 100; depth += 1) {
          const node = tree.get(parent);
          if (!node) break;
          if (!categoryIds.has(node.id)) {
            categoryIds.add(node.id);
            ancestorNames.push(node.name);
          }
          parent = node.parentId;
        }
      }
      const options = new Set<string>();
      const optionValues = new Set<string>();
      let inStock = false;
      for (const variant of variantsBy.get(row.id) ?? []) {
        if (variant.stock > 0) inStock = true;
        for (const [name, value] of Object.entries(variant.options ?? {})) {
          options.add(`${name}:${value}`);
          optionValues.add(String(value));
        }
      }
      const attributes = Object.entries(row.attributes ?? {});
      const attrs = attributeTokens(row.attributes);
      const priced = effective.get(row.id);
      const price = priced && priced.discounted ? priced.price : row.price;
      let compareAt = row.compare_at_price;
      if (priced && priced.discounted && (compareAt === null || toUnits(compareAt) < toUnits(row.price))) compareAt = row.price;
      const percent = discountPercent(price, compareAt);
      const document: ProductDocument = {
        id: row.id,
        storeId: row.store_id,
        status: row.status,
        type: row.type,
        title: row.title,
        titleWords: titleWordCount(row.title),
        titleProductWords: titleProductWords(row.title),
        description: plainText(row.description_html),
        slug: row.slug,
        brandId: row.brand_id,
        brand: row.brand_name,
        categoryIds: [...categoryIds],
        categories: assigned.map((id) => tree.get(id)!.name),
        categoryPath: [...new Set(ancestorNames)],
        vendorId: row.vendor_id,
        vendor: row.vendor_name,
        tagIds: (tagsBy.get(row.id) ?? []).map((t) => t.id),
        tags: (tagsBy.get(row.id) ?? []).map((t) => t.name),
        options: [...options],
        attrs,
        optionValues: [...optionValues],
        attrValues: [...new Set(attributes.map(([, value]) => String(value)))],
        currency: row.currency,
        price: Number(price),
        priceCell: ladderCell(Number(price)),
        compareAtPrice: compareAt === null ? null : Number(compareAt),
        discountPercent: percent,
        discounted: percent > 0,
        badge: priced?.discounted && priced.flashSale ? 'FLASH_SALE' : null,
        flashSaleId: priced?.discounted && priced.flashSale ? priced.flashSale.campaignId : null,
        flashSaleEndsAt: priced?.discounted && priced.flashSale ? Math.floor(Date.parse(priced.flashSale.endsAt) / 1000) : null,
        inStock,
        rating: Number(row.rating),
        stars: Math.floor(Number(row.rating)),
        reviewCount: row.review_count,
        salesCount: row.sales_count,
        viewCount: Number(row.view_count),
        createdAt: unix(row.created_at)!,
        publishedAt: unix(row.published_at),
        imageUrl: imageBy.get(row.id) ?? null,
        _vectors: { image: vectors.get(row.id) ?? null },
      };
      for (const [locale, translation] of Object.entries(row.translations ?? {})) {
        const field = localeField(locale);
        if (!field) continue;
        if (translation?.title) document[`title_${field}`] = translation.title;
        if (translation?.descriptionHtml) document[`description_${field}`] = plainText(translation.descriptionHtml);
      }
      documents.push(document);
    }
    return { documents, removed };
  }

  private async tree(storeId: string): Promise<Map<string, CategoryNode>> {
    let tree = this.trees.get(storeId);
    if (!tree) {
      const rows: Array<{ id: string; parent_id: string | null; name: string }> = await this.dataSource.query(
        'SELECT id, parent_id, name FROM categories WHERE store_id = $1',
        [storeId],
      );
      tree = new Map(rows.map((r) => [r.id, { id: r.id, parentId: r.parent_id, name: r.name }]));
      this.trees.set(storeId, tree);
    }
    return tree;
  }
}
