/**
 * The category tree of one store, in memory: a store has at most a few thousand categories, so the
 * services load them all and compute depth, path, child counts, depth-first order and cycles here.
 *
 * Order among siblings: position, then name, then id (position is a sort key; equal positions are
 * allowed and broken by name, so no write ever has to renumber siblings it did not touch).
 */
import { Category } from '../../storage/entities';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { NotFoundError } from '../../lib/errors';
import { categoriesError } from './categories.errors';

export interface CategoryView {
  id: string;
  storeId: string;
  parentId: string | null;
  name: string;
  slug: string;
  description: string | null;
  imageUrl: string | null;
  position: number;
  isActive: boolean;
  depth: number;
  path: string[];
  childCount: number;
  createdAt: string;
  updatedAt: string;
}

export const categoryNotFound = (): NotFoundError => categoriesError('category_not_found', 'The category does not exist.');

export function compareSiblings(a: Pick<Category, 'position' | 'name' | 'id'>, b: Pick<Category, 'position' | 'name' | 'id'>): number {
  return a.position - b.position || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export class CategoryTree {
  readonly byId = new Map<string, Category>();
  readonly children = new Map<string | null, Category[]>();

  constructor(rows: readonly Category[]) {
    for (const row of rows) this.byId.set(row.id, row);
    for (const row of rows) {
      const parent = row.parentId !== null && this.byId.has(row.parentId) ? row.parentId : null;
      const list = this.children.get(parent) ?? [];
      list.push(row);
      this.children.set(parent, list);
    }
    for (const list of this.children.values()) list.sort(compareSiblings);
  }

  childrenOf(parentId: string | null): Category[] {
    return this.children.get(parentId) ?? [];
  }

  /** The ancestors of `id`, root first (not including itself). */
  ancestors(id: string): Category[] {
    const out: Category[] = [];
    const seen = new Set<string>([id]);
    let current = this.byId.get(id)?.parentId ?? null;
    while (current !== null && !seen.has(current)) {
      const row = this.byId.get(current);
      if (!row) break;
      seen.add(current);
      out.unshift(row);
      current = row.parentId;
    }
    return out;
  }

  /** True when `candidate` is `id` itself or lies below it. */
  isSelfOrDescendant(id: string, candidate: string): boolean {
    return candidate === id || this.ancestors(candidate).some((row) => row.id === id);
  }

  view(row: Category): CategoryView {
    const ancestors = this.ancestors(row.id);
    return {
      id: row.id,
      storeId: row.storeId,
      parentId: row.parentId,
      name: row.name,
      slug: row.slug,
      description: row.description,
      imageUrl: row.imageUrl,
      position: row.position,
      isActive: row.isActive,
      depth: ancestors.length,
      path: [...ancestors.map((a) => a.slug), row.slug],
      childCount: this.childrenOf(row.id).length,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** Every category, depth-first: each parent, then its children in sibling order. */
  depthFirst(): Category[] {
    const out: Category[] = [];
    const visit = (parentId: string | null): void => {
      for (const row of this.childrenOf(parentId)) {
        out.push(row);
        visit(row.id);
      }
    };
    visit(null);
    return out;
  }

  /** The next free position after the last child of `parentId`. */
  nextPosition(parentId: string | null, excludeId?: string): number {
    const siblings = this.childrenOf(parentId).filter((row) => row.id !== excludeId);
    return siblings.reduce((max, row) => Math.max(max, row.position + 1), 0);
  }

  bySlug(slug: string): Category | undefined {
    const wanted = slug.toLowerCase();
    for (const row of this.byId.values()) if (row.slug.toLowerCase() === wanted) return row;
    return undefined;
  }
}

export async function loadTree(ctx: RequestContext, storeId: string): Promise<CategoryTree> {
  const rows = await tenantRepository(ctx, Category).find({ where: { storeId } });
  return new CategoryTree(rows);
}
