/**
 * Moderation by platform staff (docs/community.md, "Moderation"): every discussion in every status
 * with full-text search, every comment of a discussion (hidden ones included), the moderation
 * actions, and the purge that deletes a discussion for good with its comments, votes, reports and
 * view records. Each action is one move of a table of allowed moves; an action that changes nothing
 * is 409 invalid_moderation. Every action is audited with its reason.
 */
import { recordAudit } from '../../storage/audit';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import { communityError } from './community.errors';
import {
  COMMENT_COLUMNS,
  COMMENT_FROM,
  DISCUSSION_FROM,
  MODERATION_DISCUSSION_COLUMNS,
  moderationCommentView,
  moderationDiscussionView,
  Params,
  type CommentRow,
  type ModerationDiscussionRow,
} from './community.sql';
import type {
  CommentAction,
  CommentStatus,
  DiscussionAction,
  DiscussionStatus,
  ModerateCommentDto,
  ModerateDiscussionDto,
} from './community.schemas';
import { discussionNotFound } from './discussions.service';

interface DiscussionState {
  status: DiscussionStatus;
  locked: boolean;
  pinned: boolean;
}

/** What each discussion action needs and what it makes: the table of allowed moves. */
const DISCUSSION_MOVES: Record<DiscussionAction, { from: (s: DiscussionState) => boolean; to: Partial<DiscussionState> }> = {
  hide: { from: (s) => s.status === 'PUBLISHED', to: { status: 'HIDDEN' } },
  delete: { from: (s) => s.status !== 'DELETED', to: { status: 'DELETED' } },
  restore: { from: (s) => s.status !== 'PUBLISHED', to: { status: 'PUBLISHED' } },
  lock: { from: (s) => !s.locked, to: { locked: true } },
  unlock: { from: (s) => s.locked, to: { locked: false } },
  pin: { from: (s) => !s.pinned, to: { pinned: true } },
  unpin: { from: (s) => s.pinned, to: { pinned: false } },
};

const COMMENT_MOVES: Record<CommentAction, { from: CommentStatus; to: CommentStatus }> = {
  hide: { from: 'PUBLISHED', to: 'HIDDEN' },
  restore: { from: 'HIDDEN', to: 'PUBLISHED' },
};

const commentNotFound = () => communityError('comment_not_found', 'The comment does not exist.');

async function moderationDiscussion(ctx: RequestContext, id: string) {
  const [row] = (await ctx.manager.query(`SELECT ${MODERATION_DISCUSSION_COLUMNS} FROM ${DISCUSSION_FROM} WHERE d.id = $1`, [
    id,
  ])) as ModerationDiscussionRow[];
  if (!row) throw discussionNotFound();
  return moderationDiscussionView(row);
}

export async function listModerationDiscussions(
  ctx: RequestContext,
  query: { status?: DiscussionStatus; categoryId?: string; search?: string; cursor?: string; limit: number },
) {
  const p = new Params();
  const where: string[] = [];
  if (query.status !== undefined) where.push(`d.status = ${p.add(query.status)}`);
  if (query.categoryId !== undefined) where.push(`d.category_id = ${p.add(query.categoryId)}`);
  if (query.search !== undefined) where.push(`d.search @@ websearch_to_tsquery('simple', ${p.add(query.search)})`);
  if (query.cursor !== undefined) where.push(`d.id < ${p.add(query.cursor)}`);
  const rows: ModerationDiscussionRow[] = await ctx.manager.query(
    `SELECT ${MODERATION_DISCUSSION_COLUMNS} FROM ${DISCUSSION_FROM} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY d.id DESC LIMIT ${p.add(query.limit + 1)}`,
    p.values,
  );
  const items = rows.slice(0, query.limit).map(moderationDiscussionView);
  return { items, nextCursor: rows.length > query.limit ? items[items.length - 1]!.id : null };
}

const OPEN_REPORTS = `(SELECT count(*)::int FROM community_reports r WHERE r.comment_id = c.id AND r.status = 'OPEN') AS open_report_count`;

export async function listModerationComments(ctx: RequestContext, discussionId: string) {
  const found: unknown[] = await ctx.manager.query('SELECT 1 FROM community_discussions WHERE id = $1', [discussionId]);
  if (found.length === 0) throw discussionNotFound();
  const rows: Array<CommentRow & { open_report_count: number }> = await ctx.manager.query(
    `SELECT ${COMMENT_COLUMNS}, ${OPEN_REPORTS} FROM ${COMMENT_FROM} WHERE c.discussion_id = $1 ORDER BY c.created_at, c.id`,
    [discussionId],
  );
  return { items: rows.map(moderationCommentView) };
}

export async function moderateDiscussion(ctx: RequestContext, id: string, input: InputOf<typeof ModerateDiscussionDto>) {
  return inTransaction(ctx, async (tx) => {
    const [current] = (await tx.manager.query('SELECT status, locked, pinned FROM community_discussions WHERE id = $1 FOR UPDATE', [
      id,
    ])) as DiscussionState[];
    if (!current) throw discussionNotFound();
    const move = DISCUSSION_MOVES[input.action];
    if (!move.from(current))
      throw communityError(
        'invalid_moderation',
        `${input.action} does not apply to the discussion now (status ${current.status}, ${current.locked ? 'locked' : 'unlocked'}, ${current.pinned ? 'pinned' : 'not pinned'}).`,
      );
    const next = { ...current, ...move.to };
    await tx.manager.query(
      `UPDATE community_discussions SET status = $2, locked = $3, pinned = $4, moderated_at = now(), moderated_by = $5,
         moderation_reason = $6, updated_at = now() WHERE id = $1`,
      [id, next.status, next.locked, next.pinned, tx.actor.id ?? null, input.reason ?? null],
    );
    await recordAudit(tx, {
      action: `community_discussion.${input.action}`,
      resourceType: 'community_discussion',
      resourceId: id,
      tenantId: null,
      before: current,
      after: { ...next, reason: input.reason ?? null },
    });
    return moderationDiscussion(tx, id);
  });
}

export async function moderateComment(ctx: RequestContext, id: string, input: InputOf<typeof ModerateCommentDto>) {
  return inTransaction(ctx, async (tx) => {
    const [current] = (await tx.manager.query('SELECT status FROM community_comments WHERE id = $1 FOR UPDATE', [id])) as Array<{
      status: CommentStatus;
    }>;
    if (!current) throw commentNotFound();
    const move = COMMENT_MOVES[input.action];
    if (current.status !== move.from)
      throw communityError('invalid_moderation', `The comment is ${current.status}; ${input.action} needs a ${move.from} comment.`);
    await tx.manager.query(
      `UPDATE community_comments SET status = $2, moderated_at = now(), moderated_by = $3, moderation_reason = $4, updated_at = now()
        WHERE id = $1`,
      [id, move.to, tx.actor.id ?? null, input.reason ?? null],
    );
    await recordAudit(tx, {
      action: `community_comment.${input.action}`,
      resourceType: 'community_comment',
      resourceId: id,
      tenantId: null,
      before: { status: current.status },
      after: { status: move.to, reason: input.reason ?? null },
    });
    const [row] = (await tx.manager.query(`SELECT ${COMMENT_COLUMNS}, ${OPEN_REPORTS} FROM ${COMMENT_FROM} WHERE c.id = $1`, [
      id,
    ])) as Array<CommentRow & { open_report_count: number }>;
    return moderationCommentView(row!);
  });
}

/** Deletes the discussion for good; its comments, votes, reports and view records go with it (ON DELETE CASCADE). */
export async function purgeDiscussion(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const [row] = (await tx.manager.query(
      `SELECT d.id, d.slug, d.title, d.status, d.category_id, d.author_user_id, d.author_tenant_id,
         (SELECT count(*)::int FROM community_comments c WHERE c.discussion_id = d.id) AS comments,
         (SELECT count(*)::int FROM community_reports r WHERE r.discussion_id = d.id) AS reports
       FROM community_discussions d WHERE d.id = $1 FOR UPDATE`,
      [id],
    )) as Array<Record<string, unknown>>;
    if (!row) throw discussionNotFound();
    await tx.manager.query('DELETE FROM community_discussions WHERE id = $1', [id]);
    await recordAudit(tx, {
      action: 'community_discussion.purge',
      resourceType: 'community_discussion',
      resourceId: id,
      tenantId: null,
      before: {
        slug: row.slug,
        title: row.title,
        status: row.status,
        categoryId: row.category_id,
        authorUserId: row.author_user_id,
        authorTenantId: row.author_tenant_id,
        comments: row.comments,
        reports: row.reports,
      },
    });
  });
}
