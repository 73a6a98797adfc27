/**
 * Discussions, public side (docs/community.md): the published list of a category in three sorts, one
 * discussion by slug, the view counter, and starting a discussion. Public reads see PUBLISHED
 * discussions only: a hidden or deleted one answers 404 exactly like one that never existed.
 */
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { clientKey, hashedLimitKey } from '../../storage/rate-limit';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { firstFreeSlug, slugify } from '../../domain/slugs';
import type { InputOf } from '../http/typed-schema';
import { sanitiseBody } from './community-body';
import { hitUserLimit, hitViewLimit } from './community-limits';
import { communityError } from './community.errors';
import { DISCUSSION_COLUMNS, DISCUSSION_FROM, discussionSummary, type DiscussionRow } from './community.sql';
import type { CreateDiscussionDto, DiscussionSort } from './community.schemas';

export const DISCUSSION_SLUG_MAX = 120;
/** A viewer is counted again once this much time has passed since they were last counted. */
export const VIEW_PERIOD_HOURS = 24;

export const discussionNotFound = () => communityError('discussion_not_found', 'The discussion does not exist.');
export const emptyBody = () =>
  communityError('empty_body', 'Nothing is left of the body once it is sanitised.', [
    { path: 'body.body', message: 'body has no text after sanitising' },
  ]);

/** The caller's vote (1, -1, 0) on each target, or null for everyone when the caller is anonymous. */
export async function myVotes(ctx: RequestContext, table: 'discussion' | 'comment', ids: string[]): Promise<(id: string) => number | null> {
  const userId = ctx.actor.type === 'user' ? ctx.actor.id : undefined;
  if (!userId) return () => null;
  if (ids.length === 0) return () => 0;
  const rows: Array<{ id: string; value: number }> = await ctx.manager.query(
    table === 'discussion'
      ? 'SELECT discussion_id AS id, value FROM community_discussion_votes WHERE user_id = $1 AND discussion_id = ANY($2::uuid[])'
      : 'SELECT comment_id AS id, value FROM community_comment_votes WHERE user_id = $1 AND comment_id = ANY($2::uuid[])',
    [userId, ids],
  );
  const byId = new Map(rows.map((row) => [row.id, row.value]));
  return (id) => byId.get(id) ?? 0;
}

const ORDER: Record<DiscussionSort, string> = {
  newest: 'd.pinned DESC, d.created_at DESC, d.id DESC',
  active: 'd.pinned DESC, d.last_activity_at DESC, d.id DESC',
  top: 'd.pinned DESC, (d.upvotes - d.downvotes) DESC, d.created_at DESC, d.id DESC',
};

export async function listDiscussions(
  ctx: RequestContext,
  query: { categorySlug?: string; sort: DiscussionSort; limit: number },
): Promise<{ items: ReturnType<typeof discussionSummary>[] }> {
  const params: unknown[] = [query.limit];
  let where = "d.status = 'PUBLISHED'";
  if (query.categorySlug !== undefined) {
    const found: unknown[] = await ctx.manager.query('SELECT 1 FROM community_categories WHERE lower(slug) = lower($1)', [
      query.categorySlug,
    ]);
    if (found.length === 0) throw communityError('community_category_not_found', 'No community category has this slug.');
    params.push(query.categorySlug);
    where += ' AND lower(cat.slug) = lower($2)';
  }
  const rows: DiscussionRow[] = await ctx.manager.query(
    `SELECT ${DISCUSSION_COLUMNS} FROM ${DISCUSSION_FROM} WHERE ${where} ORDER BY ${ORDER[query.sort]} LIMIT $1`,
    params,
  );
  return { items: rows.map(discussionSummary) };
}

/** A published discussion by slug (or id, for the operations addressed by id), else 404. */
export async function publishedDiscussion(ctx: RequestContext, by: { slug: string } | { id: string }): Promise<DiscussionRow> {
  const [row] = (await ctx.manager.query(
    `SELECT ${DISCUSSION_COLUMNS} FROM ${DISCUSSION_FROM} WHERE ${'slug' in by ? 'd.slug = lower($1)' : 'd.id = $1'} AND d.status = 'PUBLISHED'`,
    ['slug' in by ? by.slug : by.id],
  )) as DiscussionRow[];
  if (!row) throw discussionNotFound();
  return row;
}

export async function getDiscussion(ctx: RequestContext, slug: string) {
  const row = await publishedDiscussion(ctx, { slug });
  const vote = await myVotes(ctx, 'discussion', [row.id]);
  return { ...discussionSummary(row), bodyHtml: row.body_html, myVote: vote(row.id) };
}

/**
 * Counts a view of a published discussion: once per viewer per VIEW_PERIOD_HOURS. The viewer is the
 * signed-in user, else the client's address and user agent (hashed, never stored readable).
 */
export async function recordView(ctx: RequestContext, slug: string): Promise<void> {
  await hitViewLimit(ctx);
  const viewer =
    ctx.actor.type === 'user' && ctx.actor.id
      ? `user:${ctx.actor.id}`
      : `client:${hashedLimitKey([clientKey(ctx.client?.ip), ctx.client?.userAgent ?? ''])}`;
  await inTransaction(ctx, async (tx) => {
    const [row] = (await tx.manager.query("SELECT id FROM community_discussions WHERE slug = lower($1) AND status = 'PUBLISHED'", [
      slug,
    ])) as Array<{ id: string }>;
    if (!row) throw discussionNotFound();
    // A row comes back only when the viewer is new or was last counted a full period ago.
    const counted: unknown[] = await tx.manager.query(
      `INSERT INTO community_discussion_viewers (discussion_id, viewer_key, viewed_at) VALUES ($1, $2, now())
       ON CONFLICT (discussion_id, viewer_key) DO UPDATE SET viewed_at = now()
         WHERE community_discussion_viewers.viewed_at <= now() - make_interval(hours => $3)
       RETURNING 1`,
      [row.id, viewer, VIEW_PERIOD_HOURS],
    );
    if (counted.length === 0) return;
    // A view is a read: counted, not audited (the audit log records what people change).
    await tx.manager.query('UPDATE community_discussions SET view_count = view_count + 1 WHERE id = $1', [row.id]);
  });
}

async function freeDiscussionSlug(ctx: RequestContext, title: string): Promise<string> {
  const base = slugify(title, DISCUSSION_SLUG_MAX - 8, 'discussion');
  // `base` holds only [a-z0-9-], so it needs no escaping inside LIKE.
  const rows: Array<{ slug: string }> = await ctx.manager.query('SELECT slug FROM community_discussions WHERE slug = $1 OR slug LIKE $2', [
    base,
    `${base}-%`,
  ]);
  const taken = new Set(rows.map((row) => row.slug));
  return firstFreeSlug(base, (slug) => taken.has(slug));
}

export async function createDiscussion(ctx: RequestContext, input: InputOf<typeof CreateDiscussionDto>) {
  await hitUserLimit(ctx, 'discussionsPerAuthor');
  const body = sanitiseBody(input.body, input.format);
  if (body.text === '') throw emptyBody();
  // Two discussions with the same title at once may pick the same slug; the loser tries the next one.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await inTransaction(ctx, async (tx) => {
        const category: unknown[] = await tx.manager.query('SELECT 1 FROM community_categories WHERE id = $1 FOR SHARE', [
          input.categoryId,
        ]);
        if (category.length === 0)
          throw communityError('community_category_not_found', 'The community category does not exist.', [
            { path: 'body.categoryId', message: 'categoryId is not a community category' },
          ]);
        const id = uuidv7();
        const slug = await freeDiscussionSlug(tx, input.title);
        await tx.manager.query(
          `INSERT INTO community_discussions (id, category_id, slug, title, body_format, body_html, body_text, author_user_id, author_tenant_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [id, input.categoryId, slug, input.title, input.format, body.html, body.text, tx.actor.id, tx.tenantId ?? null],
        );
        await recordAudit(tx, {
          action: 'community_discussion.create',
          resourceType: 'community_discussion',
          resourceId: id,
          after: { categoryId: input.categoryId, slug, title: input.title, format: input.format, bodyHtml: body.html },
        });
        const row = await publishedDiscussion(tx, { id });
        return { ...discussionSummary(row), bodyHtml: row.body_html, myVote: 0 };
      });
    } catch (error) {
      if (attempt < 5 && isUniqueViolation(error, 'community_discussions_slug')) continue;
      throw error;
    }
  }
}
