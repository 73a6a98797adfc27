/**
 * The product CSV layout shared by the import and the export (docs/catalog.md, "Import and export"): one row
 * per variant, rows grouped into a product by `handle` (the product slug). The product columns are
 * read from the first row of a handle; later rows of the same handle leave them empty or repeat the
 * same value. A product without variants is one row whose variant columns are all empty.
 */
import type { ProductParts } from '../products/products.view';
import { canonicalMoney } from '../../domain/product-rules';
import { listCell, type CsvRecord, type RowError } from './csv-stream';
import type { ProductInput, VariantInput } from '../products/products.service';

export const PRODUCT_COLUMNS = [
  'handle',
  'title',
  'description',
  'type',
  'status',
  'price',
  'compareAtPrice',
  'currency',
  'vendor',
  'brand',
  'categories',
  'tags',
  'attributes',
  'translations',
  'images',
  'imageAlts',
] as const;
export const VARIANT_COLUMNS = [
  'sku',
  'barcode',
  'option1Name',
  'option1Value',
  'option2Name',
  'option2Value',
  'option3Name',
  'option3Value',
  'variantPrice',
  'variantCompareAtPrice',
  'stock',
] as const;
export const LAYOUT_COLUMNS: readonly string[] = [...PRODUCT_COLUMNS, ...VARIANT_COLUMNS];
export const REQUIRED_COLUMNS = ['handle', 'title', 'price'] as const;

/** The rows of one handle, in file order. */
export interface ProductGroup {
  handle: string;
  firstRow: number;
  lastRow: number;
  records: CsvRecord[];
  /** Problems found while grouping (e.g. a handle that reappears); the product is then skipped. */
  errors: RowError[];
}

/**
 * Groups records by handle. Rows of one handle must be contiguous (as the export writes them): a handle
 * that reappears after another is reported on each such row and that group is skipped.
 */
export async function* productGroups(records: AsyncIterable<CsvRecord>): AsyncGenerator<ProductGroup> {
  const seen = new Map<string, number>();
  let current: ProductGroup | undefined;
  for await (const record of records) {
    const handle = (record.cells.handle ?? '').trim().toLowerCase();
    if (current && handle === current.handle && handle !== '') {
      current.records.push(record);
      current.lastRow = record.row;
      current.errors.push(...record.errors);
      continue;
    }
    if (current) yield current;
    current = { handle, firstRow: record.row, lastRow: record.row, records: [record], errors: [...record.errors] };
    if (handle === '') current.errors.push({ row: record.row, column: 'handle', message: 'is required' });
    const first = seen.get(handle);
    if (handle !== '' && first !== undefined)
      current.errors.push({
        row: record.row,
        column: 'handle',
        message: `the rows of handle "${handle}" must be contiguous; it already appeared in row ${first}`,
      });
    else if (handle !== '') seen.set(handle, record.row);
  }
  if (current) yield current;
}

/** References by name or slug, resolved per batch against the store. */
export interface Lookups {
  brand(value: string): string | undefined;
  category(slug: string): string | undefined;
  tag(value: string): string | undefined;
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const numberCell = (value: string | undefined): number | string | undefined =>
  value === undefined ? undefined : NUMBER.test(value.trim()) ? Number(value.trim()) : value;

function jsonCell(record: CsvRecord, column: string, errors: RowError[], kind: 'object' | 'array'): unknown {
  const raw = record.cells[column];
  if (raw === undefined) return kind === 'object' ? {} : [];
  try {
    const value = JSON.parse(raw) as unknown;
    const ok = kind === 'array' ? Array.isArray(value) : value !== null && typeof value === 'object' && !Array.isArray(value);
    if (ok) return value;
  } catch {
    /* reported below */
  }
  errors.push({ row: record.row, column, message: `must be a JSON ${kind}` });
  return undefined;
}

/**
 * Builds the product input of a group. `current` is the stored product of the handle (update) or
 * undefined (create); columns missing from the header keep the stored value. Returns the input, the
 * row number of each variant, and the errors of the cells that could not be read.
 */
export function groupInput(
  group: ProductGroup,
  header: readonly string[],
  lookups: Lookups,
  current?: ProductParts,
): { input: ProductInput; variantRows: number[]; errors: RowError[] } {
  const errors: RowError[] = [...group.errors];
  const first = group.records[0]!;
  const has = (column: string): boolean => header.includes(column);
  for (const record of group.records.slice(1)) {
    for (const column of PRODUCT_COLUMNS) {
      if (column === 'handle') continue;
      const value = record.cells[column];
      if (value !== undefined && value !== first.cells[column])
        errors.push({
          row: record.row,
          column,
          message: `differs from the first row of handle "${group.handle}" (row ${first.row}); leave it empty on later rows`,
        });
    }
  }
  const cell = (column: string): string | undefined => first.cells[column];
  const p = current?.product;
  const input: Record<string, unknown> = {
    slug: group.handle,
    title: cell('title')?.trim(),
    price: numberCell(cell('price')),
  };
  input.descriptionHtml = has('description') ? (cell('description') ?? '') : (p?.descriptionHtml ?? '');
  input.type = has('type') && cell('type') !== undefined ? cell('type')!.trim().toUpperCase() : (p?.type ?? 'PHYSICAL');
  if (has('status') && cell('status') !== undefined) input.status = cell('status')!.trim().toUpperCase();
  input.compareAtPrice = has('compareAtPrice')
    ? (numberCell(cell('compareAtPrice')) ?? null)
    : p?.compareAtPrice === undefined || p.compareAtPrice === null
      ? null
      : Number(p.compareAtPrice);
  if (has('currency') ? cell('currency') !== undefined : p !== undefined)
    input.currency = has('currency') ? cell('currency')!.trim().toUpperCase() : p!.currency;
  input.vendorId = p?.vendorId ?? null;
  input.vendorName = has('vendor') ? (cell('vendor')?.trim() ?? null) : (p?.vendorName ?? null);

  if (has('brand')) {
    const brand = cell('brand')?.trim();
    if (brand === undefined) input.brandId = null;
    else {
      input.brandId = lookups.brand(brand);
      if (!input.brandId)
        errors.push({ row: first.row, column: 'brand', message: `no brand of the store has the slug or name "${brand}"` });
    }
  } else input.brandId = p?.brandId ?? null;

  if (has('categories')) {
    const ids: string[] = [];
    for (const slug of listCell(cell('categories'))) {
      const id = lookups.category(slug);
      if (id) ids.push(id);
      else errors.push({ row: first.row, column: 'categories', message: `no category of the store has the slug "${slug}"` });
    }
    input.categoryIds = [...new Set(ids)];
  } else input.categoryIds = current?.categoryIds ?? [];

  if (has('tags')) {
    const ids: string[] = [];
    for (const value of listCell(cell('tags'))) {
      const id = lookups.tag(value);
      if (id) ids.push(id);
      else errors.push({ row: first.row, column: 'tags', message: `no product tag of the store has the slug or name "${value}"` });
    }
    input.tagIds = [...new Set(ids)];
  } else input.tagIds = current?.tagIds ?? [];

  input.attributes = has('attributes') ? jsonCell(first, 'attributes', errors, 'object') : (p?.attributes ?? {});
  input.translations = has('translations') ? jsonCell(first, 'translations', errors, 'object') : (p?.translations ?? {});

  if (has('images') || has('imageAlts')) {
    const urls = listCell(cell('images'));
    const alts = cell('imageAlts') === undefined ? [] : ((jsonCell(first, 'imageAlts', errors, 'array') as unknown[] | undefined) ?? []);
    if (alts.length > urls.length) errors.push({ row: first.row, column: 'imageAlts', message: 'has more entries than images' });
    input.images = urls.map((url, i) => ({ url, alt: typeof alts[i] === 'string' ? alts[i] : null }));
  } else input.images = (current?.images ?? []).map((i) => ({ url: i.url, alt: i.alt }));

  const variantRows: number[] = [];
  const hasVariantColumns = VARIANT_COLUMNS.some(has);
  if (hasVariantColumns) {
    const variants: VariantInput[] = [];
    const isVariant = (record: CsvRecord): boolean => VARIANT_COLUMNS.some((c) => record.cells[c] !== undefined);
    for (const record of group.records) {
      if (!isVariant(record)) {
        if (group.records.length > 1)
          errors.push({ row: record.row, column: null, message: 'a product with several rows needs variant columns on each row' });
        continue;
      }
      const options: Record<string, string> = {};
      for (const n of [1, 2, 3]) {
        const name = record.cells[`option${n}Name`]?.trim();
        const value = record.cells[`option${n}Value`]?.trim();
        if (name === undefined && value === undefined) continue;
        if (name === undefined || value === undefined)
          errors.push({
            row: record.row,
            column: name === undefined ? `option${n}Name` : `option${n}Value`,
            message: 'an option needs both its name and its value',
          });
        else if (options[name] !== undefined)
          errors.push({ row: record.row, column: `option${n}Name`, message: `option "${name}" is given twice` });
        else options[name] = value;
      }
      const stockCell = record.cells.stock?.trim();
      const variant: Record<string, unknown> = {
        sku: record.cells.sku?.trim() ?? null,
        barcode: record.cells.barcode?.trim() ?? null,
        options,
        price: numberCell(record.cells.variantPrice) ?? null,
        compareAtPrice: numberCell(record.cells.variantCompareAtPrice) ?? null,
        stock: stockCell === undefined ? 0 : /^\d+$/.test(stockCell) ? Number(stockCell) : stockCell,
      };
      // Keep the ids of stored variants (orders refer to them): matched by SKU, else by identical options.
      const match =
        current?.variants.find(
          (v) => variant.sku !== null && v.sku !== null && v.sku.toLowerCase() === String(variant.sku).toLowerCase(),
        ) ??
        current?.variants.find(
          (v) =>
            variant.sku === null && JSON.stringify(Object.entries(v.options).sort()) === JSON.stringify(Object.entries(options).sort()),
        );
      if (match && !variants.some((v) => v.id === match.id)) variant.id = match.id;
      variants.push(variant as unknown as VariantInput);
      variantRows.push(record.row);
    }
    input.variants = variants;
  } else {
    input.variants = (current?.variants ?? []).map((v) => ({
      id: v.id,
      sku: v.sku,
      barcode: v.barcode,
      options: v.options,
      price: v.price === null ? null : Number(v.price),
      compareAtPrice: v.compareAtPrice === null ? null : Number(v.compareAtPrice),
      stock: v.stock,
    }));
  }
  return { input: input as unknown as ProductInput, variantRows, errors };
}

/** Where a product-service error path points in the CSV: `body.variants[2].sku` → (row of variant 2, sku). */
export function errorLocation(path: string, group: ProductGroup, variantRows: number[]): { row: number; column: string | null } {
  const first = group.firstRow;
  const variant = /^(?:body\.)?variants\[(\d+)\]\.?(\w*)/.exec(path);
  if (variant) {
    const row = variantRows[Number(variant[1])] ?? first;
    const field = variant[2] ?? '';
    const column =
      {
        sku: 'sku',
        barcode: 'barcode',
        price: 'variantPrice',
        compareAtPrice: 'variantCompareAtPrice',
        stock: 'stock',
        options: 'option1Name',
        id: 'sku',
      }[field] ?? null;
    return { row, column };
  }
  const field = /^(?:body\.)?(\w+)/.exec(path)?.[1] ?? '';
  const column =
    {
      slug: 'handle',
      title: 'title',
      descriptionHtml: 'description',
      type: 'type',
      status: 'status',
      price: 'price',
      compareAtPrice: 'compareAtPrice',
      currency: 'currency',
      vendorName: 'vendor',
      brandId: 'brand',
      categoryIds: 'categories',
      tagIds: 'tags',
      attributes: 'attributes',
      translations: 'translations',
      images: 'images',
      variants: 'sku',
    }[field] ?? null;
  return { row: first, column };
}

/** Names of stored references, for the export. */
export interface ExportNames {
  brands: Map<string, string>;
  categories: Map<string, string>;
  tags: Map<string, string>;
}

/** The CSV rows (cells by column) of one stored product: one per variant, product columns on the first. */
export function exportRows(parts: ProductParts, names: ExportNames): Array<Record<string, unknown>> {
  const p = parts.product;
  const productCells: Record<string, unknown> = {
    handle: p.slug,
    title: p.title,
    description: p.descriptionHtml,
    type: p.type,
    status: p.status,
    price: canonicalMoney(p.price),
    compareAtPrice: canonicalMoney(p.compareAtPrice),
    currency: p.currency,
    vendor: p.vendorName,
    brand: p.brandId ? names.brands.get(p.brandId) : null,
    categories: parts.categoryIds
      .map((id) => names.categories.get(id))
      .filter(Boolean)
      .join('|'),
    tags: parts.tagIds
      .map((id) => names.tags.get(id))
      .filter(Boolean)
      .join('|'),
    attributes: Object.keys(p.attributes ?? {}).length ? JSON.stringify(p.attributes) : null,
    translations: Object.keys(p.translations ?? {}).length ? JSON.stringify(p.translations) : null,
    images: parts.images.map((i) => i.url).join('|'),
    imageAlts: parts.images.some((i) => i.alt) ? JSON.stringify(parts.images.map((i) => i.alt ?? null)) : null,
  };
  if (parts.variants.length === 0) return [productCells];
  return parts.variants.map((v, index) => {
    const row: Record<string, unknown> = index === 0 ? { ...productCells } : { handle: p.slug };
    row.sku = v.sku;
    row.barcode = v.barcode;
    Object.entries(v.options)
      .slice(0, 3)
      .forEach(([name, value], i) => {
        row[`option${i + 1}Name`] = name;
        row[`option${i + 1}Value`] = value;
      });
    row.variantPrice = canonicalMoney(v.price);
    row.variantCompareAtPrice = canonicalMoney(v.compareAtPrice);
    row.stock = v.stock;
    return row;
  });
}
