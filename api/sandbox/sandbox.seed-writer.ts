/**
 * Writes the factory data (sandbox.seed) into a sandbox's tenant and store inside the caller's
 * transaction, and after commit makes it searchable: the products are written to the store's
 * Meilisearch index directly (the indexer's StoreIndexer), with their image vectors, so the sandbox
 * is searchable when its creation or reset answers.
 *
 * The seed is one bulk write of a system actor: no audit entry or outbox row per seeded row (the
 * sandbox.create / sandbox.reset audit entry covers it) and no webhooks (there are no subscriptions
 * in a fresh sandbox). Seeded orders count toward the products' sales counts, as placed orders do.
 */
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  Brand,
  Category,
  Customer,
  Order,
  OrderItem,
  Product,
  ProductCategory,
  ProductImage,
  ProductImageVector,
  ProductTag,
  ProductTagAssignment,
  ProductVariant,
  VisualSearchSettings,
} from '../../storage/entities';
import { uuidv7 } from '../../storage/ids';
import { servicesOf, type RequestContext } from '../../storage/request-context';
import { storeIndexUid } from '../../search/index-names';
import { StoreIndexer } from '../../indexer/index-consumer';
import { settle } from '../../search/meili-tasks';
import { getEmbedder, MOBILENET_DIMENSIONS } from '../../vision/embedder';
import { prepareImage } from '../../vision/image';
import { decodeVector, encodeVector } from '../../storage/vectors';
import { formatUnits, rescale, RESULT_DECIMALS, SCALE, toUnits } from '../../domain/money';
import type { Config } from '../../lib/config';
import { seedImagePath, seedImagePng } from './sandbox.images';
import { SEED_CURRENCY, seedData } from './sandbox.seed';

export interface SeededIds {
  productIds: string[];
}

/** Seed image vectors of this process (the seed images never change). */
let vectorsPromise: Promise<Float32Array[]> | undefined;

export const sandboxSeedOptions = {
  /** Give the seed products image vectors (visual search enabled). Off: visual search stays disabled. */
  vectors: true,
};

/** Identifies the seed images: vectors cached under another version are never used. */
export function seedImageVersion(): string {
  return createHash('sha256')
    .update(JSON.stringify(seedData().products.map((p) => p.image)))
    .digest('hex')
    .slice(0, 16);
}

/**
 * The seed images' vectors: from this process's memory, else from sandbox_seed_vectors (computed once
 * on the platform), else computed now with the MobileNetV2 embedder and stored there.
 */
export function seedVectors(dataSource: DataSource, config: Pick<Config, 'vision'>): Promise<Float32Array[]> {
  if (!vectorsPromise) {
    vectorsPromise = (async () => {
      const count = seedData().products.length;
      const version = seedImageVersion();
      const stored: Array<{ vector: Buffer }> = await dataSource.query(
        "SELECT vector FROM sandbox_seed_vectors WHERE model = 'mobilenet-v2' AND seed_version = $1 ORDER BY position",
        [version],
      );
      if (stored.length === count) return stored.map((r) => new Float32Array(decodeVector(r.vector)));
      const embedder = await getEmbedder('mobilenet-v2', config.vision);
      const pngs = await Promise.all(seedData().products.map((p) => seedImagePng(p.index)!));
      const images = await Promise.all(pngs.map((png) => prepareImage(png, { size: embedder.inputSize, maxPixels: 1_000_000 })));
      const out: Float32Array[] = [];
      for (let i = 0; i < images.length; i += 25) out.push(...(await embedder.embedImages(images.slice(i, i + 25))));
      await dataSource.query(
        `INSERT INTO sandbox_seed_vectors (model, seed_version, position, vector)
         SELECT 'mobilenet-v2', $1, p, v FROM unnest($2::int[], $3::bytea[]) AS t(p, v)
         ON CONFLICT DO NOTHING`,
        [version, out.map((_, i) => i), out.map((v) => encodeVector(v))],
      );
      return out;
    })();
    vectorsPromise.catch(() => (vectorsPromise = undefined));
  }
  return vectorsPromise;
}

/** Writes the whole factory data for the (empty) store. `vectors`: the seed vectors, when available. */
export async function writeSeed(
  tx: RequestContext,
  storeId: string,
  publicBaseUrl: string,
  vectors: Float32Array[] | undefined,
  now = Date.now(),
): Promise<SeededIds> {
  const tenantId = tx.tenantId!;
  const seed = seedData();
  const m = tx.manager;
  const at = new Date(now);
  const base = { tenantId, storeId };

  const categoryIds = new Map<string, string>();
  for (const c of seed.categories) categoryIds.set(c.key, uuidv7());
  await m.insert(
    Category,
    seed.categories.map((c, position) => ({
      ...base,
      id: categoryIds.get(c.key)!,
      parentId: c.parent ? categoryIds.get(c.parent)! : null,
      name: c.name,
      slug: c.slug,
      description: c.description,
      position,
      isActive: true,
      createdAt: at,
      updatedAt: at,
    })),
  );
  const brandIds = seed.brands.map(() => uuidv7());
  await m.insert(
    Brand,
    seed.brands.map((b, i) => ({
      ...base,
      id: brandIds[i]!,
      name: b.name,
      slug: b.slug,
      description: b.description,
      websiteUrl: b.websiteUrl,
      isActive: true,
      createdAt: at,
      updatedAt: at,
    })),
  );
  const vendorIds = seed.vendors.map(() => uuidv7());

  // Sales counts: the quantities of the seeded orders that are not cancelled.
  const sales = new Map<number, number>();
  for (const o of seed.orders) if (!o.cancelled) for (const [p, , q] of o.lines) sales.set(p, (sales.get(p) ?? 0) + q);

  const productIds = seed.products.map(() => uuidv7());
  const variantIds = seed.products.map((p) => p.variants.map(() => uuidv7()));
  await m.insert(
    Product,
    seed.products.map((p, i) => {
      const created = new Date(now - (seed.products.length - i) * 60_000);
      return {
        ...base,
        id: productIds[i]!,
        title: p.title,
        slug: p.slug,
        descriptionHtml: p.descriptionHtml,
        type: 'PHYSICAL' as const,
        status: 'PUBLISHED' as const,
        price: p.price,
        compareAtPrice: p.compareAtPrice,
        currency: SEED_CURRENCY,
        brandId: brandIds[p.brand]!,
        vendorId: vendorIds[p.vendor]!,
        vendorName: seed.vendors[p.vendor]!,
        rating: p.rating,
        reviewCount: p.reviewCount,
        salesCount: sales.get(i) ?? 0,
        viewCount: String(p.viewCount),
        publishedAt: created,
        createdAt: created,
        updatedAt: created,
      };
    }),
  );
  await m.insert(
    ProductVariant,
    seed.products.flatMap((p, i) =>
      p.variants.map((v, position) => ({
        ...base,
        id: variantIds[i]![position]!,
        productId: productIds[i]!,
        sku: v.sku,
        barcode: null,
        options: v.options,
        price: v.price,
        compareAtPrice: null,
        stock: v.stock,
        position,
      })),
    ),
  );
  await m.insert(
    ProductImage,
    seed.products.map((p, i) => ({
      id: uuidv7(),
      productId: productIds[i]!,
      url: `${publicBaseUrl}${seedImagePath(p.index)}`,
      alt: p.title,
      position: 0,
    })),
  );
  await m.insert(
    ProductCategory,
    seed.products.map((p, i) => ({ productId: productIds[i]!, categoryId: categoryIds.get(p.category)!, position: 0 })),
  );
  const tagNames = [...new Set(seed.products.flatMap((p) => p.tags))].sort();
  const tagIds = new Map(tagNames.map((name) => [name, uuidv7()]));
  await m.insert(
    ProductTag,
    tagNames.map((name) => ({
      ...base,
      id: tagIds.get(name)!,
      name,
      slug: name.replace(/[^a-z0-9]+/g, '-'),
      createdAt: at,
      updatedAt: at,
    })),
  );
  await m.insert(
    ProductTagAssignment,
    seed.products.flatMap((p, i) => [...new Set(p.tags)].map((t) => ({ tagId: tagIds.get(t)!, productId: productIds[i]!, createdAt: at }))),
  );

  if (vectors && vectors.length === seed.products.length) {
    await m.insert(VisualSearchSettings, {
      storeId,
      tenantId,
      enabled: true,
      model: 'mobilenet-v2',
      dimensions: MOBILENET_DIMENSIONS,
      createdAt: at,
      updatedAt: at,
    });
    await m.insert(
      ProductImageVector,
      seed.products.map((p, i) => ({
        ...base,
        productId: productIds[i]!,
        status: 'INDEXED' as const,
        model: 'mobilenet-v2' as const,
        dimensions: MOBILENET_DIMENSIONS,
        vector: encodeVector(vectors[i]!),
        imageUrl: `${publicBaseUrl}${seedImagePath(p.index)}`,
        error: null,
        attempts: 1,
        createdAt: at,
        updatedAt: at,
      })),
    );
  }

  const customerIds = seed.customers.map(() => uuidv7());
  await m.insert(
    Customer,
    seed.customers.map((c, i) => ({
      ...base,
      id: customerIds[i]!,
      name: c.name,
      email: c.email,
      phone: c.phone,
      addresses: [{ line1: `${c.district} Cd. No:${(i % 40) + 1}`, city: c.city, district: c.district, country: 'TR' }],
      tags: c.acceptsMarketing ? ['newsletter'] : [],
      acceptsMarketing: c.acceptsMarketing,
      marketingConsentAt: c.acceptsMarketing ? at : null,
      createdAt: at,
      updatedAt: at,
    })),
  );

  const orders: Array<Partial<Order>> = [];
  const items: Array<Partial<OrderItem>> = [];
  for (const o of seed.orders) {
    const id = uuidv7();
    const created = new Date(now - o.minutesAgo * 60_000);
    const customer = seed.customers[o.customer]!;
    let subtotal = 0n;
    let count = 0;
    o.lines.forEach(([p, v, quantity], position) => {
      const product = seed.products[p]!;
      const variant = product.variants[v]!;
      const unit = toUnits(variant.price ?? product.price);
      const line = unit * BigInt(quantity);
      subtotal += line;
      count += quantity;
      items.push({
        id: uuidv7(),
        tenantId,
        orderId: id,
        productId: productIds[p]!,
        variantId: variantIds[p]![v]!,
        title: product.title,
        sku: variant.sku,
        options: variant.options,
        quantity,
        unitPrice: formatUnits(unit, SCALE),
        lineTotal: formatUnits(line, SCALE),
        position,
      });
    });
    orders.push({
      ...base,
      id,
      customerId: customerIds[o.customer]!,
      status: o.cancelled ? 'CANCELLED' : 'PLACED',
      currency: SEED_CURRENCY,
      subtotal: formatUnits(subtotal, SCALE),
      total: formatUnits(rescale(subtotal, SCALE, RESULT_DECIMALS), RESULT_DECIMALS),
      itemCount: count,
      shippingCity: customer.city,
      shippingDistrict: customer.district,
      createdAt: created,
      updatedAt: created,
      cancelledAt: o.cancelled ? new Date(created.getTime() + 3_600_000) : null,
    });
  }
  await m.insert(Order, orders);
  await m.insert(OrderItem, items);
  return { productIds };
}

/**
 * Replaces the store's search documents with the seeded products (waits for Meilisearch), with the
 * process's admin client. `clear`: first delete every document of the store (a reset; the index and
 * its settings stay).
 */
export async function indexSeed(ctx: RequestContext, storeId: string, productIds: string[], clear: boolean): Promise<void> {
  const { searchNodes, logger } = servicesOf(ctx);
  const meili = await searchNodes.adminFor(storeId);
  // The store's settings are applied every time (force), so an indexer of this call alone caches nothing worth keeping.
  const indexer = new StoreIndexer({ dataSource: ctx.dataSource, meili, logger });
  if (clear) await settle(meili.index(storeIndexUid(storeId)).deleteAllDocuments(), 30_000, ['index_not_found']);
  await indexer.ensureStore(storeId, { force: true });
  await indexer.syncProducts(productIds);
  ctx.services?.search?.invalidate(storeId);
  // Written straight to the index, not through the indexer: the other api processes are told here.
  await ctx.services?.announceStoreChanges?.([storeId]);
}
