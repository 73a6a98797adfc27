/**
 * Categories of a store as a tree: list, create, replace, delete, reorder.
 *
 * - Every write locks the store row first (SELECT … FOR UPDATE), so the tree checks (parent in the
 *   store, no cycle, free slug, no children on delete) cannot race with another write to the same tree.
 * - Position is a sort key among siblings; ties are ordered by name, then id. Creating or moving a
 *   category never renumbers its siblings; `reorder` numbers the children of one parent 0…n−1.
 * - Delete refuses a category that has children (409 `category_has_children`): move or delete them
 *   first. Its attributes go with it (foreign key ON DELETE CASCADE).
 * - Each changed category gets exactly one audit entry and one outbox row (queue index, aggregate
 *   category) in the transaction of the change; a write that changes nothing records neither.
 */
import { Category } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { BadRequestError, ConflictError } from '../../lib/errors';
import { requireStore } from '../../domain/store-access';
import { CATALOG_SLUG_MAX, firstFreeSlug, inSlugTransaction, slugify } from '../../domain/slugs';
import { categoryNotFound, CategoryTree, loadTree, type CategoryView } from './categories.tree';
import { categoriesError } from './categories.errors';
import type { CreateCategoryDto, ReorderCategoriesDto, UpdateCategoryDto } from './categories.schemas';
import type { InputOf } from '../http/typed-schema';

export const slugTakenError = (path = 'body.slug'): ConflictError =>
  categoriesError('slug_taken', 'Another category of the store has this slug.', [{ path, message: 'slug is already taken' }]);

export const invalidParentError = (path = 'body.parentId'): BadRequestError =>
  categoriesError('invalid_parent', 'The parent is not a category of this store.', [
    { path, message: 'must be a category of the same store' },
  ]);

export const cycleError = (path = 'body.parentId'): BadRequestError =>
  categoriesError('category_cycle', 'A category cannot be moved under itself or one of its descendants.', [
    { path, message: 'would make the category its own ancestor' },
  ]);

/** Runs a category write in one transaction; a slug race lost at the unique index answers 409 slug_taken. */
export const categoryWrite = <T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> =>
  inSlugTransaction(ctx, 'categories_store_slug', slugTakenError, work);

/** The first slug among `base`, `base-2`, `base-3`, … that no category of the tree (nor `taken`) has. */
export function freeCategorySlug(tree: CategoryTree, name: string, taken: ReadonlySet<string> = new Set()): string {
  return firstFreeSlug(slugify(name, CATALOG_SLUG_MAX - 6, 'category'), (slug) => taken.has(slug) || tree.bySlug(slug) !== undefined);
}

const EDITABLE = ['name', 'slug', 'parentId', 'description', 'imageUrl', 'position', 'isActive'] as const;
type Editable = Pick<Category, (typeof EDITABLE)[number]>;

/** The fields of `next` that differ from `current`, as before/after records (empty when nothing changes). */
export function diffCategory(current: Editable, next: Editable): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const field of EDITABLE) {
    if (current[field] === next[field]) continue;
    before[field] = current[field];
    after[field] = next[field];
  }
  return { before, after };
}

export async function recordCategoryChange(
  tx: RequestContext,
  verb: 'create' | 'update' | 'delete' | 'reorder',
  id: string,
  before: object | null,
  after: object | null,
): Promise<void> {
  await recordAudit(tx, { action: `category.${verb}`, resourceType: 'category', resourceId: id, before, after });
  const topic = verb === 'create' ? 'category.created' : verb === 'delete' ? 'category.deleted' : 'category.updated';
  await enqueueOutbox(tx, { queue: 'index', topic, aggregateType: 'category', aggregateId: id });
}

// Reads ---------------------------------------------------------------------------------------

export async function listCategories(ctx: RequestContext, storeId: string): Promise<{ items: CategoryView[] }> {
  await requireStore(ctx, storeId);
  const tree = await loadTree(ctx, storeId);
  return { items: tree.depthFirst().map((row) => tree.view(row)) };
}

// Writes --------------------------------------------------------------------------------------

/** The replace body; create takes the same with its store. */
export type CategoryInput = InputOf<typeof UpdateCategoryDto>;

export type CreateCategoryInput = InputOf<typeof CreateCategoryDto>;

export async function createCategory(ctx: RequestContext, input: CreateCategoryInput): Promise<CategoryView> {
  return categoryWrite(ctx, async (tx) => {
    await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const tree = await loadTree(tx, input.storeId);
    const parentId = input.parentId ?? null;
    if (parentId !== null && !tree.byId.has(parentId)) throw invalidParentError();
    if (input.slug !== undefined && tree.bySlug(input.slug)) throw slugTakenError();
    const now = new Date();
    const row = tenantRepository(tx, Category).create({
      id: uuidv7(),
      storeId: input.storeId,
      parentId,
      name: input.name,
      slug: input.slug ?? freeCategorySlug(tree, input.name),
      description: input.description ?? null,
      imageUrl: input.imageUrl ?? null,
      position: input.position ?? tree.nextPosition(parentId),
      isActive: input.isActive ?? true,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(Category, row);
    const view = new CategoryTree([...tree.byId.values(), row]).view(row);
    await recordCategoryChange(tx, 'create', row.id, null, view);
    return view;
  });
}

/** Loads a category of the caller's tenant (404 otherwise) and checks its store is the caller's. */
async function lockedCategory(tx: RequestContext, id: string, forWrite: boolean): Promise<{ tree: CategoryTree; current: Category }> {
  const found = await tenantRepository(tx, Category, categoryNotFound).getOneBy({ id });
  await requireStore(tx, found.storeId, { forWrite, lock: forWrite });
  const tree = await loadTree(tx, found.storeId);
  const current = tree.byId.get(id);
  if (!current) throw categoryNotFound();
  return { tree, current };
}

/**
 * PUT semantics: name is required; description, imageUrl and parentId become null and isActive true
 * when omitted; an omitted slug is kept, and an omitted position is kept while the parent stays
 * (after the last sibling when the category moves).
 */
export async function updateCategory(ctx: RequestContext, id: string, input: CategoryInput): Promise<CategoryView> {
  return categoryWrite(ctx, async (tx) => {
    const { tree, current } = await lockedCategory(tx, id, true);
    const parentId = input.parentId ?? null;
    if (parentId !== null) {
      if (!tree.byId.has(parentId)) throw invalidParentError();
      if (tree.isSelfOrDescendant(id, parentId)) throw cycleError();
    }
    const slug = input.slug ?? current.slug;
    const holder = tree.bySlug(slug);
    if (holder && holder.id !== id) throw slugTakenError();
    const next: Editable = {
      name: input.name,
      slug,
      parentId,
      description: input.description ?? null,
      imageUrl: input.imageUrl ?? null,
      position: input.position ?? (parentId === current.parentId ? current.position : tree.nextPosition(parentId, id)),
      isActive: input.isActive ?? true,
    };
    const { before, after } = diffCategory(current, next);
    if (Object.keys(after).length === 0) return tree.view(current);
    const updated: Category = { ...current, ...next, updatedAt: new Date() };
    await tenantRepository(tx, Category).update({ id }, { ...next, updatedAt: updated.updatedAt });
    await recordCategoryChange(tx, 'update', id, before, after);
    return new CategoryTree([...[...tree.byId.values()].filter((row) => row.id !== id), updated]).view(updated);
  });
}

export async function deleteCategory(ctx: RequestContext, id: string): Promise<void> {
  await categoryWrite(ctx, async (tx) => {
    const { tree, current } = await lockedCategory(tx, id, true);
    const children = tree.childrenOf(id).length;
    if (children > 0) {
      throw categoriesError('category_has_children', `The category has ${children} child categories; move or delete them first.`);
    }
    const before = tree.view(current);
    await tenantRepository(tx, Category).delete({ id });
    await recordCategoryChange(tx, 'delete', id, before, null);
  });
}

export type ReorderInput = InputOf<typeof ReorderCategoriesDto>;

export async function reorderCategories(ctx: RequestContext, input: ReorderInput): Promise<void> {
  await categoryWrite(ctx, async (tx) => {
    await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const tree = await loadTree(tx, input.storeId);
    if (input.parentId !== null && !tree.byId.has(input.parentId)) throw invalidParentError();
    const children = tree.childrenOf(input.parentId);
    const expected = new Set(children.map((row) => row.id));
    const given = new Set(input.ids);
    const missing = children.filter((row) => !given.has(row.id)).map((row) => row.id);
    const unexpected = input.ids.filter((cid) => !expected.has(cid));
    if (missing.length || unexpected.length) {
      const errors = [
        ...unexpected.map((cid) => ({ path: `body.ids[${input.ids.indexOf(cid)}]`, message: `${cid} is not a child of the parent` })),
        ...missing.slice(0, 100).map((cid) => ({ path: 'body.ids', message: `child ${cid} is missing` })),
      ];
      throw categoriesError('reorder_mismatch', 'ids must list exactly the children of the parent, each once.', errors);
    }
    const repo = tenantRepository(tx, Category);
    const now = new Date();
    for (const [position, cid] of input.ids.entries()) {
      const row = tree.byId.get(cid)!;
      if (row.position === position) continue;
      await repo.update({ id: cid }, { position, updatedAt: now });
      await recordCategoryChange(tx, 'reorder', cid, { position: row.position }, { position });
    }
  });
}
