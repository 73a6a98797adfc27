/**
 * Product CSV import (layout in product-layout.ts). Each product (the rows of one handle) is upserted
 * by handle through the product service: a known handle replaces the product (replaceProduct); new
 * handles are created with the same checks and rows as createProduct, written together per batch
 * (product-bulk-create.ts), so validation, the audit entry (product.create / product.update) and
 * the outbox row (queue index) are those of the product operations; a product whose rows
 * match what is stored changes nothing and writes nothing. Products are written in batches, each
 * batch one transaction, each product inside a savepoint: a bad product is reported with its row
 * numbers and columns and skipped, and never costs the good ones.
 */
import { QueryFailedError } from 'typeorm';
import type Joi from 'joi';
import { Product } from '../../storage/entities';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { AppError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { createProduct, replaceProduct, type ProductInput } from '../products/products.service';
import { UpdateProductDto } from '../products/products.schemas';
import { loadParts, type ProductParts } from '../products/products.view';
import { csvRecords, type CsvSource, type RowError } from './csv-stream';
import { buildNewProducts, insertNewProducts } from './product-bulk-create';
import { importSettings } from './imports.settings';
import { importsError } from './imports.errors';
import { recordImportRows } from '../../lib/metrics';
import {
  errorLocation,
  groupInput,
  LAYOUT_COLUMNS,
  productGroups,
  REQUIRED_COLUMNS,
  type Lookups,
  type ProductGroup,
} from './product-layout';

export const MAX_REPORTED_ROW_ERRORS = 1_000;

export interface ImportCounts {
  rowsRead: number;
  rowsFailed: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface BatchOutcome extends ImportCounts {
  errors: RowError[];
}

export const emptyOutcome = (): BatchOutcome => ({
  rowsRead: 0,
  rowsFailed: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  failed: 0,
  errors: [],
});

export const productCsvRules = { known: LAYOUT_COLUMNS, required: REQUIRED_COLUMNS };

async function loadLookups(tx: RequestContext, storeId: string, groups: ProductGroup[]): Promise<Lookups> {
  const brandValues = new Set<string>();
  const categorySlugs = new Set<string>();
  const tagValues = new Set<string>();
  for (const g of groups) {
    const cells = g.records[0]!.cells;
    if (cells.brand) brandValues.add(cells.brand.trim().toLowerCase());
    for (const s of (cells.categories ?? '').split('|')) if (s.trim()) categorySlugs.add(s.trim().toLowerCase());
    for (const s of (cells.tags ?? '').split('|')) if (s.trim()) tagValues.add(s.trim().toLowerCase());
  }
  const brands: Array<{ id: string; slug: string; name: string }> = brandValues.size
    ? await tx.manager.query(
        'SELECT id, lower(slug) AS slug, lower(name) AS name FROM brands WHERE tenant_id = $1 AND store_id = $2 AND (lower(slug) = ANY($3::text[]) OR lower(name) = ANY($3::text[]))',
        [tx.tenantId, storeId, [...brandValues]],
      )
    : [];
  const categories: Array<{ id: string; slug: string }> = categorySlugs.size
    ? await tx.manager.query(
        'SELECT id, lower(slug) AS slug FROM categories WHERE tenant_id = $1 AND store_id = $2 AND lower(slug) = ANY($3::text[])',
        [tx.tenantId, storeId, [...categorySlugs]],
      )
    : [];
  const tags: Array<{ id: string; slug: string; name: string }> = tagValues.size
    ? await tx.manager.query(
        'SELECT id, lower(slug) AS slug, lower(name) AS name FROM product_tags WHERE tenant_id = $1 AND store_id = $2 AND (lower(slug) = ANY($3::text[]) OR lower(name) = ANY($3::text[]))',
        [tx.tenantId, storeId, [...tagValues]],
      )
    : [];
  const find = <T extends { id: string; slug: string; name?: string }>(rows: T[], value: string): string | undefined => {
    const v = value.trim().toLowerCase();
    return (rows.find((r) => r.slug === v) ?? rows.find((r) => r.name === v))?.id;
  };
  return { brand: (v) => find(brands, v), category: (v) => find(categories, v), tag: (v) => find(tags, v) };
}

function joiErrors(error: Joi.ValidationError, group: ProductGroup, variantRows: number[]): RowError[] {
  return error.details.map((detail) => {
    const path = detail.path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '')
      .replace(/\.\[/g, '[');
    const { row, column } = errorLocation(path, group, variantRows);
    return { row, column, message: detail.message };
  });
}

/** A new product's cells read and checked against its bounds (CPU work only, done ahead of the batch's transaction). */
interface CheckedGroup {
  input?: ProductInput;
  variantRows: number[];
  errors: RowError[];
}

/**
 * The checks of a batch that need no transaction: reference lookups (brands, categories, tags) and,
 * for every handle not stored yet, its cells read and validated as a new product. The asynchronous
 * import prepares the next batch this way while the previous one commits. The batch's transaction
 * decides again which handles exist; a handle created meanwhile is checked there as an update.
 */
export interface PreparedGroups {
  lookups: Lookups;
  checked: Map<ProductGroup, CheckedGroup>;
}

function checkGroup(group: ProductGroup, header: readonly string[], lookups: Lookups, current?: ProductParts): CheckedGroup {
  const built = groupInput(group, header, lookups, current);
  const { value, error } = UpdateProductDto.schema.validate(built.input, {
    abortEarly: false,
    convert: true,
    errors: { wrap: { label: false } },
  });
  if (built.errors.length || error) {
    // Cells that could not be read are reported once; the product's own bounds add what they find.
    const found = [...built.errors, ...(error ? joiErrors(error, group, built.variantRows) : [])];
    const seen = new Set<string>();
    return {
      variantRows: built.variantRows,
      errors: found.filter((e) => !seen.has(`${e.row}:${e.column}`) && seen.add(`${e.row}:${e.column}`)),
    };
  }
  return { input: value as ProductInput, variantRows: built.variantRows, errors: [] };
}

const storedHandles = async (ctx: RequestContext, storeId: string, groups: ProductGroup[]): Promise<Map<string, string>> => {
  const handles = groups.map((g) => g.handle).filter(Boolean);
  const rows: Array<{ id: string; slug: string }> = await ctx.manager.query(
    'SELECT id, slug FROM products WHERE tenant_id = $1 AND store_id = $2 AND slug = ANY($3::text[])',
    [ctx.tenantId, storeId, handles],
  );
  return new Map(rows.map((r) => [r.slug, r.id]));
};

export async function prepareProductGroups(
  ctx: RequestContext,
  storeId: string,
  header: readonly string[],
  groups: ProductGroup[],
): Promise<PreparedGroups> {
  const lookups = await loadLookups(ctx, storeId, groups);
  const stored = await storedHandles(ctx, storeId, groups);
  const checked = new Map<ProductGroup, CheckedGroup>();
  for (const group of groups) if (!group.errors.length && !stored.has(group.handle)) checked.set(group, checkGroup(group, header, lookups));
  return { lookups, checked };
}

/**
 * Writes `groups` into the store within the caller's transaction `tx` and adds the outcome to `out`.
 * Only unexpected errors (database down) escape; they roll the whole batch back. `final`: the import's
 * last batch (its new products are indexed without waiting for more). `prepared`: the batch's checks
 * made ahead (prepareProductGroups); without it they are made here.
 */
export async function applyProductGroups(
  tx: RequestContext,
  storeId: string,
  header: readonly string[],
  groups: ProductGroup[],
  out: BatchOutcome,
  options: { final?: boolean; prepared?: PreparedGroups } = {},
): Promise<void> {
  if (!groups.length) return;
  const store = await requireStore(tx, storeId, { forWrite: true });
  const prepared = options.prepared ?? { lookups: await loadLookups(tx, storeId, groups), checked: new Map<ProductGroup, CheckedGroup>() };
  const idBySlug = await storedHandles(tx, storeId, groups);
  const fail = (group: ProductGroup, errors: RowError[]): void => {
    out.failed += 1;
    out.rowsFailed += group.records.length;
    out.errors.push(...errors);
  };
  const serviceErrors = (
    group: ProductGroup,
    variantRows: number[],
    errors: Array<{ path: string; message: string }>,
    message: string,
  ): RowError[] =>
    errors.length
      ? errors.map((e) => ({ ...errorLocation(e.path, group, variantRows), message: e.message }))
      : [{ row: group.firstRow, column: null, message }];
  const fresh: Array<{ group: ProductGroup; input: ProductInput; variantRows: number[] }> = [];

  for (const group of groups) {
    out.rowsRead += group.records.length;
    if (group.errors.length) {
      fail(group, group.errors);
      continue;
    }
    const id = idBySlug.get(group.handle);
    let current: ProductParts | undefined;
    if (id) {
      const product = await tenantRepository(tx, Product).findOneBy({ id });
      if (product) current = await loadParts(tx, product);
    }
    const checked = (!current && prepared.checked.get(group)) || checkGroup(group, header, prepared.lookups, current);
    if (!checked.input) {
      fail(group, checked.errors);
      continue;
    }
    if (!current) {
      fresh.push({ group, input: checked.input, variantRows: checked.variantRows });
      continue;
    }
    await tx.manager.query('SAVEPOINT import_product');
    try {
      const view = await replaceProduct(tx, current.product.id, checked.input);
      if (view.updatedAt === current.product.updatedAt.toISOString()) out.unchanged += 1;
      else out.updated += 1;
      await tx.manager.query('RELEASE SAVEPOINT import_product');
    } catch (caught) {
      await tx.manager.query('ROLLBACK TO SAVEPOINT import_product');
      if (caught instanceof AppError) fail(group, serviceErrors(group, checked.variantRows, caught.errors, caught.message));
      else if (caught instanceof QueryFailedError)
        fail(group, [
          {
            row: group.firstRow,
            column: null,
            message: 'the product could not be written (it conflicts with another product of the store)',
          },
        ]);
      else throw caught;
    }
  }
  if (!fresh.length) return;

  // New products: checked one by one, written together; a refusal by the database sends them through createProduct one by one.
  await tx.manager.query('SAVEPOINT import_new');
  try {
    const { built, failed } = await buildNewProducts(
      tx,
      store,
      fresh.map((f, key) => ({ key, input: { ...f.input, slug: f.group.handle } })),
    );
    await insertNewProducts(
      tx,
      store,
      built.map((b) => b.parts),
      { final: options.final },
    );
    await tx.manager.query('RELEASE SAVEPOINT import_new');
    out.created += built.length;
    for (const f of failed) fail(fresh[f.key]!.group, serviceErrors(fresh[f.key]!.group, fresh[f.key]!.variantRows, f.errors, f.message));
    return;
  } catch (caught) {
    await tx.manager.query('ROLLBACK TO SAVEPOINT import_new');
    if (!(caught instanceof QueryFailedError)) throw caught;
  }
  for (const { group, input, variantRows } of fresh) {
    await tx.manager.query('SAVEPOINT import_product');
    try {
      await createProduct(tx, { ...input, storeId });
      out.created += 1;
      await tx.manager.query('RELEASE SAVEPOINT import_product');
    } catch (caught) {
      await tx.manager.query('ROLLBACK TO SAVEPOINT import_product');
      if (caught instanceof AppError) fail(group, serviceErrors(group, variantRows, caught.errors, caught.message));
      else if (caught instanceof QueryFailedError)
        fail(group, [
          {
            row: group.firstRow,
            column: null,
            message: 'the product could not be written (it conflicts with another product of the store)',
          },
        ]);
      else throw caught;
    }
  }
}

export interface ProductImportResult {
  rows: { read: number; failed: number };
  products: { created: number; updated: number; unchanged: number; failed: number };
  errors: RowError[];
  errorsTruncated: boolean;
}

export function importResult(counts: ImportCounts, errors: RowError[], totalErrors: number): ProductImportResult {
  return {
    rows: { read: counts.rowsRead, failed: counts.rowsFailed },
    products: { created: counts.created, updated: counts.updated, unchanged: counts.unchanged, failed: counts.failed },
    errors,
    errorsTruncated: totalErrors > errors.length,
  };
}

/**
 * The synchronous import: reads the whole CSV (refusing 413 use_async_import as soon as it reaches
 * IMPORT_ASYNC_MIN_ROWS data rows, before anything is written), then writes it in batches.
 */
export async function importProductsSync(ctx: RequestContext, storeId: string, source: CsvSource): Promise<ProductImportResult> {
  await requireStore(ctx, storeId, { forWrite: true });
  const { asyncMinRows, batchProducts } = importSettings();
  let header: string[] = [];
  const groups: ProductGroup[] = [];
  let rows = 0;
  for await (const group of productGroups(csvRecords(source, productCsvRules, (names) => (header = names)))) {
    rows += group.records.length;
    if (rows >= asyncMinRows) {
      throw importsError(
        'use_async_import',
        `The CSV has ${asyncMinRows} data rows or more; import it with POST /api/v1/bulk-import/products/async, which runs in the background and reports progress.`,
      );
    }
    groups.push(group);
  }
  const out = emptyOutcome();
  for (let i = 0; i < groups.length; i += batchProducts) {
    await inTransaction(ctx, (tx) =>
      applyProductGroups(tx, storeId, header, groups.slice(i, i + batchProducts), out, { final: i + batchProducts >= groups.length }),
    );
  }
  recordImportRows('sync', out);
  out.errors.sort((a, b) => a.row - b.row);
  return importResult(out, out.errors.slice(0, MAX_REPORTED_ROW_ERRORS), out.errors.length);
}
