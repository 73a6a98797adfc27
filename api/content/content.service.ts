/**
 * Content pages and blog posts of a store (one table, content_entries, with a kind), merchant side:
 * list, create, update, delete. The storefront reads are in content-public.service.ts.
 *
 * Any member of the tenant and API keys of the store with the cms scope edit content; another tenant's
 * store or entry answers 404 (as does, for an API key, an entry of another store, and a page id used as
 * a post or the reverse). Slugs are unique per store and kind, case-insensitively (index
 * content_entries_store_kind_slug): a taken slug is 409 slug_taken. Bodies are sanitised before they
 * are stored. Every change writes, in its transaction, one audit entry (`content_page.create|update|delete`,
 * `content_post.…`) and one outbox row (queue index, aggregate content_page or content_post, topic
 * `<aggregate>.created|updated|deleted`); a PATCH that changes nothing writes neither.
 */
import { ContentEntry } from '../../storage/entities';
import type { ContentKind, ContentStatus } from '../../storage/entities/content-entry.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import type { RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { ConflictError, NotFoundError } from '../../lib/errors';
import { UUID_PATTERN } from '../http/schema-types';
import { firstFreeSlug, inSlugTransaction, slugify } from '../../domain/slugs';
import { requireStore } from '../../domain/store-access';
import { sanitiseContentHtml } from './content-html';
import { CONTENT_SLUG_MAX, type CreatePageDto, type CreatePostDto, type UpdatePostDto } from './content.schemas';
import type { InputOf } from '../http/typed-schema';
import { contentError } from './content.errors';

/** What every entry, page or post, is written with. */
interface EntryContent {
  title: string;
  slug: string;
  bodyHtml: string;
  seoTitle: string | null;
  seoDescription: string | null;
  status: ContentStatus;
}

export interface ContentEntryView extends EntryContent {
  id: string;
  storeId: string;
  publishedAt: string | null;
  live: boolean;
  scheduled: boolean;
  createdAt: string;
  updatedAt: string;
  excerpt?: string | null;
  author?: string | null;
  tags?: string[];
}

export function contentView(entry: ContentEntry, now = new Date()): ContentEntryView {
  const published = entry.status === 'PUBLISHED' && entry.publishedAt !== null;
  const view: ContentEntryView = {
    id: entry.id,
    storeId: entry.storeId,
    title: entry.title,
    slug: entry.slug,
    bodyHtml: entry.bodyHtml,
    seoTitle: entry.seoTitle,
    seoDescription: entry.seoDescription,
    status: entry.status,
    publishedAt: entry.publishedAt ? entry.publishedAt.toISOString() : null,
    live: published && entry.publishedAt!.getTime() <= now.getTime(),
    scheduled: published && entry.publishedAt!.getTime() > now.getTime(),
    createdAt: entry.createdAt.toISOString(),
    updatedAt: entry.updatedAt.toISOString(),
  };
  if (entry.kind === 'POST') Object.assign(view, { excerpt: entry.excerpt, author: entry.author, tags: entry.tags });
  return view;
}

/** The fields a merchant sets. */
export interface ContentFields extends EntryContent {
  publishedAt: Date | null;
  excerpt: string | null;
  author: string | null;
  tags: string[];
}

const EDITABLE: ReadonlyArray<keyof ContentFields> = [
  'title',
  'slug',
  'bodyHtml',
  'seoTitle',
  'seoDescription',
  'status',
  'publishedAt',
  'excerpt',
  'author',
  'tags',
];
const POST_ONLY: ReadonlyArray<keyof ContentFields> = ['excerpt', 'author', 'tags'];
/** The fields a kind has: pages have no excerpt, author or tags. */
const fieldsOf = (kind: ContentKind): ReadonlyArray<keyof ContentFields> =>
  kind === 'POST' ? EDITABLE : EDITABLE.filter((f) => !POST_ONLY.includes(f));
const pick = (kind: ContentKind, fields: ContentFields): Record<string, unknown> =>
  Object.fromEntries(fieldsOf(kind).map((f) => [f, fields[f]]));

const aggregate = (kind: ContentKind): 'content_page' | 'content_post' => (kind === 'PAGE' ? 'content_page' : 'content_post');
const noun = (kind: ContentKind): string => (kind === 'PAGE' ? 'page' : 'post');

export const contentNotFound = (kind: ContentKind): NotFoundError => contentError('content_not_found', `The ${noun(kind)} does not exist.`);
const slugTaken = (kind: ContentKind) => (): ConflictError =>
  contentError('slug_taken', `Another ${noun(kind)} of the store has this slug.`, [
    { path: 'body.slug', message: 'slug is already taken in the store' },
  ]);

const event = (kind: ContentKind, verb: 'created' | 'updated' | 'deleted', id: string): OutboxEvent =>
  kind === 'PAGE'
    ? { queue: 'index', topic: `content_page.${verb}`, aggregateType: 'content_page', aggregateId: id }
    : { queue: 'index', topic: `content_post.${verb}`, aggregateType: 'content_post', aggregateId: id };

const contentWrite = <T>(ctx: RequestContext, kind: ContentKind, work: (tx: RequestContext) => Promise<T>): Promise<T> =>
  inSlugTransaction(ctx, 'content_entries_store_kind_slug', slugTaken(kind), work);

function slugQuery(ctx: RequestContext, kind: ContentKind, storeId: string) {
  return tenantRepository(ctx, ContentEntry)
    .createQueryBuilder('c')
    .andWhere('c.storeId = :storeId', { storeId })
    .andWhere('c.kind = :kind', { kind });
}

async function slugInUse(ctx: RequestContext, kind: ContentKind, storeId: string, slug: string, exceptId?: string): Promise<boolean> {
  const query = slugQuery(ctx, kind, storeId).andWhere('lower(c.slug) = lower(:slug)', { slug });
  if (exceptId) query.andWhere('c.id <> :exceptId', { exceptId });
  return query.getExists();
}

/** The first free slug of the store's pages (or posts) made from `title`: base, base-2, base-3, … */
async function freeSlug(ctx: RequestContext, kind: ContentKind, storeId: string, title: string): Promise<string> {
  const base = slugify(title, CONTENT_SLUG_MAX - 6, noun(kind));
  // `base` holds only [a-z0-9-], so it needs no escaping inside LIKE.
  const rows: Array<{ slug: string }> = await slugQuery(ctx, kind, storeId)
    .select('lower(c.slug)', 'slug')
    .andWhere('(lower(c.slug) = :base OR lower(c.slug) LIKE :pattern)', { base, pattern: `${base}-%` })
    .getRawMany();
  const taken = new Set(rows.map((row) => row.slug));
  return firstFreeSlug(base, (slug) => taken.has(slug));
}

/** A PUBLISHED entry always has a publication date: the time of the write when none is given. */
const withPublicationDate = (fields: ContentFields, now: Date): ContentFields =>
  fields.status === 'PUBLISHED' && fields.publishedAt === null ? { ...fields, publishedAt: now } : fields;

export interface ListContentQuery {
  storeId: string;
  status?: ContentStatus;
  cursor?: string;
  limit: number;
}

export async function listContent(
  ctx: RequestContext,
  kind: ContentKind,
  query: ListContentQuery,
): Promise<{ items: ContentEntryView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  if (query.cursor !== undefined && !UUID_PATTERN.test(query.cursor))
    throw contentError('invalid_cursor', 'The cursor is not valid.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);
  const qb = tenantRepository(ctx, ContentEntry)
    .createQueryBuilder('c')
    .andWhere('c.storeId = :storeId', { storeId: store.id })
    .andWhere('c.kind = :kind', { kind });
  if (query.status !== undefined) qb.andWhere('c.status = :status', { status: query.status });
  if (query.cursor !== undefined) qb.andWhere('c.id > :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('c.id', 'ASC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  const now = new Date();
  return { items: page.map((entry) => contentView(entry, now)), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

/** One input for both kinds: a page's body, with the fields only a post has (excerpt, author, tags) optional. */
export type CreateContentInput = InputOf<typeof CreatePageDto> &
  Partial<Pick<InputOf<typeof CreatePostDto>, 'excerpt' | 'author' | 'tags'>>;

export async function createContent(ctx: RequestContext, kind: ContentKind, input: CreateContentInput): Promise<ContentEntryView> {
  return contentWrite(ctx, kind, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    if (input.slug !== undefined && (await slugInUse(tx, kind, store.id, input.slug))) throw slugTaken(kind)();
    const now = new Date();
    const fields = withPublicationDate(
      {
        title: input.title,
        slug: input.slug ?? (await freeSlug(tx, kind, store.id, input.title)),
        bodyHtml: sanitiseContentHtml(input.bodyHtml),
        seoTitle: input.seoTitle ?? null,
        seoDescription: input.seoDescription ?? null,
        status: input.status,
        publishedAt: input.publishedAt ?? null,
        excerpt: input.excerpt ?? null,
        author: input.author ?? null,
        tags: input.tags ?? [],
      },
      now,
    );
    const entry = tenantRepository(tx, ContentEntry).create({
      id: uuidv7(),
      storeId: store.id,
      kind,
      ...fields,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(ContentEntry, entry);
    await recordAudit(tx, {
      action: `${aggregate(kind)}.create`,
      resourceType: aggregate(kind),
      resourceId: entry.id,
      after: { storeId: store.id, ...pick(kind, fields) },
    });
    await enqueueOutbox(tx, event(kind, 'created', entry.id));
    return contentView(entry, now);
  });
}

/** The entry `id` of kind `kind` of the caller's tenant, locked, whose store the caller may write; 404 otherwise. */
async function loadForWrite(tx: RequestContext, kind: ContentKind, id: string): Promise<ContentEntry> {
  const notFound = (): NotFoundError => contentNotFound(kind);
  const entry = await tenantRepository(tx, ContentEntry, notFound).findOne({ where: { id, kind }, lock: { mode: 'pessimistic_write' } });
  if (!entry) throw notFound();
  if (tx.actor.type === 'api_key' && tx.actor.storeId !== entry.storeId) throw notFound();
  await requireStore(tx, entry.storeId, { forWrite: true });
  return entry;
}

const same = (a: unknown, b: unknown): boolean => {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
};

/** A post's fields; a page's body is the same less excerpt, author and tags. */
export type UpdateContentInput = InputOf<typeof UpdatePostDto>;

export async function updateContent(
  ctx: RequestContext,
  kind: ContentKind,
  id: string,
  input: UpdateContentInput,
): Promise<ContentEntryView> {
  return contentWrite(ctx, kind, async (tx) => {
    const entry = await loadForWrite(tx, kind, id);
    if (input.slug !== undefined && input.slug !== entry.slug && (await slugInUse(tx, kind, entry.storeId, input.slug, entry.id)))
      throw slugTaken(kind)();
    const now = new Date();
    const merged: ContentFields = {
      title: input.title ?? entry.title,
      slug: input.slug ?? entry.slug,
      bodyHtml: input.bodyHtml === undefined ? entry.bodyHtml : sanitiseContentHtml(input.bodyHtml),
      seoTitle: input.seoTitle === undefined ? entry.seoTitle : input.seoTitle,
      seoDescription: input.seoDescription === undefined ? entry.seoDescription : input.seoDescription,
      status: input.status ?? entry.status,
      publishedAt: input.publishedAt === undefined ? entry.publishedAt : input.publishedAt,
      excerpt: input.excerpt === undefined ? entry.excerpt : input.excerpt,
      author: input.author === undefined ? entry.author : input.author,
      tags: input.tags ?? entry.tags,
    };
    const next = withPublicationDate(merged, now);
    const before: Partial<Record<keyof ContentFields, unknown>> = {};
    const after: Partial<Record<keyof ContentFields, unknown>> = {};
    for (const field of fieldsOf(kind)) {
      if (same(entry[field], next[field])) continue;
      before[field] = entry[field];
      after[field] = next[field];
    }
    if (Object.keys(after).length === 0) return contentView(entry, now);
    await tenantRepository(tx, ContentEntry).update({ id: entry.id }, { ...after, updatedAt: now } as Partial<ContentEntry>);
    await recordAudit(tx, { action: `${aggregate(kind)}.update`, resourceType: aggregate(kind), resourceId: entry.id, before, after });
    await enqueueOutbox(tx, event(kind, 'updated', entry.id));
    return contentView({ ...entry, ...next, updatedAt: now }, now);
  });
}

export async function deleteContent(ctx: RequestContext, kind: ContentKind, id: string): Promise<void> {
  await contentWrite(ctx, kind, async (tx) => {
    const entry = await loadForWrite(tx, kind, id);
    await tenantRepository(tx, ContentEntry).delete({ id: entry.id });
    const before = { storeId: entry.storeId, ...pick(kind, entry) };
    await recordAudit(tx, { action: `${aggregate(kind)}.delete`, resourceType: aggregate(kind), resourceId: entry.id, before });
    await enqueueOutbox(tx, event(kind, 'deleted', entry.id));
  });
}
