/**
 * Community categories (docs/community.md, "Categories"): read by everyone, managed by platform
 * admins. Slugs are unique case-insensitively (index community_categories_slug); a category that
 * still holds discussions cannot be deleted. Every change is audited (tenant null: the forum is the
 * platform's).
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { firstFreeSlug, inSlugTransaction, slugify, CATALOG_SLUG_MAX } from '../../domain/slugs';
import type { InputOf } from '../http/typed-schema';
import type { IdsBodyDto } from '../collections/collections.schemas';
import type { CreateCommunityCategoryDto, UpdateCommunityCategoryDto } from './community.schemas';
import { communityError } from './community.errors';

export const CATEGORIES_MAX = 1000;

interface CategoryRow {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  position: number;
  discussion_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface CategoryView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  position: number;
  discussionCount: number;
  createdAt: string;
  updatedAt: string;
}

const view = (row: CategoryRow): CategoryView => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  description: row.description,
  position: row.position,
  discussionCount: row.discussion_count,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const SELECT = `SELECT cat.*, (SELECT count(*)::int FROM community_discussions d WHERE d.category_id = cat.id AND d.status = 'PUBLISHED') AS discussion_count
  FROM community_categories cat`;

export const categoryNotFound = () => communityError('community_category_not_found', 'The community category does not exist.');
const slugTaken = () =>
  communityError('community_category_slug_taken', 'Another community category has this slug.', [
    { path: 'body.slug', message: 'slug is already taken' },
  ]);

const categoryWrite = <T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> =>
  inSlugTransaction(ctx, 'community_categories_slug', slugTaken, work);

export async function listCategories(ctx: RequestContext): Promise<{ items: CategoryView[] }> {
  const rows: CategoryRow[] = await ctx.manager.query(`${SELECT} ORDER BY cat.position, lower(cat.name), cat.id`);
  return { items: rows.map(view) };
}

async function categoryById(ctx: RequestContext, id: string, lock = false): Promise<CategoryRow> {
  const [row] = (await ctx.manager.query(`${SELECT} WHERE cat.id = $1${lock ? ' FOR UPDATE OF cat' : ''}`, [id])) as CategoryRow[];
  if (!row) throw categoryNotFound();
  return row;
}

async function slugInUse(ctx: RequestContext, slug: string, exceptId?: string): Promise<boolean> {
  const rows: unknown[] = await ctx.manager.query(
    'SELECT 1 FROM community_categories WHERE lower(slug) = lower($1) AND ($2::uuid IS NULL OR id <> $2)',
    [slug, exceptId ?? null],
  );
  return rows.length > 0;
}

async function freeSlug(ctx: RequestContext, name: string): Promise<string> {
  const base = slugify(name, CATALOG_SLUG_MAX - 6, 'category');
  // `base` holds only [a-z0-9-], so it needs no escaping inside LIKE.
  const rows: Array<{ slug: string }> = await ctx.manager.query(
    'SELECT lower(slug) AS slug FROM community_categories WHERE lower(slug) = $1 OR lower(slug) LIKE $2',
    [base, `${base}-%`],
  );
  const taken = new Set(rows.map((row) => row.slug));
  return firstFreeSlug(base, (slug) => taken.has(slug));
}

/** Serialises the writes that depend on the whole set of categories (count, positions, reorder). */
const lockCategories = (tx: RequestContext) => tx.manager.query("SELECT pg_advisory_xact_lock(hashtext('community_categories'))");

export async function createCategory(ctx: RequestContext, input: InputOf<typeof CreateCommunityCategoryDto>): Promise<CategoryView> {
  return categoryWrite(ctx, async (tx) => {
    await lockCategories(tx);
    const [{ count, next }] = (await tx.manager.query(
      'SELECT count(*)::int AS count, coalesce(max(position) + 1, 0)::int AS next FROM community_categories',
    )) as Array<{ count: number; next: number }>;
    if (count >= CATEGORIES_MAX)
      throw communityError('community_category_limit', `The community already has ${CATEGORIES_MAX} categories, the most it may have.`);
    if (input.slug !== undefined && (await slugInUse(tx, input.slug))) throw slugTaken();
    const id = uuidv7();
    const slug = input.slug ?? (await freeSlug(tx, input.name));
    await tx.manager.query('INSERT INTO community_categories (id, name, slug, description, position) VALUES ($1, $2, $3, $4, $5)', [
      id,
      input.name,
      slug,
      input.description ?? null,
      next,
    ]);
    const created = await categoryById(tx, id);
    await recordAudit(tx, {
      action: 'community_category.create',
      resourceType: 'community_category',
      resourceId: id,
      tenantId: null,
      after: { name: created.name, slug: created.slug, description: created.description, position: created.position },
    });
    return view(created);
  });
}

export async function updateCategory(
  ctx: RequestContext,
  id: string,
  input: InputOf<typeof UpdateCommunityCategoryDto>,
): Promise<CategoryView> {
  return categoryWrite(ctx, async (tx) => {
    const row = await categoryById(tx, id, true);
    if (input.slug !== undefined && (await slugInUse(tx, input.slug, id))) throw slugTaken();
    const before = { name: row.name, slug: row.slug, description: row.description };
    const after = {
      name: input.name ?? row.name,
      slug: input.slug ?? row.slug,
      description: input.description === undefined ? row.description : input.description,
    };
    const changed = (Object.keys(after) as Array<keyof typeof after>).filter((key) => after[key] !== before[key]);
    if (changed.length === 0) return view(row);
    await tx.manager.query('UPDATE community_categories SET name = $2, slug = $3, description = $4, updated_at = now() WHERE id = $1', [
      id,
      after.name,
      after.slug,
      after.description,
    ]);
    await recordAudit(tx, {
      action: 'community_category.update',
      resourceType: 'community_category',
      resourceId: id,
      tenantId: null,
      before: Object.fromEntries(changed.map((key) => [key, before[key]])),
      after: Object.fromEntries(changed.map((key) => [key, after[key]])),
    });
    return view(await categoryById(tx, id));
  });
}

export async function deleteCategory(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const row = await categoryById(tx, id, true);
    const [{ n }] = (await tx.manager.query('SELECT count(*)::int AS n FROM community_discussions WHERE category_id = $1', [id])) as Array<{
      n: number;
    }>;
    if (n > 0)
      throw communityError(
        'community_category_not_empty',
        `The category holds ${n} discussion(s) (in any status); purge them before deleting it.`,
      );
    await tx.manager.query('DELETE FROM community_categories WHERE id = $1', [id]);
    await recordAudit(tx, {
      action: 'community_category.delete',
      resourceType: 'community_category',
      resourceId: id,
      tenantId: null,
      before: { name: row.name, slug: row.slug, description: row.description, position: row.position },
    });
  });
}

/** Sets the display order: `ids` must be exactly every category, each once (400 community_reorder_mismatch); positions 0, 1, 2, … */
export async function reorderCategories(ctx: RequestContext, input: InputOf<typeof IdsBodyDto>): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await lockCategories(tx);
    const rows: Array<{ id: string; position: number }> = await tx.manager.query(
      'SELECT id, position FROM community_categories ORDER BY id FOR UPDATE',
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const given = new Set(input.ids.map((cid) => cid.toLowerCase()));
    const unexpected = input.ids.map((cid, index) => ({ cid, index })).filter(({ cid }) => !byId.has(cid.toLowerCase()));
    const missing = rows.filter((row) => !given.has(row.id));
    if (unexpected.length || missing.length)
      throw communityError('community_reorder_mismatch', 'ids must list exactly the community categories, each once.', [
        ...unexpected.map(({ cid, index }) => ({ path: `body.ids[${index}]`, message: `${cid} is not a community category` })),
        ...missing.slice(0, 100).map((row) => ({ path: 'body.ids', message: `category ${row.id} is missing` })),
      ]);
    for (const [position, cid] of input.ids.entries()) {
      const row = byId.get(cid.toLowerCase())!;
      if (row.position === position) continue;
      await tx.manager.query('UPDATE community_categories SET position = $2, updated_at = now() WHERE id = $1', [row.id, position]);
      await recordAudit(tx, {
        action: 'community_category.reorder',
        resourceType: 'community_category',
        resourceId: row.id,
        tenantId: null,
        before: { position: row.position },
        after: { position },
      });
    }
  });
}
