/**
 * Storefront reads of content: live pages and posts of a store that exists and is not archived
 * (404 store_not_found otherwise). Live: status PUBLISHED and publishedAt at or before now, so a
 * scheduled entry appears by itself when its date comes. Lists are newest publication first
 * (publishedAt, then id, descending) with an opaque cursor; by slug is case-insensitive and answers
 * 404 content_not_found for a draft, a scheduled entry, or no entry.
 */
import { ContentEntry } from '../../storage/entities';
import type { ContentKind } from '../../storage/entities/content-entry.entity';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { BadRequestError } from '../../lib/errors';
import { decodeCursor, encodeCursor, isDate, isUuid } from '../http/cursor';
import { storeNotFound } from '../../domain/store-access';
import { contentNotFound } from './content.service';
import { contentError } from './content.errors';

export interface PublicContent {
  id: string;
  title: string;
  slug: string;
  seoTitle: string | null;
  seoDescription: string | null;
  publishedAt: string;
  updatedAt: string;
  bodyHtml?: string;
  excerpt?: string | null;
  author?: string | null;
  tags?: string[];
}

function publicView(entry: ContentEntry, withBody: boolean): PublicContent {
  const view: PublicContent = {
    id: entry.id,
    title: entry.title,
    slug: entry.slug,
    seoTitle: entry.seoTitle,
    seoDescription: entry.seoDescription,
    publishedAt: entry.publishedAt!.toISOString(),
    updatedAt: entry.updatedAt.toISOString(),
  };
  if (entry.kind === 'POST') Object.assign(view, { excerpt: entry.excerpt, author: entry.author, tags: entry.tags });
  if (withBody) view.bodyHtml = entry.bodyHtml;
  return view;
}

/** The store's context for tenant-scoped reads: the store must exist and not be archived. */
async function publicStoreContext(ctx: RequestContext, storeId: string): Promise<{ storeCtx: RequestContext; storeId: string }> {
  const rows: Array<{ id: string; tenant_id: string }> = await ctx.manager.query(
    `SELECT id, tenant_id FROM stores WHERE id = $1 AND status <> 'archived'`,
    [storeId],
  );
  if (!rows[0]) throw storeNotFound();
  return { storeCtx: { ...ctx, tenantId: rows[0].tenant_id }, storeId: rows[0].id };
}

function liveQuery(ctx: RequestContext, kind: ContentKind, storeId: string, now: Date) {
  return tenantRepository(ctx, ContentEntry)
    .createQueryBuilder('c')
    .andWhere('c.storeId = :storeId', { storeId })
    .andWhere('c.kind = :kind', { kind })
    .andWhere("c.status = 'PUBLISHED'")
    .andWhere('c.publishedAt <= :now', { now });
}

/** Posts page newest first by (publishedAt, id); the cursor is the last row's pair. */
const entryCursor = (entry: ContentEntry): string => encodeCursor([entry.publishedAt!.toISOString(), entry.id]);
const invalidCursor = (): BadRequestError =>
  contentError('invalid_cursor', 'The cursor is not valid.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);

export interface PublicListQuery {
  slug?: string;
  cursor?: string;
  limit: number;
}

export async function listPublicContent(
  ctx: RequestContext,
  kind: ContentKind,
  storeId: string,
  query: PublicListQuery,
): Promise<{ items: PublicContent[]; nextCursor: string | null }> {
  const store = await publicStoreContext(ctx, storeId);
  const qb = liveQuery(store.storeCtx, kind, store.storeId, new Date());
  if (query.slug !== undefined) qb.andWhere('lower(c.slug) = lower(:slug)', { slug: query.slug });
  if (query.cursor !== undefined) {
    const [afterAt, afterId] = decodeCursor(query.cursor, {
      accepts: ([at, id]) => isDate(at) && isUuid(id),
      invalid: invalidCursor,
    });
    qb.andWhere('(c.publishedAt < :afterAt OR (c.publishedAt = :afterAt AND c.id < :afterId))', { afterAt: new Date(afterAt), afterId });
  }
  const rows = await qb
    .orderBy('c.publishedAt', 'DESC')
    .addOrderBy('c.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return {
    items: page.map((entry) => publicView(entry, kind === 'PAGE')),
    nextCursor: rows.length > query.limit ? entryCursor(page[page.length - 1]!) : null,
  };
}

export async function getPublicContent(ctx: RequestContext, kind: ContentKind, storeId: string, slug: string): Promise<PublicContent> {
  const store = await publicStoreContext(ctx, storeId);
  const entry = await liveQuery(store.storeCtx, kind, store.storeId, new Date())
    .andWhere('lower(c.slug) = lower(:slug)', { slug })
    .getOne();
  if (!entry) throw contentNotFound(kind);
  return publicView(entry, true);
}
