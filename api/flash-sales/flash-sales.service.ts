/**
 * Flash-sale campaigns of a store: merchant CRUD (DELETE archives) and the public reads.
 *
 * Every write records one audit entry (`flash_sale_campaign.create|update|archive`) and one outbox row
 * for the campaign (queue index, aggregate flash_sale_campaign) in its transaction; when the campaign
 * is live (PUBLISHED and inside its window) before or after the write, every published product it
 * reaches before or after is queued for re-indexing (`product.repriced`). Windows that open or close
 * later are the pricing scheduler's (api/pricing/reprice.ts). A PATCH that changes nothing, and
 * archiving an archived campaign, write nothing.
 *
 * Public answers are cached in the process per store, visitor price visibility and read (5 s TTL,
 * like the search cache bounded in bytes); a write to a campaign drops its store's entries in this
 * process at once, other processes see it within the TTL (as they see a window open or close).
 */
import { QueryFailedError } from 'typeorm';
import { FlashSaleCampaign, FlashSaleItem } from '../../storage/entities';
import type { FlashSaleItemKind, FlashSaleStatus } from '../../storage/entities/flash-sale.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import { formatUnits, toUnits } from '../../domain/money';
import { firstFreeSlug, slugify, CATALOG_SLUG_MAX } from '../../domain/slugs';
import { requireStore, storeNotFound } from '../../domain/store-access';
import { publicPrices } from '../../domain/pricing-engine';
import { campaignProducts, enqueueRepricing } from '../pricing/reprice';
import { asPriceVisibility, pricesShown } from '../../domain/price-visibility';
import { ResultCache } from '../../search/result-cache';

type Phase = 'UPCOMING' | 'RUNNING' | 'ENDED';

interface ProductEntry {
  productId: string;
  salePrice: number | null;
  discountPercent: number | null;
  stockCap: number | null;
  soldCount: number;
  remaining: number | null;
  soldOut: boolean;
}

export interface CampaignView {
  id: string;
  storeId: string;
  name: string;
  slug: string;
  description: string | null;
  status: FlashSaleStatus;
  phase: Phase;
  live: boolean;
  startsAt: string;
  endsAt: string;
  products: ProductEntry[];
  categories: Array<{ categoryId: string; discountPercent: number }>;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const dec = (value: string | null): number | null => (value === null ? null : Number(formatUnits(toUnits(value), 4)));
const canonical = (value: number | null | undefined): string | null => (value === null || value === undefined ? null : formatUnits(toUnits(value), 4));

const phaseOf = (row: Pick<FlashSaleCampaign, 'startsAt' | 'endsAt'>, now = new Date()): Phase =>
  now.getTime() < row.startsAt.getTime() ? 'UPCOMING' : now.getTime() < row.endsAt.getTime() ? 'RUNNING' : 'ENDED';
const isLive = (row: Pick<FlashSaleCampaign, 'status' | 'startsAt' | 'endsAt'>, now = new Date()): boolean => row.status === 'PUBLISHED' && phaseOf(row, now) === 'RUNNING';

function entryView(item: FlashSaleItem): ProductEntry {
  const remaining = item.stockCap === null ? null : Math.max(0, item.stockCap - item.soldCount);
  return {
    productId: item.targetId,
    salePrice: dec(item.salePrice),
    discountPercent: dec(item.discountPercent),
    stockCap: item.stockCap,
    soldCount: item.soldCount,
    remaining,
    soldOut: remaining === 0,
  };
}

export function campaignView(row: FlashSaleCampaign, items: FlashSaleItem[]): CampaignView {
  const sorted = [...items].sort((a, b) => a.position - b.position);
  return {
    id: row.id,
    storeId: row.storeId,
    name: row.name,
    slug: row.slug,
    description: row.description,
    status: row.status,
    phase: phaseOf(row),
    live: isLive(row),
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    products: sorted.filter((i) => i.kind === 'PRODUCT').map(entryView),
    categories: sorted.filter((i) => i.kind === 'CATEGORY').map((i) => ({ categoryId: i.targetId, discountPercent: dec(i.discountPercent)! })),
    archivedAt: row.archivedAt ? row.archivedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const notFound = (): NotFoundError => new NotFoundError('The flash sale campaign does not exist.', 'flash_sale_not_found');
const slugTaken = (): ConflictError => new ConflictError('Another flash sale campaign of the store has this slug.', 'slug_taken', [{ path: 'body.slug', message: 'slug is already taken in the store' }]);

async function itemsOf(ctx: RequestContext, campaignIds: string[]): Promise<Map<string, FlashSaleItem[]>> {
  const map = new Map<string, FlashSaleItem[]>();
  if (campaignIds.length === 0) return map;
  const rows = await ctx.manager.getRepository(FlashSaleItem).createQueryBuilder('i').where('i.campaignId IN (:...ids)', { ids: campaignIds }).orderBy('i.position', 'ASC').getMany();
  for (const row of rows) map.set(row.campaignId, [...(map.get(row.campaignId) ?? []), row]);
  return map;
}

// ---- input checks --------------------------------------------------------------------------------

export interface ProductInput {
  productId: string;
  salePrice?: number;
  discountPercent?: number;
  stockCap?: number | null;
}

export interface CategoryInput {
  categoryId: string;
  discountPercent: number;
}

function checkWindow(startsAt: Date, endsAt: Date, endsChanged: boolean): void {
  const errors: Array<{ path: string; message: string }> = [];
  if (endsAt.getTime() <= startsAt.getTime()) errors.push({ path: 'body.endsAt', message: 'endsAt must be after startsAt' });
  else if (endsChanged && endsAt.getTime() <= Date.now()) errors.push({ path: 'body.endsAt', message: 'endsAt must be in the future' });
  if (errors.length > 0) throw new ValidationError(errors.map((e) => e.message).join('; '), errors);
}

async function checkTargets(tx: RequestContext, storeId: string, products: ProductInput[] | undefined, categories: CategoryInput[] | undefined): Promise<void> {
  const check = async (table: string, ids: string[], code: string, label: string, path: (i: number) => string): Promise<void> => {
    if (ids.length === 0) return;
    const rows: Array<{ id: string }> = await tx.manager.query(`SELECT id FROM ${table} WHERE store_id = $1 AND id = ANY($2::uuid[])`, [storeId, ids]);
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.map((id, i) => ({ id, i })).filter(({ id }) => !found.has(id));
    if (missing.length > 0) throw new AppError(404, code, 'Not Found', `${missing.length} ${label}(s) of the campaign are not of the store.`, missing.map(({ i }) => ({ path: path(i), message: `${label} not found in the store` })));
  };
  await check('products', (products ?? []).map((p) => p.productId.toLowerCase()), 'product_not_found', 'product', (i) => `body.products[${i}].productId`);
  await check('categories', (categories ?? []).map((c) => c.categoryId.toLowerCase()), 'category_not_found', 'category', (i) => `body.categories[${i}].categoryId`);
}

function buildItems(campaignId: string, products: ProductInput[], categories: CategoryInput[], previous: FlashSaleItem[] = []): FlashSaleItem[] {
  const soldBefore = new Map(previous.filter((i) => i.kind === 'PRODUCT').map((i) => [i.targetId, i.soldCount]));
  const items: FlashSaleItem[] = [];
  products.forEach((p, position) => {
    const id = p.productId.toLowerCase();
    items.push({ campaignId, targetId: id, kind: 'PRODUCT', salePrice: canonical(p.salePrice), discountPercent: canonical(p.discountPercent), stockCap: p.stockCap ?? null, soldCount: soldBefore.get(id) ?? 0, position });
  });
  categories.forEach((c, i) => {
    items.push({ campaignId, targetId: c.categoryId.toLowerCase(), kind: 'CATEGORY' as FlashSaleItemKind, salePrice: null, discountPercent: canonical(c.discountPercent), stockCap: null, soldCount: 0, position: products.length + i });
  });
  return items;
}

/** What the audit log keeps and what decides whether a PATCH changed anything. */
const fields = (row: Pick<FlashSaleCampaign, 'name' | 'slug' | 'description' | 'status' | 'startsAt' | 'endsAt'>, items: FlashSaleItem[]): Record<string, unknown> => ({
  name: row.name,
  slug: row.slug,
  description: row.description,
  status: row.status,
  startsAt: row.startsAt.toISOString(),
  endsAt: row.endsAt.toISOString(),
  items: [...items].sort((a, b) => a.position - b.position).map((i) => ({ kind: i.kind, targetId: i.targetId, salePrice: i.salePrice === null ? null : canonical(Number(i.salePrice)), discountPercent: i.discountPercent === null ? null : canonical(Number(i.discountPercent)), stockCap: i.stockCap })),
});

/** Runs a write that may take a slug; a concurrent duplicate becomes 409 slug_taken. */
async function uniqueSlug<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const driver = error instanceof QueryFailedError ? (error.driverError as { code?: string; constraint?: string }) : {};
    if (driver.code === '23505' && driver.constraint === 'flash_sale_campaigns_slug') throw slugTaken();
    throw error;
  }
}

async function slugFree(tx: RequestContext, storeId: string, slug: string, exceptId?: string): Promise<boolean> {
  const rows: unknown[] = await tx.manager.query('SELECT 1 FROM flash_sale_campaigns WHERE store_id = $1 AND lower(slug) = lower($2) AND id <> $3', [storeId, slug, exceptId ?? '00000000-0000-0000-0000-000000000000']);
  return rows.length === 0;
}

async function derivedSlug(tx: RequestContext, storeId: string, name: string): Promise<string> {
  const base = slugify(name, CATALOG_SLUG_MAX - 8, 'flash-sale');
  const rows: Array<{ slug: string }> = await tx.manager.query(`SELECT lower(slug) AS slug FROM flash_sale_campaigns WHERE store_id = $1 AND lower(slug) LIKE $2`, [storeId, `${base}%`]);
  const taken = new Set(rows.map((r) => r.slug));
  return firstFreeSlug(base, (s) => taken.has(s));
}

const campaignEvent = (row: FlashSaleCampaign, verb: 'created' | 'updated' | 'archived') => ({
  queue: 'index' as const,
  topic: `flash_sale_campaign.${verb}`,
  aggregateType: 'flash_sale_campaign',
  aggregateId: row.id,
  payload: { storeId: row.storeId },
});

/** Re-indexes the products of the versions that are live now (before and/or after the write). */
async function repriceFor(tx: RequestContext, storeId: string, campaignId: string, change: string, versions: Array<{ row: Pick<FlashSaleCampaign, 'status' | 'startsAt' | 'endsAt'>; items: FlashSaleItem[] }>): Promise<void> {
  const now = new Date();
  const ids = new Set<string>();
  for (const v of versions) {
    if (!isLive(v.row, now)) continue;
    for (const id of await campaignProducts(tx.manager, storeId, v.items.map((i) => ({ kind: i.kind, targetId: i.targetId })))) ids.add(id);
  }
  await enqueueRepricing(tx.manager, tx.tenantId!, [...ids], { flashSaleCampaignId: campaignId, change });
}

// ---- merchant reads ------------------------------------------------------------------------------

export interface ListCampaignsQuery {
  storeId: string;
  cursor?: string;
  limit: number;
  status?: FlashSaleStatus;
}

export async function listCampaigns(ctx: RequestContext, query: ListCampaignsQuery): Promise<{ items: CampaignView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  const qb = tenantRepository(ctx, FlashSaleCampaign).createQueryBuilder('c').andWhere('c.storeId = :storeId', { storeId: store.id });
  if (query.status !== undefined) qb.andWhere('c.status = :status', { status: query.status });
  if (query.cursor !== undefined) qb.andWhere('c.id < :cursor', { cursor: query.cursor });
  const rows = await qb.orderBy('c.id', 'DESC').take(query.limit + 1).getMany();
  const page = rows.slice(0, query.limit);
  const items = await itemsOf(ctx, page.map((r) => r.id));
  return { items: page.map((r) => campaignView(r, items.get(r.id) ?? [])), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

async function findOwn(ctx: RequestContext, id: string, lock = false): Promise<FlashSaleCampaign> {
  const campaigns = tenantRepository(ctx, FlashSaleCampaign, notFound);
  const row = await campaigns.findOne({ where: { id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  if (!row) throw notFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== row.storeId) throw notFound();
  return row;
}

export async function getCampaign(ctx: RequestContext, id: string): Promise<CampaignView> {
  const row = await findOwn(ctx, id);
  await requireStore(ctx, row.storeId);
  return campaignView(row, (await itemsOf(ctx, [row.id])).get(row.id) ?? []);
}

// ---- writes --------------------------------------------------------------------------------------

/** Drops the store's cached public answers once the write committed (a reader cannot refill them with the old state). */
async function afterCommit(write: Promise<CampaignView>): Promise<CampaignView> {
  const view = await write;
  flashSalePublicCache.invalidateStore(view.storeId);
  return view;
}

export interface CreateCampaignInput {
  storeId: string;
  name: string;
  slug?: string;
  description?: string | null;
  status: 'DRAFT' | 'PUBLISHED';
  startsAt: Date;
  endsAt: Date;
  products: ProductInput[];
  categories: CategoryInput[];
}

export async function createCampaign(ctx: RequestContext, body: CreateCampaignInput): Promise<CampaignView> {
  return afterCommit(inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, body.storeId, { forWrite: true });
    checkWindow(body.startsAt, body.endsAt, true);
    await checkTargets(tx, store.id, body.products, body.categories);
    let slug = body.slug;
    if (slug !== undefined) {
      if (!(await slugFree(tx, store.id, slug))) throw slugTaken();
    } else slug = await derivedSlug(tx, store.id, body.name);
    const now = new Date();
    const row = tenantRepository(tx, FlashSaleCampaign, notFound).create({
      id: uuidv7(),
      storeId: store.id,
      name: body.name,
      slug,
      description: body.description || null,
      status: body.status,
      startsAt: body.startsAt,
      endsAt: body.endsAt,
      archivedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    const items = buildItems(row.id, body.products, body.categories);
    await uniqueSlug(() => tx.manager.insert(FlashSaleCampaign, row));
    if (items.length > 0) await tx.manager.insert(FlashSaleItem, items);
    await recordAudit(tx, { action: 'flash_sale_campaign.create', resourceType: 'flash_sale_campaign', resourceId: row.id, after: { storeId: store.id, ...fields(row, items) } });
    await enqueueOutbox(tx, campaignEvent(row, 'created'));
    await repriceFor(tx, store.id, row.id, 'created', [{ row, items }]);
    return campaignView(row, items);
  }));
}

export type UpdateCampaignInput = Partial<Omit<CreateCampaignInput, 'storeId'>>;

async function loadForWrite(tx: RequestContext, id: string): Promise<{ row: FlashSaleCampaign; items: FlashSaleItem[] }> {
  const found = await findOwn(tx, id);
  await requireStore(tx, found.storeId, { forWrite: true });
  const row = await findOwn(tx, id, true);
  return { row, items: (await itemsOf(tx, [row.id])).get(row.id) ?? [] };
}

export async function updateCampaign(ctx: RequestContext, id: string, body: UpdateCampaignInput): Promise<CampaignView> {
  return afterCommit(inTransaction(ctx, async (tx) => {
    const { row, items } = await loadForWrite(tx, id);
    if (row.status === 'ARCHIVED') throw new ConflictError('The flash sale campaign is archived; it takes no changes.', 'flash_sale_archived');
    const next: FlashSaleCampaign = {
      ...row,
      name: body.name ?? row.name,
      slug: body.slug ?? row.slug,
      description: body.description !== undefined ? body.description || null : row.description,
      status: body.status ?? row.status,
      startsAt: body.startsAt ?? row.startsAt,
      endsAt: body.endsAt ?? row.endsAt,
    };
    if (body.startsAt !== undefined || body.endsAt !== undefined) checkWindow(next.startsAt, next.endsAt, body.endsAt !== undefined && body.endsAt.getTime() !== row.endsAt.getTime());
    await checkTargets(tx, row.storeId, body.products, body.categories);
    if (body.slug !== undefined && body.slug.toLowerCase() !== row.slug.toLowerCase() && !(await slugFree(tx, row.storeId, body.slug, row.id))) throw slugTaken();
    const currentProducts: ProductInput[] = items
      .filter((i) => i.kind === 'PRODUCT')
      .map((i) => ({ productId: i.targetId, ...(i.salePrice !== null ? { salePrice: Number(i.salePrice) } : { discountPercent: Number(i.discountPercent) }), stockCap: i.stockCap }));
    const currentCategories: CategoryInput[] = items.filter((i) => i.kind === 'CATEGORY').map((i) => ({ categoryId: i.targetId, discountPercent: Number(i.discountPercent) }));
    const nextItems = buildItems(row.id, body.products ?? currentProducts, body.categories ?? currentCategories, items);
    const before = fields(row, items);
    const after = fields(next, nextItems);
    if (JSON.stringify(before) === JSON.stringify(after)) return campaignView(row, items);
    const now = new Date();
    await uniqueSlug(() =>
      tenantRepository(tx, FlashSaleCampaign).update({ id: row.id }, { name: next.name, slug: next.slug, description: next.description, status: next.status, startsAt: next.startsAt, endsAt: next.endsAt, updatedAt: now }),
    );
    if (body.products !== undefined || body.categories !== undefined) {
      await tx.manager.delete(FlashSaleItem, { campaignId: row.id });
      if (nextItems.length > 0) await tx.manager.insert(FlashSaleItem, nextItems);
    }
    await recordAudit(tx, { action: 'flash_sale_campaign.update', resourceType: 'flash_sale_campaign', resourceId: row.id, before, after });
    await enqueueOutbox(tx, campaignEvent(row, 'updated'));
    await repriceFor(tx, row.storeId, row.id, 'updated', [
      { row, items },
      { row: next, items: nextItems },
    ]);
    return campaignView({ ...next, updatedAt: now }, nextItems);
  }));
}

export async function archiveCampaign(ctx: RequestContext, id: string): Promise<CampaignView> {
  return afterCommit(inTransaction(ctx, async (tx) => {
    const { row, items } = await loadForWrite(tx, id);
    if (row.status === 'ARCHIVED') return campaignView(row, items);
    const now = new Date();
    const next: FlashSaleCampaign = { ...row, status: 'ARCHIVED', archivedAt: now, updatedAt: now };
    await tenantRepository(tx, FlashSaleCampaign).update({ id: row.id }, { status: 'ARCHIVED', archivedAt: now, updatedAt: now });
    await recordAudit(tx, { action: 'flash_sale_campaign.archive', resourceType: 'flash_sale_campaign', resourceId: row.id, before: { status: row.status }, after: { status: 'ARCHIVED', archivedAt: now } });
    await enqueueOutbox(tx, campaignEvent(row, 'archived'));
    await repriceFor(tx, row.storeId, row.id, 'archived', [{ row, items }]);
    return campaignView(next, items);
  }));
}

// ---- public reads --------------------------------------------------------------------------------

export interface PublicCampaign {
  id: string;
  storeId: string;
  name: string;
  slug: string;
  description: string | null;
  phase: 'UPCOMING' | 'RUNNING';
  startsAt: string;
  endsAt: string;
  products: Array<Record<string, unknown>>;
  categories: Array<{ categoryId: string; name: string; slug: string; discountPercent: number }>;
}

async function publicStore(ctx: RequestContext, storeId: string): Promise<{ id: string; pricesShown: boolean }> {
  const rows: Array<{ id: string; price_visibility: string }> = await ctx.manager.query(`SELECT id, price_visibility FROM stores WHERE id = $1 AND status <> 'archived'`, [storeId]);
  if (!rows[0]) throw storeNotFound();
  return { id: rows[0].id, pricesShown: pricesShown(ctx, asPriceVisibility(rows[0].price_visibility)) };
}

const percentSaved = (price: bigint, sale: bigint): number => (price <= 0n || sale >= price ? 0 : Number(((price - sale) * 200n + price) / (2n * price)));

async function publicViews(ctx: RequestContext, rows: Array<Pick<FlashSaleCampaign, 'id' | 'storeId' | 'name' | 'slug' | 'description' | 'startsAt' | 'endsAt'>>, showPrices: boolean): Promise<PublicCampaign[]> {
  const items = await itemsOf(ctx, rows.map((r) => r.id));
  const productIds = [...new Set([...items.values()].flat().filter((i) => i.kind === 'PRODUCT').map((i) => i.targetId))];
  const categoryIds = [...new Set([...items.values()].flat().filter((i) => i.kind === 'CATEGORY').map((i) => i.targetId))];
  const [products, categories] = (await Promise.all([
    productIds.length === 0
      ? []
      : ctx.manager.query(
          `SELECT p.id, p.store_id, p.slug, p.title, p.price, p.currency, p.brand_id,
                  (SELECT url FROM product_images i WHERE i.product_id = p.id ORDER BY position, id LIMIT 1) AS image_url
             FROM products p WHERE p.id = ANY($1::uuid[]) AND p.status = 'PUBLISHED'`,
          [productIds],
        ),
    categoryIds.length === 0 ? [] : ctx.manager.query('SELECT id, name, slug FROM categories WHERE id = ANY($1::uuid[]) AND is_active', [categoryIds]),
  ])) as [Array<{ id: string; store_id: string; slug: string; title: string; price: string; currency: string; brand_id: string | null; image_url: string | null }>, Array<{ id: string; name: string; slug: string }>];
  const productBy = new Map(products.map((p) => [p.id, p]));
  const categoryBy = new Map(categories.map((c) => [c.id, c]));
  const now = new Date();
  const out: PublicCampaign[] = [];
  for (const row of rows) {
    const phase = phaseOf(row, now) as 'UPCOMING' | 'RUNNING';
    const own = items.get(row.id) ?? [];
    const listed = own.filter((i) => i.kind === 'PRODUCT' && productBy.has(i.targetId));
    // The price it has now (RUNNING) or will have at the start (UPCOMING).
    const prices = showPrices ? await publicPrices(ctx.manager, listed.map((i) => productBy.get(i.targetId)!), phase === 'UPCOMING' ? row.startsAt : now) : new Map();
    out.push({
      id: row.id,
      storeId: row.storeId,
      name: row.name,
      slug: row.slug,
      description: row.description,
      phase,
      startsAt: row.startsAt.toISOString(),
      endsAt: row.endsAt.toISOString(),
      products: listed.map((i) => {
        const p = productBy.get(i.targetId)!;
        const entry = entryView(i);
        const item: Record<string, unknown> = { productId: p.id, slug: p.slug, title: p.title, imageUrl: p.image_url, stockCap: entry.stockCap, remaining: entry.remaining, soldOut: entry.soldOut };
        if (showPrices) {
          const priced = prices.get(p.id);
          const base = priced ? priced.basePrice : formatUnits(toUnits(p.price), 4);
          const sale = priced ? priced.price : base;
          Object.assign(item, { currency: p.currency, price: Number(base), salePrice: Number(sale), discountPercent: percentSaved(toUnits(base), toUnits(sale)) });
        }
        return item;
      }),
      categories: own.filter((i) => i.kind === 'CATEGORY' && categoryBy.has(i.targetId)).map((i) => ({ categoryId: i.targetId, name: categoryBy.get(i.targetId)!.name, slug: categoryBy.get(i.targetId)!.slug, discountPercent: dec(i.discountPercent)! })),
    });
  }
  return out;
}

export const PUBLIC_ACTIVE_MAX = 50;
export const PUBLIC_CACHE_TTL_MS = 5_000;

/** Public answers of this process (see the module comment). */
export const flashSalePublicCache = new ResultCache<unknown>({ maxBytes: 16 * 1024 * 1024, ttlMs: PUBLIC_CACHE_TTL_MS });

async function cachedPublic<T>(storeId: string, key: string, load: () => Promise<T>): Promise<T> {
  const hit = flashSalePublicCache.get(key);
  if (hit !== undefined) return hit as T;
  const value = await load();
  flashSalePublicCache.set(storeId, key, value, JSON.stringify(value).length * 2);
  return value;
}

/** PUBLISHED campaigns of the store running now, ending soonest first (at most 50). */
export async function publicActive(ctx: RequestContext, storeId: string): Promise<{ items: PublicCampaign[] }> {
  const store = await publicStore(ctx, storeId);
  return cachedPublic(store.id, `${store.id}|${store.pricesShown}|active`, async () => {
    const now = new Date();
    const rows = await ctx.manager
      .getRepository(FlashSaleCampaign)
      .createQueryBuilder('c')
      .where('c.storeId = :storeId', { storeId: store.id })
      .andWhere("c.status = 'PUBLISHED'")
      .andWhere('c.startsAt <= :now AND c.endsAt > :now', { now })
      .orderBy('c.endsAt', 'ASC')
      .addOrderBy('c.id', 'ASC')
      .take(PUBLIC_ACTIVE_MAX)
      .getMany();
    return { items: await publicViews(ctx, rows, store.pricesShown) };
  });
}

/** A PUBLISHED campaign that is upcoming or running, by slug (case-insensitive); anything else 404. */
export async function publicBySlug(ctx: RequestContext, storeId: string, slug: string): Promise<PublicCampaign> {
  const store = await publicStore(ctx, storeId);
  return cachedPublic(store.id, `${store.id}|${store.pricesShown}|slug|${slug.toLowerCase()}`, async () => {
    const row = await ctx.manager
      .getRepository(FlashSaleCampaign)
      .createQueryBuilder('c')
      .where('c.storeId = :storeId', { storeId: store.id })
      .andWhere('lower(c.slug) = lower(:slug)', { slug })
      .andWhere("c.status = 'PUBLISHED'")
      .andWhere('c.endsAt > :now', { now: new Date() })
      .getOne();
    if (!row) throw notFound();
    const [view] = await publicViews(ctx, [row], store.pricesShown);
    return view!;
  });
}
