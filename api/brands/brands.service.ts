/**
 * Brands of a store: list, create, update, delete, bulk activation, CSV export and import.
 *
 * Any member of the tenant (owner, admin, staff) and API keys of the store with the brands scope edit
 * brands; another tenant's store or brand answers 404 (as does, for an API key, a brand of another
 * store). Slugs are unique per store, case-insensitively (index `brands_store_slug`): a taken slug is
 * 409 `slug_taken`. Every change writes, in its transaction, one audit entry (`brand.create`,
 * `brand.update`, `brand.delete`) and one outbox row (queue `index`, aggregate `brand`, topic
 * `brand.created|updated|deleted`) per brand changed; a write that changes nothing writes neither.
 */
import Joi from 'joi';
import { In } from 'typeorm';
import { Brand } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { attachment, toCsv, type CsvColumn, type CsvDownload } from '../http/csv';
import { parseCsvImport, rejectDuplicateRows } from '../http/csv-import';
import { ConflictError, NotFoundError } from '../../lib/errors';
import { httpUrl } from '../http/schema-types';
import { requireStore } from '../../domain/store-access';
import { CATALOG_SLUG_MAX, catalogSlug, freeStoreSlug, inSlugTransaction, slugify, storeSlugInUse } from '../../domain/slugs';
import { BRAND_DESCRIPTION_MAX, BRAND_NAME_MAX, BulkSetBrandStatusDto, CreateBrandDto, UpdateBrandDto } from './brands.schemas';
import type { InputOf } from '../http/typed-schema';
import { brandsError } from './brands.errors';

export interface BrandView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  logoUrl: string | null;
  websiteUrl: string | null;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export function brandView(brand: Brand): BrandView {
  return {
    id: brand.id,
    name: brand.name,
    slug: brand.slug,
    description: brand.description,
    logoUrl: brand.logoUrl,
    websiteUrl: brand.websiteUrl,
    isActive: brand.isActive,
    createdAt: brand.createdAt.toISOString(),
    updatedAt: brand.updatedAt.toISOString(),
  };
}

/** The fields a merchant sets; the rest (ids, store, times) are the service's. */
export interface BrandFields {
  name: string;
  slug: string;
  description: string | null;
  logoUrl: string | null;
  websiteUrl: string | null;
  isActive: boolean;
}

const EDITABLE: ReadonlyArray<keyof BrandFields> = ['name', 'slug', 'description', 'logoUrl', 'websiteUrl', 'isActive'];

const brandNotFound = (): NotFoundError => brandsError('brand_not_found', 'The brand does not exist.');
const slugTaken = (path = 'body.slug'): ConflictError =>
  brandsError('slug_taken', 'Another brand of the store has this slug.', [{ path, message: 'slug is already taken in the store' }]);

const event = (topic: 'created' | 'updated' | 'deleted', id: string): OutboxEvent => ({
  queue: 'index',
  topic: `brand.${topic}`,
  aggregateType: 'brand',
  aggregateId: id,
});

/** Runs a brand write; a slug race lost at the unique index answers 409 `slug_taken` like the check before it. */
const brandWrite = <T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> =>
  inSlugTransaction(ctx, 'brands_store_slug', slugTaken, work);

const slugInUse = (tx: RequestContext, storeId: string, slug: string, exceptId?: string): Promise<boolean> =>
  storeSlugInUse(tx, Brand, storeId, slug, exceptId);

/** The first free slug of the store derived from `name`. */
function freeBrandSlug(tx: RequestContext, storeId: string, name: string): Promise<string> {
  return freeStoreSlug(tx, Brand, storeId, slugify(name, CATALOG_SLUG_MAX - 6, 'brand'));
}

async function storeBrands(ctx: RequestContext, storeId: string): Promise<Brand[]> {
  const store = await requireStore(ctx, storeId);
  return tenantRepository(ctx, Brand)
    .createQueryBuilder('b')
    .andWhere('b.storeId = :storeId', { storeId: store.id })
    .orderBy('lower(b.name)', 'ASC')
    .addOrderBy('b.id', 'ASC')
    .getMany();
}

export async function listBrands(ctx: RequestContext, storeId: string): Promise<{ items: BrandView[] }> {
  return { items: (await storeBrands(ctx, storeId)).map(brandView) };
}

export type CreateBrandInput = InputOf<typeof CreateBrandDto>;

async function insertBrand(tx: RequestContext, storeId: string, fields: BrandFields): Promise<Brand> {
  const now = new Date();
  const brand = tenantRepository(tx, Brand).create({ id: uuidv7(), storeId, ...fields, createdAt: now, updatedAt: now });
  await tx.manager.insert(Brand, brand);
  await recordAudit(tx, { action: 'brand.create', resourceType: 'brand', resourceId: brand.id, after: { storeId, ...fields } });
  await enqueueOutbox(tx, event('created', brand.id));
  return brand;
}

export async function createBrand(ctx: RequestContext, input: CreateBrandInput): Promise<BrandView> {
  return brandWrite(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    if (input.slug !== undefined && (await slugInUse(tx, store.id, input.slug))) throw slugTaken();
    const slug = input.slug ?? (await freeBrandSlug(tx, store.id, input.name));
    const brand = await insertBrand(tx, store.id, {
      name: input.name,
      slug,
      description: input.description ?? null,
      logoUrl: input.logoUrl ?? null,
      websiteUrl: input.websiteUrl ?? null,
      isActive: input.isActive,
    });
    return brandView(brand);
  });
}

/** The brand `id` of the caller's tenant, locked, whose store the caller may write; 404 otherwise. */
async function loadForWrite(tx: RequestContext, id: string): Promise<Brand> {
  const brand = await tenantRepository(tx, Brand, brandNotFound).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!brand) throw brandNotFound();
  // An API key reaches only its own store: a brand of another store is as missing as any other.
  if (tx.actor.type === 'api_key' && tx.actor.storeId !== brand.storeId) throw brandNotFound();
  await requireStore(tx, brand.storeId, { forWrite: true });
  return brand;
}

/** Applies the changed fields of `input` to `brand` (one audit entry and one outbox row), or nothing when none changed. */
async function applyChanges(
  tx: RequestContext,
  brand: Brand,
  input: Partial<BrandFields>,
  events?: OutboxEvent[],
): Promise<Brand | undefined> {
  const before: Partial<Record<keyof BrandFields, unknown>> = {};
  const after: Partial<Record<keyof BrandFields, unknown>> = {};
  for (const field of EDITABLE) {
    const value = input[field];
    if (value === undefined || value === brand[field]) continue;
    before[field] = brand[field];
    after[field] = value;
  }
  if (Object.keys(after).length === 0) return undefined;
  const updatedAt = new Date();
  await tenantRepository(tx, Brand).update({ id: brand.id }, { ...after, updatedAt } as Partial<Brand>);
  await recordAudit(tx, { action: 'brand.update', resourceType: 'brand', resourceId: brand.id, before, after });
  if (events) events.push(event('updated', brand.id));
  else await enqueueOutbox(tx, event('updated', brand.id));
  return { ...brand, ...after, updatedAt } as Brand;
}

export type UpdateBrandInput = InputOf<typeof UpdateBrandDto>;

export async function updateBrand(ctx: RequestContext, id: string, input: UpdateBrandInput): Promise<BrandView> {
  return brandWrite(ctx, async (tx) => {
    const brand = await loadForWrite(tx, id);
    if (input.slug !== undefined && input.slug !== brand.slug && (await slugInUse(tx, brand.storeId, input.slug, brand.id)))
      throw slugTaken();
    return brandView((await applyChanges(tx, brand, input)) ?? brand);
  });
}

/** Deletes a brand (204). Once products exist, deleting a brand detaches it from its products (their brand becomes none). */
export async function deleteBrand(ctx: RequestContext, id: string): Promise<void> {
  await brandWrite(ctx, async (tx) => {
    const brand = await loadForWrite(tx, id);
    await tenantRepository(tx, Brand).delete({ id: brand.id });
    const { id: _id, createdAt: _c, updatedAt: _u, ...before } = brandView(brand);
    await recordAudit(tx, {
      action: 'brand.delete',
      resourceType: 'brand',
      resourceId: brand.id,
      before: { storeId: brand.storeId, ...before },
    });
    await enqueueOutbox(tx, event('deleted', brand.id));
  });
}

export type BulkSetBrandStatusInput = InputOf<typeof BulkSetBrandStatusDto>;

export async function bulkSetBrandStatus(
  ctx: RequestContext,
  input: BulkSetBrandStatusInput,
): Promise<{ updated: number; unchanged: number; notFound: string[] }> {
  return brandWrite(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    const brands = tenantRepository(tx, Brand);
    // Only the store's brands are found; ids of another store or tenant are reported as not found, nothing more.
    const found = await brands.find({
      where: { storeId: store.id, id: In(input.ids) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    const byId = new Map(found.map((brand) => [brand.id.toLowerCase(), brand]));
    const notFound = input.ids.filter((id) => !byId.has(id.toLowerCase()));
    const changing = found.filter((brand) => brand.isActive !== input.isActive);
    if (changing.length > 0) {
      const ids = changing.map((brand) => brand.id);
      await brands.update({ storeId: store.id, id: In(ids) }, { isActive: input.isActive, updatedAt: new Date() });
      for (const brand of changing) {
        await recordAudit(tx, {
          action: 'brand.update',
          resourceType: 'brand',
          resourceId: brand.id,
          before: { isActive: brand.isActive },
          after: { isActive: input.isActive },
        });
      }
      await enqueueOutbox(
        tx,
        ids.map((id) => event('updated', id)),
      );
    }
    return { updated: changing.length, unchanged: found.length - changing.length, notFound };
  });
}

const CSV_COLUMNS: CsvColumn<Brand>[] = [
  { header: 'slug', value: (b) => b.slug },
  { header: 'name', value: (b) => b.name },
  { header: 'isActive', value: (b) => b.isActive },
  { header: 'description', value: (b) => b.description },
  { header: 'logoUrl', value: (b) => b.logoUrl },
  { header: 'websiteUrl', value: (b) => b.websiteUrl },
];

export async function exportBrands(ctx: RequestContext, storeId: string): Promise<CsvDownload> {
  const brands = await storeBrands(ctx, storeId);
  return { body: toCsv(brands, CSV_COLUMNS), disposition: attachment(`brands-${storeId}.csv`) };
}

const IMPORT_BATCH = 1000;

/** Most data rows of one brand import; above it the answer is 413. */
export const BRAND_IMPORT_MAX_ROWS = 5000;

/** The import layout: the export's columns. slug and name are required; an empty optional cell is no value. */
const IMPORT_LAYOUT = {
  maxRows: BRAND_IMPORT_MAX_ROWS,
  columns: {
    slug: catalogSlug().lowercase().required(),
    name: Joi.string().trim().min(1).max(BRAND_NAME_MAX).required(),
    isActive: Joi.boolean().truthy('1', 'yes').falsy('0', 'no').default(true),
    description: Joi.string().max(BRAND_DESCRIPTION_MAX),
    logoUrl: httpUrl(),
    websiteUrl: httpUrl(),
  },
};

interface BrandCsvRow {
  slug: string;
  name: string;
  isActive: boolean;
  description?: string;
  logoUrl?: string;
  websiteUrl?: string;
}

/**
 * Imports brands from CSV: every row is validated first (400 listing `rows[N].column`, nothing
 * written); then, in one transaction, a row whose slug (case-insensitively) names a brand of the store
 * replaces that brand's fields (empty cells clear the optional ones) and any other row creates a brand.
 */
export async function importBrands(
  ctx: RequestContext,
  input: { storeId: string; csv: string },
): Promise<{ created: number; updated: number }> {
  const store = await requireStore(ctx, input.storeId, { forWrite: true });
  const rows = parseCsvImport<BrandCsvRow>(input.csv, IMPORT_LAYOUT);
  rejectDuplicateRows(rows, 'slug', (row) => row.slug);

  return brandWrite(ctx, async (tx) => {
    await requireStore(tx, store.id, { forWrite: true, lock: true });
    const existing = await tenantRepository(tx, Brand)
      .createQueryBuilder('b')
      .andWhere('b.storeId = :storeId', { storeId: store.id })
      .andWhere('lower(b.slug) IN (:...slugs)', { slugs: rows.length ? rows.map((row) => row.slug) : [''] })
      .setLock('pessimistic_write')
      .getMany();
    const bySlug = new Map(existing.map((brand) => [brand.slug.toLowerCase(), brand]));
    const brands = tenantRepository(tx, Brand);
    const creating: Brand[] = [];
    const events: OutboxEvent[] = [];
    let updated = 0;
    for (const row of rows) {
      const fields: BrandFields = {
        name: row.name,
        slug: row.slug,
        description: row.description ?? null,
        logoUrl: row.logoUrl ?? null,
        websiteUrl: row.websiteUrl ?? null,
        isActive: row.isActive,
      };
      const brand = bySlug.get(row.slug);
      if (!brand) {
        const now = new Date();
        creating.push(brands.create({ id: uuidv7(), storeId: store.id, ...fields, createdAt: now, updatedAt: now }));
      } else if (await applyChanges(tx, brand, fields, events)) {
        updated += 1;
      }
    }
    // Large imports: the new rows and the outbox rows go in batches; the audit log keeps one entry per brand.
    for (let i = 0; i < creating.length; i += IMPORT_BATCH) await tx.manager.insert(Brand, creating.slice(i, i + IMPORT_BATCH));
    for (const brand of creating) {
      const { id: _id, tenantId: _t, createdAt: _c, updatedAt: _u, ...after } = brand;
      await recordAudit(tx, { action: 'brand.create', resourceType: 'brand', resourceId: brand.id, after });
      events.push(event('created', brand.id));
    }
    for (let i = 0; i < events.length; i += IMPORT_BATCH) await enqueueOutbox(tx, events.slice(i, i + IMPORT_BATCH));
    return { created: creating.length, updated };
  });
}
