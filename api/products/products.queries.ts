/**
 * Product reads over many products: the list, the filtered and sorted page (offset or keyset cursor),
 * the admin search, and the stock value per category. Parameterised SQL only; every query is bound to
 * the caller's tenant and a store the caller may read.
 */
import type { RequestContext } from '../../storage/request-context';
import type { ProductStatus, ProductType } from '../../storage/entities/product.entity';
import { decodeCursor, encodeCursor, isBigint, isDecimal, isPgTimestamp, isText, isUuid } from '../http/cursor';
import { BadRequestError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import type { PRODUCT_SORT_FIELDS, PRODUCT_STATUSES, PRODUCT_TYPES, SORT_DIRECTIONS } from './products.schemas';
import { moneyNumber, moneyString, optionalMoneyNumber } from '../../domain/product-rules';
import { discountPercent } from '../../domain/money';
import { productsError } from './products.errors';
import type { ProductSummaryView } from './products.view';

export interface ProductFilters {
  storeId: string;
  page: number;
  limit: number;
  status?: (typeof PRODUCT_STATUSES)[number];
  search?: string;
  categoryId?: string;
  brandId?: string;
  vendorId?: string;
  ids?: string[];
  type?: (typeof PRODUCT_TYPES)[number];
  priceMin?: number;
  priceMax?: number;
  createdFrom?: Date;
  createdTo?: Date;
  hasBarcode?: boolean;
  sortBy: (typeof PRODUCT_SORT_FIELDS)[number];
  sortDir: (typeof SORT_DIRECTIONS)[number];
  cursor?: string;
}

interface SummaryRow {
  id: string;
  store_id: string;
  title: string;
  slug: string;
  type: ProductType;
  status: ProductStatus;
  price: string;
  compare_at_price: string | null;
  currency: string;
  brand_id: string | null;
  vendor_id: string | null;
  stock: string;
  image_url: string | null;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
  sort_key: string;
}

const STOCK_SQL = '(SELECT COALESCE(sum(v.stock), 0) FROM product_variants v WHERE v.product_id = p.id)';

/**
 * Each sort key: its SQL expression, the type its cursor value is read back as, and the check that a
 * cursor value is one PostgreSQL wrote as text for that type (so a tampered one is a 400, not a
 * failed cast).
 */
const SORTS: Record<ProductFilters['sortBy'], { expr: string; type: string; accepts: (value: string) => boolean }> = {
  createdAt: { expr: 'p.created_at', type: 'timestamptz', accepts: isPgTimestamp },
  updatedAt: { expr: 'p.updated_at', type: 'timestamptz', accepts: isPgTimestamp },
  name: { expr: 'lower(p.title)', type: 'text', accepts: isText },
  price: { expr: 'p.price', type: 'numeric', accepts: isDecimal },
  stock: { expr: STOCK_SQL, type: 'bigint', accepts: isBigint },
};

const SUMMARY_COLUMNS = `p.id, p.store_id, p.title, p.slug, p.type, p.status, p.price, p.compare_at_price, p.currency, p.brand_id, p.vendor_id,
  ${STOCK_SQL} AS stock,
  (SELECT i.url FROM product_images i WHERE i.product_id = p.id ORDER BY i.position, i.id LIMIT 1) AS image_url,
  p.published_at, p.created_at, p.updated_at`;

function summary(row: SummaryRow): ProductSummaryView {
  const stock = Number(row.stock);
  return {
    id: row.id,
    storeId: row.store_id,
    title: row.title,
    slug: row.slug,
    type: row.type,
    status: row.status,
    price: moneyNumber(row.price),
    compareAtPrice: optionalMoneyNumber(row.compare_at_price),
    discountPercent: discountPercent(row.price, row.compare_at_price),
    currency: row.currency,
    brandId: row.brand_id,
    vendorId: row.vendor_id,
    stock,
    inStock: stock > 0,
    imageUrl: row.image_url,
    publishedAt: row.published_at ? row.published_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Collects positional parameters: `add(value)` answers its placeholder. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** `%` and `_` (and the escape itself) taken literally in ILIKE … ESCAPE '\'. */
export const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

function filterSql(ctx: RequestContext, filters: ProductFilters, params: Params): string {
  const where = [`p.tenant_id = ${params.add(ctx.tenantId)}`, `p.store_id = ${params.add(filters.storeId)}`];
  if (filters.status) where.push(`p.status = ${params.add(filters.status)}`);
  if (filters.type) where.push(`p.type = ${params.add(filters.type)}`);
  if (filters.brandId) where.push(`p.brand_id = ${params.add(filters.brandId)}::uuid`);
  if (filters.vendorId) where.push(`p.vendor_id = ${params.add(filters.vendorId)}::uuid`);
  if (filters.ids?.length) where.push(`p.id = ANY(${params.add(filters.ids)}::uuid[])`);
  if (filters.categoryId)
    where.push(
      `EXISTS (SELECT 1 FROM product_categories pc WHERE pc.product_id = p.id AND pc.category_id = ${params.add(filters.categoryId)}::uuid)`,
    );
  if (filters.priceMin !== undefined) where.push(`p.price >= ${params.add(moneyString(filters.priceMin))}::numeric`);
  if (filters.priceMax !== undefined) where.push(`p.price <= ${params.add(moneyString(filters.priceMax))}::numeric`);
  if (filters.createdFrom) where.push(`p.created_at >= ${params.add(filters.createdFrom)}`);
  if (filters.createdTo) where.push(`p.created_at <= ${params.add(filters.createdTo)}`);
  if (filters.hasBarcode !== undefined) {
    where.push(
      `${filters.hasBarcode ? '' : 'NOT '}EXISTS (SELECT 1 FROM product_variants b WHERE b.product_id = p.id AND b.barcode IS NOT NULL AND b.barcode <> '')`,
    );
  }
  if (filters.search) {
    const pattern = params.add(likePattern(filters.search));
    where.push(
      `(p.title ILIKE ${pattern} ESCAPE '\\' OR p.slug ILIKE ${pattern} ESCAPE '\\' OR EXISTS (SELECT 1 FROM product_variants s WHERE s.product_id = p.id AND s.sku ILIKE ${pattern} ESCAPE '\\'))`,
    );
  }
  return where.join(' AND ');
}

/** A page cursor: the sort it was made for, then the last row's sort value and id. */
type ProductCursor = readonly [sortBy: string, sortDir: string, sortValue: string, id: string];

const invalidCursor = (): BadRequestError =>
  productsError('invalid_cursor', 'The cursor is not one this list gave, or was made for another sort.', [
    { path: 'query.cursor', message: 'invalid cursor' },
  ]);

const readCursor = (cursor: string, filters: ProductFilters): ProductCursor =>
  decodeCursor<ProductCursor>(cursor, {
    length: 4,
    accepts: ([sortBy, sortDir, value, id]) =>
      sortBy === filters.sortBy && sortDir === filters.sortDir && SORTS[filters.sortBy].accepts(value) && isUuid(id),
    invalid: invalidCursor,
  });

function checkRanges(filters: ProductFilters): void {
  if (filters.priceMin !== undefined && filters.priceMax !== undefined && filters.priceMin > filters.priceMax) {
    throw productsError('invalid_range', 'priceMin is above priceMax.', [{ path: 'query.priceMin', message: 'must not exceed priceMax' }]);
  }
  if (filters.createdFrom && filters.createdTo && filters.createdFrom > filters.createdTo) {
    throw productsError('invalid_range', 'createdFrom is after createdTo.', [
      { path: 'query.createdFrom', message: 'must not be after createdTo' },
    ]);
  }
}

async function runPage(
  ctx: RequestContext,
  filters: ProductFilters,
  useCursor: boolean,
): Promise<{ items: ProductSummaryView[]; nextCursor: string | null; total: number }> {
  await requireStore(ctx, filters.storeId);
  checkRanges(filters);
  const sort = SORTS[filters.sortBy];
  const dir = filters.sortDir === 'asc' ? 'ASC' : 'DESC';
  const params = new Params();
  const where = filterSql(ctx, filters, params);
  const countRows: Array<{ total: string }> = await ctx.manager.query(
    `SELECT count(*) AS total FROM products p WHERE ${where}`,
    params.values,
  );
  let keyset = '';
  let offset = (filters.page - 1) * filters.limit;
  if (useCursor && filters.cursor) {
    const [, , afterValue, afterId] = readCursor(filters.cursor, filters);
    keyset = ` AND (${sort.expr}, p.id) ${dir === 'ASC' ? '>' : '<'} (${params.add(afterValue)}::${sort.type}, ${params.add(afterId)}::uuid)`;
    offset = 0;
  }
  const rows: SummaryRow[] = await ctx.manager.query(
    `SELECT ${SUMMARY_COLUMNS}, (${sort.expr})::text AS sort_key FROM products p WHERE ${where}${keyset}
      ORDER BY ${sort.expr} ${dir}, p.id ${dir} LIMIT ${params.add(filters.limit + 1)} OFFSET ${params.add(offset)}`,
    params.values,
  );
  const more = rows.length > filters.limit;
  const page = rows.slice(0, filters.limit);
  const last = page[page.length - 1];
  const nextCursor = useCursor && more && last ? encodeCursor([filters.sortBy, filters.sortDir, last.sort_key, last.id]) : null;
  return { items: page.map(summary), nextCursor, total: Number(countRows[0]?.total ?? 0) };
}

/** LIST_PAGE products of the store, any status, newest first; `nextCursor` continues where it stops. */
export const LIST_PAGE = 100;

export async function listProducts(
  ctx: RequestContext,
  storeId: string,
  cursor?: string,
): Promise<{ items: ProductSummaryView[]; nextCursor: string | null; total: number }> {
  return runPage(ctx, { storeId, page: 1, limit: LIST_PAGE, sortBy: 'createdAt', sortDir: 'desc', cursor }, true);
}

export async function pageProducts(
  ctx: RequestContext,
  filters: ProductFilters,
): Promise<{ items: ProductSummaryView[]; nextCursor: string | null; page: number; limit: number; total: number }> {
  const result = await runPage(ctx, filters, true);
  return { ...result, page: filters.cursor ? 1 : filters.page, limit: filters.limit };
}

export async function searchProducts(
  ctx: RequestContext,
  filters: ProductFilters,
): Promise<{ items: ProductSummaryView[]; page: number; limit: number; total: number }> {
  const { items, total } = await runPage(ctx, { ...filters, cursor: undefined }, false);
  return { items, page: filters.page, limit: filters.limit, total };
}

/** Per category of the store: products in it and Σ (variant price, else product price) × stock, in SQL numeric. */
export async function categoryValue(
  ctx: RequestContext,
  storeId: string,
): Promise<{ items: Array<{ categoryId: string; name: string; productCount: number; stockValue: string }> }> {
  await requireStore(ctx, storeId);
  const rows: Array<{ id: string; name: string; product_count: number; stock_value: string }> = await ctx.manager.query(
    `SELECT c.id, c.name,
            (SELECT count(*)::int FROM product_categories pc JOIN products p ON p.id = pc.product_id WHERE pc.category_id = c.id) AS product_count,
            (SELECT COALESCE(sum(COALESCE(v.price, p.price) * v.stock), 0)
               FROM product_categories pc JOIN products p ON p.id = pc.product_id JOIN product_variants v ON v.product_id = p.id
              WHERE pc.category_id = c.id)::numeric(24, 2)::text AS stock_value
       FROM categories c
      WHERE c.tenant_id = $1 AND c.store_id = $2
      ORDER BY lower(c.name), c.id`,
    [ctx.tenantId, storeId],
  );
  return {
    items: rows.map((row) => ({ categoryId: row.id, name: row.name, productCount: row.product_count, stockValue: row.stock_value })),
  };
}
