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
 * Public answers go through the store's public-read cache (search/public-search.ts cachedRead, the
 * one content uses: bounded by SEARCH_CACHE_SIZE), keyed by read and visitor price visibility. A
 * write drops the store's entries in this process once it committed, and in every api process when
 * the indexer announces its outbox row (search/invalidation.ts); an entry lives until the next start
 * or end of a published campaign of the store at most, and no longer than PUBLIC_CACHE_TTL_MS.
 */
import { FlashSaleCampaign, FlashSaleItem } from '../../storage/entities';
import type { FlashSaleItemKind, FlashSaleStatus } from '../../storage/entities/flash-sale.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import { discountPercent, formatUnits, toUnits } from '../../domain/money';
import { freeStoreSlug, inSlugTransaction, slugify, storeSlugInUse, CATALOG_SLUG_MAX } from '../../domain/slugs';
import { requireStore, storeNotFound } from '../../domain/store-access';
import { publicPrices } from '../../domain/pricing-engine';
import { campaignProducts, enqueueRepricing } from '../pricing/reprice';
import { asPriceVisibility, pricesShown } from '../../domain/price-visibility';
import { searchEngineOf } from '../../search/public-search';
import type { RawJson } from '../../lib/raw-json';
import { flashSalesError } from './flash-sales.errors';
import type {
  CampaignCategoryInput,
  CampaignProductInput,
  CreateFlashSaleCampaignDto,
  UpdateFlashSaleCampaignDto,
} from './flash-sales.schemas';
import type { InputOf } from '../http/typed-schema';

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
const canonical = (value: number | null | undefined): string | null =>
  value === null || value === undefined ? null : formatUnits(toUnits(value), 4);

const phaseOf = (row: Pick<FlashSaleCampaign, 'startsAt' | 'endsAt'>, now = new Date()): Phase =>
  now.getTime() < row.startsAt.getTime() ? 'UPCOMING' : now.getTime() < row.endsAt.getTime() ? 'RUNNING' : 'ENDED';
const isLive = (row: Pick<FlashSaleCampaign, 'status' | 'startsAt' | 'endsAt'>, now = new Date()): boolean =>
  row.status === 'PUBLISHED' && phaseOf(row, now) === 'RUNNING';

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
    categories: sorted
      .filter((i) => i.kind === 'CATEGORY')
      .map((i) => ({ categoryId: i.targetId, discountPercent: dec(i.discountPercent)! })),
    archivedAt: row.archivedAt ? row.archivedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const notFound = (): NotFoundError => flashSalesError('flash_sale_not_found', 'The flash sale campaign does not exist.');
const slugTaken = (): ConflictError =>
  flashSalesError('slug_taken', 'Another flash sale campaign of the store has this slug.', [
    { path: 'body.slug', message: 'slug is already taken in the store' },
  ]);

async function itemsOf(ctx: RequestContext, campaignIds: string[]): Promise<Map<string, FlashSaleItem[]>> {
  const map = new Map<string, FlashSaleItem[]>();
  if (campaignIds.length === 0) return map;
  const rows = await ctx.manager
    .getRepository(FlashSaleItem)
    .createQueryBuilder('i')
    .where('i.campaignId IN (:...ids)', { ids: campaignIds })
    .orderBy('i.position', 'ASC')
    .getMany();
  for (const row of rows) map.set(row.campaignId, [...(map.get(row.campaignId) ?? []), row]);
  return map;
}

// ---- input checks --------------------------------------------------------------------------------

export type ProductInput = InputOf<typeof CampaignProductInput>;

export type CategoryInput = InputOf<typeof CampaignCategoryInput>;

function checkWindow(startsAt: Date, endsAt: Date, endsChanged: boolean): void {
  const errors: Array<{ path: string; message: string }> = [];
  if (endsAt.getTime() <= startsAt.getTime()) errors.push({ path: 'body.endsAt', message: 'endsAt must be after startsAt' });
  else if (endsChanged && endsAt.getTime() <= Date.now()) errors.push({ path: 'body.endsAt', message: 'endsAt must be in the future' });
  if (errors.length > 0) throw new ValidationError(errors.map((e) => e.message).join('; '), errors);
}

async function checkTargets(
  tx: RequestContext,
  storeId: string,
  products: ProductInput[] | undefined,
  categories: CategoryInput[] | undefined,
): Promise<void> {
  const check = async (
    table: string,
    ids: string[],
    code: 'product_not_found' | 'category_not_found',
    label: string,
    path: (i: number) => string,
  ): Promise<void> => {
    if (ids.length === 0) return;
    const rows: Array<{ id: string }> = await tx.manager.query(`SELECT id FROM ${table} WHERE store_id = $1 AND id = ANY($2::uuid[])`, [
      storeId,
      ids,
    ]);
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.map((id, i) => ({ id, i })).filter(({ id }) => !found.has(id));
    if (missing.length > 0)
      throw flashSalesError(
        code,
        `${missing.length} ${label}(s) of the campaign are not of the store.`,
        missing.map(({ i }) => ({ path: path(i), message: `${label} not found in the store` })),
      );
  };
  await check(
    'products',
    (products ?? []).map((p) => p.productId.toLowerCase()),
    'product_not_found',
    'product',
    (i) => `body.products[${i}].productId`,
  );
  await check(
    'categories',
    (categories ?? []).map((c) => c.categoryId.toLowerCase()),
    'category_not_found',
    'category',
    (i) => `body.categories[${i}].categoryId`,
  );
}

function buildItems(
  campaignId: string,
  products: ProductInput[],
  categories: CategoryInput[],
  previous: FlashSaleItem[] = [],
): FlashSaleItem[] {
  const soldBefore = new Map(previous.filter((i) => i.kind === 'PRODUCT').map((i) => [i.targetId, i.soldCount]));
  const items: FlashSaleItem[] = [];
  products.forEach((p, position) => {
    const id = p.productId.toLowerCase();
    items.push({
      campaignId,
      targetId: id,
      kind: 'PRODUCT',
      salePrice: canonical(p.salePrice),
      discountPercent: canonical(p.discountPercent),
      stockCap: p.stockCap ?? null,
      soldCount: soldBefore.get(id) ?? 0,
      position,
    });
  });
  categories.forEach((c, i) => {
    items.push({
      campaignId,
      targetId: c.categoryId.toLowerCase(),
      kind: 'CATEGORY' as FlashSaleItemKind,
      salePrice: null,
      discountPercent: canonical(c.discountPercent),
      stockCap: null,
      soldCount: 0,
      position: products.length + i,
    });
  });
  return items;
}

/** What the audit log keeps and what decides whether a PATCH changed anything. */
const fields = (
  row: Pick<FlashSaleCampaign, 'name' | 'slug' | 'description' | 'status' | 'startsAt' | 'endsAt'>,
  items: FlashSaleItem[],
): Record<string, unknown> => ({
  name: row.name,
  slug: row.slug,
  description: row.description,
  status: row.status,
  startsAt: row.startsAt.toISOString(),
  endsAt: row.endsAt.toISOString(),
  items: [...items]
    .sort((a, b) => a.position - b.position)
    .map((i) => ({
      kind: i.kind,
      targetId: i.targetId,
      salePrice: i.salePrice === null ? null : canonical(Number(i.salePrice)),
      discountPercent: i.discountPercent === null ? null : canonical(Number(i.discountPercent)),
      stockCap: i.stockCap,
    })),
});

/** Runs a campaign write in one transaction; a slug race lost at the unique index answers 409 slug_taken, like the check before it. */
const campaignWrite = <T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> =>
  inSlugTransaction(ctx, 'flash_sale_campaigns_slug', slugTaken, work);

const slugInUse = (tx: RequestContext, storeId: string, slug: string, exceptId?: string): Promise<boolean> =>
  storeSlugInUse(tx, FlashSaleCampaign, storeId, slug, exceptId);

const derivedSlug = (tx: RequestContext, storeId: string, name: string): Promise<string> =>
  freeStoreSlug(tx, FlashSaleCampaign, storeId, slugify(name, CATALOG_SLUG_MAX - 8, 'flash-sale'));

const campaignEvent = (row: FlashSaleCampaign, verb: 'created' | 'updated' | 'archived'): OutboxEvent => ({
  queue: 'index' as const,
  topic: `flash_sale_campaign.${verb}`,
  aggregateType: 'flash_sale_campaign',
  aggregateId: row.id,
  payload: { storeId: row.storeId },
});

/** Re-indexes the products of the versions that are live now (before and/or after the write). */
async function repriceFor(
  tx: RequestContext,
  storeId: string,
  campaignId: string,
  change: string,
  versions: Array<{ row: Pick<FlashSaleCampaign, 'status' | 'startsAt' | 'endsAt'>; items: FlashSaleItem[] }>,
): Promise<void> {
  const now = new Date();
  const ids = new Set<string>();
  for (const v of versions) {
    if (!isLive(v.row, now)) continue;
    for (const id of await campaignProducts(
      tx.manager,
      storeId,
      v.items.map((i) => ({ kind: i.kind, targetId: i.targetId })),
    ))
      ids.add(id);
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

export async function listCampaigns(
  ctx: RequestContext,
  query: ListCampaignsQuery,
): Promise<{ items: CampaignView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  const qb = tenantRepository(ctx, FlashSaleCampaign).createQueryBuilder('c').andWhere('c.storeId = :storeId', { storeId: store.id });
  if (query.status !== undefined) qb.andWhere('c.status = :status', { status: query.status });
  if (query.cursor !== undefined) qb.andWhere('c.id < :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('c.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  const items = await itemsOf(
    ctx,
    page.map((r) => r.id),
  );
  return {
    items: page.map((r) => campaignView(r, items.get(r.id) ?? [])),
    nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
  };
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

/**
 * Drops the store's cached public reads in this process once the write committed (a reader cannot
 * refill them with the old state); other processes drop theirs when the indexer announces the write.
 */
async function afterCommit(ctx: RequestContext, write: Promise<CampaignView>): Promise<CampaignView> {
  const view = await write;
  ctx.services?.search?.invalidate(view.storeId.toLowerCase());
  return view;
}

export type CreateCampaignInput = InputOf<typeof CreateFlashSaleCampaignDto>;

export async function createCampaign(ctx: RequestContext, body: CreateCampaignInput): Promise<CampaignView> {
  return afterCommit(
    ctx,
    campaignWrite(ctx, async (tx) => {
      const store = await requireStore(tx, body.storeId, { forWrite: true });
      checkWindow(body.startsAt, body.endsAt, true);
      await checkTargets(tx, store.id, body.products, body.categories);
      let slug = body.slug;
      if (slug !== undefined) {
        if (await slugInUse(tx, store.id, slug)) throw slugTaken();
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
      await tx.manager.insert(FlashSaleCampaign, row);
      if (items.length > 0) await tx.manager.insert(FlashSaleItem, items);
      await recordAudit(tx, {
        action: 'flash_sale_campaign.create',
        resourceType: 'flash_sale_campaign',
        resourceId: row.id,
        after: { storeId: store.id, ...fields(row, items) },
      });
      await enqueueOutbox(tx, campaignEvent(row, 'created'));
      await repriceFor(tx, store.id, row.id, 'created', [{ row, items }]);
      return campaignView(row, items);
    }),
  );
}

export type UpdateCampaignInput = InputOf<typeof UpdateFlashSaleCampaignDto>;

async function loadForWrite(tx: RequestContext, id: string): Promise<{ row: FlashSaleCampaign; items: FlashSaleItem[] }> {
  const found = await findOwn(tx, id);
  await requireStore(tx, found.storeId, { forWrite: true });
  const row = await findOwn(tx, id, true);
  return { row, items: (await itemsOf(tx, [row.id])).get(row.id) ?? [] };
}

export async function updateCampaign(ctx: RequestContext, id: string, body: UpdateCampaignInput): Promise<CampaignView> {
  return afterCommit(
    ctx,
    campaignWrite(ctx, async (tx) => {
      const { row, items } = await loadForWrite(tx, id);
      if (row.status === 'ARCHIVED')
        throw flashSalesError('flash_sale_archived', 'The flash sale campaign is archived; it takes no changes.');
      const next: FlashSaleCampaign = {
        ...row,
        name: body.name ?? row.name,
        slug: body.slug ?? row.slug,
        description: body.description !== undefined ? body.description || null : row.description,
        status: body.status ?? row.status,
        startsAt: body.startsAt ?? row.startsAt,
        endsAt: body.endsAt ?? row.endsAt,
      };
      if (body.startsAt !== undefined || body.endsAt !== undefined)
        checkWindow(next.startsAt, next.endsAt, body.endsAt !== undefined && body.endsAt.getTime() !== row.endsAt.getTime());
      await checkTargets(tx, row.storeId, body.products, body.categories);
      if (
        body.slug !== undefined &&
        body.slug.toLowerCase() !== row.slug.toLowerCase() &&
        (await slugInUse(tx, row.storeId, body.slug, row.id))
      )
        throw slugTaken();
      const currentProducts: ProductInput[] = items
        .filter((i) => i.kind === 'PRODUCT')
        .map((i) => ({
          productId: i.targetId,
          ...(i.salePrice !== null ? { salePrice: Number(i.salePrice) } : { discountPercent: Number(i.discountPercent) }),
          stockCap: i.stockCap,
        }));
      const currentCategories: CategoryInput[] = items
        .filter((i) => i.kind === 'CATEGORY')
        .map((i) => ({ categoryId: i.targetId, discountPercent: Number(i.discountPercent) }));
      const nextItems = buildItems(row.id, body.products ?? currentProducts, body.categories ?? currentCategories, items);
      const before = fields(row, items);
      const after = fields(next, nextItems);
      if (JSON.stringify(before) === JSON.stringify(after)) return campaignView(row, items);
      const now = new Date();
      await tenantRepository(tx, FlashSaleCampaign).update(
        { id: row.id },
        {
          name: next.name,
          slug: next.slug,
          description: next.description,
          status: next.status,
          startsAt: next.startsAt,
          endsAt: next.endsAt,
          updatedAt: now,
        },
      );
      if (body.products !== undefined || body.categories !== undefined) {
        await tx.manager.delete(FlashSaleItem, { campaignId: row.id });
        if (nextItems.length > 0) await tx.manager.insert(FlashSaleItem, nextItems);
      }
      await recordAudit(tx, {
        action: 'flash_sale_campaign.update',
        resourceType: 'flash_sale_campaign',
        resourceId: row.id,
        before,
        after,
      });
      await enqueueOutbox(tx, campaignEvent(row, 'updated'));
      await repriceFor(tx, row.storeId, row.id, 'updated', [
        { row, items },
        { row: next, items: nextItems },
      ]);
      return campaignView({ ...next, updatedAt: now }, nextItems);
    }),
  );
}

export async function archiveCampaign(ctx: RequestContext, id: string): Promise<CampaignView> {
  return afterCommit(
    ctx,
    campaignWrite(ctx, async (tx) => {
      const { row, items } = await loadForWrite(tx, id);
      if (row.status === 'ARCHIVED') return campaignView(row, items);
      const now = new Date();
      const next: FlashSaleCampaign = { ...row, status: 'ARCHIVED', archivedAt: now, updatedAt: now };
      await tenantRepository(tx, FlashSaleCampaign).update({ id: row.id }, { status: 'ARCHIVED', archivedAt: now, updatedAt: now });
      await recordAudit(tx, {
        action: 'flash_sale_campaign.archive',
        resourceType: 'flash_sale_campaign',
        resourceId: row.id,
        before: { status: row.status },
        after: { status: 'ARCHIVED', archivedAt: now },
      });
      await enqueueOutbox(tx, campaignEvent(row, 'archived'));
      await repriceFor(tx, row.storeId, row.id, 'archived', [{ row, items }]);
      return campaignView(next, items);
    }),
  );
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
  categories: Array<{ categoryId: string; name: string; slug: string; discountPercent?: number }>;
}

/**
 * The store of a public read (404 store_not_found unless it exists and is not archived), whether
 * this visitor sees its prices, and how long until a published campaign of the store starts or ends
 * (null: none ahead), the moment a cached answer stops being true without any write.
 */
async function publicStore(
  ctx: RequestContext,
  storeId: string,
): Promise<{ id: string; pricesShown: boolean; nextChangeMs: number | null }> {
  const rows: Array<{ id: string; price_visibility: string; next_change_ms: number | null }> = await ctx.manager.query(
    `SELECT s.id, s.price_visibility,
            (SELECT extract(epoch FROM least(min(c.starts_at) FILTER (WHERE c.starts_at > now()), min(c.ends_at) FILTER (WHERE c.ends_at > now())) - now()) * 1000
               FROM flash_sale_campaigns c WHERE c.store_id = s.id AND c.status = 'PUBLISHED')::float8 AS next_change_ms
       FROM stores s WHERE s.id = $1 AND s.status <> 'archived'`,
    [storeId],
  );
  if (!rows[0]) throw storeNotFound();
  return {
    id: rows[0].id,
    pricesShown: pricesShown(ctx, asPriceVisibility(rows[0].price_visibility)),
    nextChangeMs: rows[0].next_change_ms,
  };
}

async function publicViews(
  ctx: RequestContext,
  rows: Array<Pick<FlashSaleCampaign, 'id' | 'storeId' | 'name' | 'slug' | 'description' | 'startsAt' | 'endsAt'>>,
  showPrices: boolean,
): Promise<PublicCampaign[]> {
  const items = await itemsOf(
    ctx,
    rows.map((r) => r.id),
  );
  const productIds = [
    ...new Set(
      [...items.values()]
        .flat()
        .filter((i) => i.kind === 'PRODUCT')
        .map((i) => i.targetId),
    ),
  ];
  const categoryIds = [
    ...new Set(
      [...items.values()]
        .flat()
        .filter((i) => i.kind === 'CATEGORY')
        .map((i) => i.targetId),
    ),
  ];
  const [products, categories] = (await Promise.all([
    productIds.length === 0
      ? []
      : ctx.manager.query(
          `SELECT p.id, p.store_id, p.slug, p.title, p.price, p.currency, p.brand_id,
                  (SELECT url FROM product_images i WHERE i.product_id = p.id ORDER BY position, id LIMIT 1) AS image_url
             FROM products p WHERE p.id = ANY($1::uuid[]) AND p.status = 'PUBLISHED'`,
          [productIds],
        ),
    categoryIds.length === 0
      ? []
      : ctx.manager.query('SELECT id, name, slug FROM categories WHERE id = ANY($1::uuid[]) AND is_active', [categoryIds]),
  ])) as [
    Array<{
      id: string;
      store_id: string;
      slug: string;
      title: string;
      price: string;
      currency: string;
      brand_id: string | null;
      image_url: string | null;
    }>,
    Array<{ id: string; name: string; slug: string }>,
  ];
  const productBy = new Map(products.map((p) => [p.id, p]));
  const categoryBy = new Map(categories.map((c) => [c.id, c]));
  const now = new Date();
  const out: PublicCampaign[] = [];
  for (const row of rows) {
    const phase = phaseOf(row, now) as 'UPCOMING' | 'RUNNING';
    const own = items.get(row.id) ?? [];
    const listed = own.filter((i) => i.kind === 'PRODUCT' && productBy.has(i.targetId));
    // The price it has now (RUNNING) or will have at the start (UPCOMING).
    const prices = showPrices
      ? await publicPrices(
          ctx.manager,
          listed.map((i) => productBy.get(i.targetId)!),
          phase === 'UPCOMING' ? row.startsAt : now,
        )
      : new Map();
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
        const item: Record<string, unknown> = {
          productId: p.id,
          slug: p.slug,
          title: p.title,
          imageUrl: p.image_url,
          stockCap: entry.stockCap,
          remaining: entry.remaining,
          soldOut: entry.soldOut,
        };
        if (showPrices) {
          const priced = prices.get(p.id);
          const base = priced ? priced.basePrice : formatUnits(toUnits(p.price), 4);
          const sale = priced ? priced.price : base;
          Object.assign(item, {
            currency: p.currency,
            price: Number(base),
            salePrice: Number(sale),
            discountPercent: discountPercent(sale, base),
          });
        }
        return item;
      }),
      // A category's percent off is a price field like the products' discountPercent.
      categories: own
        .filter((i) => i.kind === 'CATEGORY' && categoryBy.has(i.targetId))
        .map((i) => ({
          categoryId: i.targetId,
          name: categoryBy.get(i.targetId)!.name,
          slug: categoryBy.get(i.targetId)!.slug,
          ...(showPrices ? { discountPercent: dec(i.discountPercent)! } : {}),
        })),
    });
  }
  return out;
}

export const PUBLIC_ACTIVE_MAX = 50;
/**
 * The longest a public answer is cached: sold counts (remaining, soldOut) change with every order,
 * and an order announces nothing to the caches until it sells a product's last unit at its price.
 */
export const PUBLIC_CACHE_TTL_MS = 5_000;

/** A public read through the store's public-read cache (see the module comment); errors are not cached. */
function cachedPublic(
  ctx: RequestContext,
  store: { id: string; pricesShown: boolean; nextChangeMs: number | null },
  key: string[],
  compute: () => Promise<unknown>,
): Promise<RawJson> {
  const ttlMs = Math.min(PUBLIC_CACHE_TTL_MS, store.nextChangeMs ?? Infinity);
  return searchEngineOf(ctx).cachedRead(store.id, ['flash-sales', ...key, store.pricesShown], compute, ttlMs);
}

/** PUBLISHED campaigns of the store running now, ending soonest first (at most 50), as JSON. */
export async function publicActive(ctx: RequestContext, storeId: string): Promise<RawJson> {
  const store = await publicStore(ctx, storeId);
  return cachedPublic(ctx, store, ['active'], async (): Promise<{ items: PublicCampaign[] }> => {
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

/** A PUBLISHED campaign that is upcoming or running, by slug (case-insensitive), as JSON; anything else 404. */
export async function publicBySlug(ctx: RequestContext, storeId: string, slug: string): Promise<RawJson> {
  const store = await publicStore(ctx, storeId);
  return cachedPublic(ctx, store, ['slug', slug.toLowerCase()], async (): Promise<PublicCampaign> => {
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
