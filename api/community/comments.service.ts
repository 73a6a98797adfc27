/**
 * Comments, public side (docs/community.md, "Comments"): the published comments of a published
 * discussion, threaded one level deep, and commenting. A hidden comment leaves every public read,
 * and so do the replies under a hidden top-level comment.
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import { sanitiseBody } from './community-body';
import { hitUserLimit } from './community-limits';
import { communityError } from './community.errors';
import { COMMENT_COLUMNS, COMMENT_FROM, commentView, type CommentRow } from './community.sql';
import type { CreateCommentDto } from './community.schemas';
import { discussionNotFound, emptyBody, myVotes, publishedDiscussion } from './discussions.service';

/** The most comments (of any status) one discussion holds, so every comment list is bounded. */
export const COMMENTS_PER_DISCUSSION_MAX = 1000;

export async function listDiscussionComments(ctx: RequestContext, slug: string) {
  const discussion = await publishedDiscussion(ctx, { slug });
  const rows: CommentRow[] = await ctx.manager.query(
    `SELECT ${COMMENT_COLUMNS} FROM ${COMMENT_FROM} WHERE c.discussion_id = $1 AND c.status = 'PUBLISHED' ORDER BY c.created_at, c.id`,
    [discussion.id],
  );
  const vote = await myVotes(
    ctx,
    'comment',
    rows.map((row) => row.id),
  );
  const topLevel = rows.filter((row) => row.parent_id === null);
  const published = new Set(topLevel.map((row) => row.id));
  const replies = new Map<string, CommentRow[]>();
  for (const row of rows) {
    // A reply whose parent is hidden is left out with it.
    if (row.parent_id === null || !published.has(row.parent_id)) continue;
    replies.set(row.parent_id, [...(replies.get(row.parent_id) ?? []), row]);
  }
  return {
    items: topLevel.map((row) => ({
      ...commentView(row, vote(row.id)),
      replies: (replies.get(row.id) ?? []).map((reply) => commentView(reply, vote(reply.id))),
    })),
  };
}

export async function createComment(ctx: RequestContext, discussionId: string, input: InputOf<typeof CreateCommentDto>) {
  await hitUserLimit(ctx, 'commentsPerAuthor');
  const body = sanitiseBody(input.body, input.format);
  if (body.text === '') throw emptyBody();
  return inTransaction(ctx, async (tx) => {
    // The lock serialises the comments of one discussion (the count bound) against moderation (lock, hide).
    const [discussion] = (await tx.manager.query('SELECT id, status, locked FROM community_discussions WHERE id = $1 FOR UPDATE', [
      discussionId,
    ])) as Array<{ id: string; status: string; locked: boolean }>;
    if (!discussion || discussion.status !== 'PUBLISHED') throw discussionNotFound();
    if (discussion.locked) throw communityError('discussion_locked', 'The discussion is locked: it takes no new comments.');
    const [{ n }] = (await tx.manager.query('SELECT count(*)::int AS n FROM community_comments WHERE discussion_id = $1', [
      discussionId,
    ])) as Array<{ n: number }>;
    if (n >= COMMENTS_PER_DISCUSSION_MAX)
      throw communityError('comment_limit', `The discussion already has ${COMMENTS_PER_DISCUSSION_MAX} comments, the most it may have.`);
    if (input.parentId !== undefined) {
      const parent: unknown[] = await tx.manager.query(
        "SELECT 1 FROM community_comments WHERE id = $1 AND discussion_id = $2 AND parent_id IS NULL AND status = 'PUBLISHED'",
        [input.parentId, discussionId],
      );
      if (parent.length === 0)
        throw communityError('invalid_reply_parent', 'parentId is not a published top-level comment of this discussion.', [
          { path: 'body.parentId', message: 'parentId must be a published top-level comment of the discussion' },
        ]);
    }
    const id = uuidv7();
    await tx.manager.query(
      `INSERT INTO community_comments (id, discussion_id, parent_id, body_format, body_html, author_user_id, author_tenant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, discussionId, input.parentId ?? null, input.format, body.html, tx.actor.id, tx.tenantId ?? null],
    );
    await tx.manager.query('UPDATE community_discussions SET last_activity_at = now() WHERE id = $1', [discussionId]);
    await recordAudit(tx, {
      action: 'community_comment.create',
      resourceType: 'community_comment',
      resourceId: id,
      after: { discussionId, parentId: input.parentId ?? null, format: input.format, bodyHtml: body.html },
    });
    const [row] = (await tx.manager.query(`SELECT ${COMMENT_COLUMNS} FROM ${COMMENT_FROM} WHERE c.id = $1`, [id])) as CommentRow[];
    return commentView(row!, 0);
  });
}
