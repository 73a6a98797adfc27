/**
 * CSV export and import of a store's categories. One layout for both directions, UTF-8 with a header:
 *
 *   slug, name, parentSlug, position, isActive, description, imageUrl
 *
 * - slug (required): the key; a row updates the category with this slug (case-insensitively: cells are
 *   read in lower case) or creates one.
 * - name (required, 1–120), parentSlug (empty: a root category; otherwise the slug of a category in the
 *   file or already in the store), position (integer ≥ 0; empty: kept when the parent stays, else after
 *   the last sibling), isActive (true/false; empty: true), description (≤ 5000), imageUrl (http(s)).
 * - A row replaces the editable fields like PUT /catalog/categories/{id}: empty description or imageUrl
 *   clear them. Rows may come in any order (parents are resolved within the file); the export lists
 *   parents before children.
 * - Every row is checked first (cells, duplicate slugs, unknown parents, cycles); any problem answers
 *   400 listing `rows[N].column` (N counts data rows from 1) and nothing is written. Otherwise all rows
 *   are written in one transaction. At most 5000 rows (413 above), within the 1 MB body limit.
 */
import Joi from 'joi';
import { Category } from '../../storage/entities';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { uuidv7 } from '../../storage/ids';
import { attachment, toCsv, type CsvColumn, type CsvDownload } from '../http/csv';
import { parseCsvImport } from '../http/csv-import';
import { ValidationError, type FieldError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { httpUrl, int, text } from '../http/schema-types';
import { CATEGORY_DESCRIPTION_MAX, CATEGORY_NAME_MAX, catalogSlug } from './categories.schemas';
import { categoryWrite, diffCategory, recordCategoryChange } from './categories.service';
import { loadTree } from './categories.tree';
import { categoriesError } from './categories.errors';

export const CATEGORY_IMPORT_MAX_ROWS = 5000;

interface CategoryCsvRow {
  slug: string;
  name: string;
  parentSlug?: string;
  position?: number;
  isActive?: boolean;
  description?: string;
  imageUrl?: string;
}

const LAYOUT = {
  columns: {
    // Slugs are matched case-insensitively: an upper-case cell is read in lower case.
    slug: catalogSlug().lowercase().required(),
    name: text(1, CATEGORY_NAME_MAX).required(),
    parentSlug: catalogSlug().lowercase(),
    position: int(0, 1_000_000),
    isActive: Joi.boolean(),
    description: text(1, CATEGORY_DESCRIPTION_MAX),
    imageUrl: httpUrl(),
  },
  maxRows: CATEGORY_IMPORT_MAX_ROWS,
};

export async function exportCategories(ctx: RequestContext, storeId: string): Promise<CsvDownload> {
  const store = await requireStore(ctx, storeId);
  const tree = await loadTree(ctx, storeId);
  const columns: Array<CsvColumn<Category>> = [
    { header: 'slug', value: (row) => row.slug },
    { header: 'name', value: (row) => row.name },
    { header: 'parentSlug', value: (row) => (row.parentId ? tree.byId.get(row.parentId)?.slug : null) },
    { header: 'position', value: (row) => row.position },
    { header: 'isActive', value: (row) => row.isActive },
    { header: 'description', value: (row) => row.description },
    { header: 'imageUrl', value: (row) => row.imageUrl },
  ];
  return { body: toCsv(tree.depthFirst(), columns), disposition: attachment(`categories-${store.slug}.csv`) };
}

export interface ImportResult {
  created: number;
  updated: number;
  unchanged: number;
}

export async function importCategories(ctx: RequestContext, input: { storeId: string; csv: string }): Promise<ImportResult> {
  return categoryWrite(ctx, async (tx) => {
    await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const rows = parseCsvImport<CategoryCsvRow>(input.csv, LAYOUT);
    const tree = await loadTree(tx, input.storeId);

    // 1. Slugs once per file; parents in the file or the store.
    const errors: FieldError[] = [];
    const rowOf = new Map<string, number>();
    rows.forEach((row, index) => {
      const slug = row.slug.toLowerCase();
      if (rowOf.has(slug)) errors.push({ path: `rows[${index + 1}].slug`, message: `slug repeats row ${rowOf.get(slug)! + 1}` });
      else rowOf.set(slug, index);
    });
    rows.forEach((row, index) => {
      if (row.parentSlug === undefined) return;
      const parent = row.parentSlug.toLowerCase();
      if (!rowOf.has(parent) && !tree.bySlug(parent))
        errors.push({ path: `rows[${index + 1}].parentSlug`, message: 'names no category of the file or the store' });
    });
    if (errors.length) throw new ValidationError('The CSV has invalid rows; nothing was imported.', errors);

    // 2. The tree after the import must have no cycle; a row's depth orders the writes (parents first).
    const parentOf = (slug: string): string | null => {
      const index = rowOf.get(slug);
      if (index !== undefined) return rows[index]!.parentSlug?.toLowerCase() ?? null;
      const existing = tree.bySlug(slug);
      const parent = existing?.parentId ? tree.byId.get(existing.parentId) : undefined;
      return parent ? parent.slug.toLowerCase() : null;
    };
    const depth = new Map<string, number>();
    rows.forEach((row, index) => {
      const chain: string[] = [];
      let current: string | null = row.slug.toLowerCase();
      while (current !== null && !depth.has(current)) {
        if (chain.includes(current)) {
          errors.push({ path: `rows[${index + 1}].parentSlug`, message: 'makes the category its own ancestor' });
          return;
        }
        chain.push(current);
        current = parentOf(current);
      }
      let d = current === null ? -1 : depth.get(current)!;
      for (const slug of chain.reverse()) depth.set(slug, ++d);
    });
    if (errors.length) throw categoriesError('category_cycle', 'The parents in the CSV form a cycle; nothing was imported.', errors);

    // 3. Write, parents before children.
    const order = rows
      .map((row, index) => ({ row, index }))
      .sort((a, b) => depth.get(a.row.slug.toLowerCase())! - depth.get(b.row.slug.toLowerCase())! || a.index - b.index);
    const idOf = new Map<string, string>([...tree.byId.values()].map((row) => [row.slug.toLowerCase(), row.id]));
    const nextPosition = new Map<string | null, number>();
    const place = (parentId: string | null, explicit: number | undefined): number => {
      const next = nextPosition.get(parentId) ?? tree.nextPosition(parentId);
      const position = explicit ?? next;
      nextPosition.set(parentId, Math.max(next, position + 1));
      return position;
    };
    const repo = tenantRepository(tx, Category);
    const result: ImportResult = { created: 0, updated: 0, unchanged: 0 };
    const now = new Date();
    for (const { row } of order) {
      const parentId = row.parentSlug ? idOf.get(row.parentSlug.toLowerCase())! : null;
      const fields = {
        name: row.name,
        slug: row.slug,
        parentId,
        description: row.description ?? null,
        imageUrl: row.imageUrl ?? null,
        isActive: row.isActive ?? true,
      };
      const existing = tree.bySlug(row.slug);
      if (existing) {
        const position = row.position ?? (parentId === existing.parentId ? existing.position : place(parentId, undefined));
        if (row.position !== undefined) place(parentId, row.position);
        const { before, after } = diffCategory(existing, { ...fields, position });
        if (Object.keys(after).length === 0) {
          result.unchanged += 1;
          continue;
        }
        await repo.update({ id: existing.id }, { ...fields, position, updatedAt: now });
        await recordCategoryChange(tx, 'update', existing.id, before, after);
        result.updated += 1;
      } else {
        const created = repo.create({
          id: uuidv7(),
          storeId: input.storeId,
          ...fields,
          position: place(parentId, row.position),
          createdAt: now,
          updatedAt: now,
        });
        await tx.manager.insert(Category, created);
        idOf.set(row.slug.toLowerCase(), created.id);
        const { createdAt: _c, updatedAt: _u, tenantId: _t, ...after } = created;
        await recordCategoryChange(tx, 'create', created.id, null, after);
        result.created += 1;
      }
    }
    return result;
  });
}
