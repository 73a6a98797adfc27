/**
 * SQL of the community reads: the columns of a discussion and a comment with their author, and the
 * views built from the rows. The community tables belong to no tenant (the forum is platform-wide),
 * so no tenant is bound here; what a caller sees is decided by status (public reads: PUBLISHED only).
 */
import type { CommentStatus, DiscussionStatus } from './community.schemas';

/** Numbered placeholders for a query built in pieces. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * The comments the public sees of discussion `d`: published, and (for replies) under a published
 * parent. Used for the public comment count.
 */
export const VISIBLE_COMMENT = `c.status = 'PUBLISHED' AND (c.parent_id IS NULL OR EXISTS (
  SELECT 1 FROM community_comments pc WHERE pc.id = c.parent_id AND pc.status = 'PUBLISHED'))`;

/** Columns of a discussion (alias d), its category (alias cat) and author (alias u). */
export const DISCUSSION_COLUMNS = `d.id, d.slug, d.category_id, cat.slug AS category_slug, d.title, left(d.body_text, 200) AS excerpt,
  d.body_html, d.status, d.locked, d.pinned, d.upvotes, d.downvotes, d.view_count::text AS view_count, d.created_at,
  d.last_activity_at, d.author_user_id, d.author_tenant_id, u.name AS author_name, (u.platform_role IS NOT NULL) AS author_staff,
  d.moderated_at, d.moderated_by, d.moderation_reason,
  (SELECT count(*)::int FROM community_comments c WHERE c.discussion_id = d.id AND ${VISIBLE_COMMENT}) AS comment_count`;

export const DISCUSSION_FROM = `community_discussions d
  JOIN community_categories cat ON cat.id = d.category_id
  LEFT JOIN users u ON u.id = d.author_user_id`;

export interface DiscussionRow {
  id: string;
  slug: string;
  category_id: string;
  category_slug: string;
  title: string;
  excerpt: string;
  body_html: string;
  status: DiscussionStatus;
  locked: boolean;
  pinned: boolean;
  upvotes: number;
  downvotes: number;
  view_count: string;
  created_at: Date;
  last_activity_at: Date;
  author_user_id: string | null;
  author_tenant_id: string | null;
  author_name: string | null;
  author_staff: boolean | null;
  moderated_at: Date | null;
  moderated_by: string | null;
  moderation_reason: string | null;
  comment_count: number;
}

const authorOf = (row: { author_name: string | null; author_staff: boolean | null }) => ({
  name: row.author_name,
  staff: row.author_staff === true,
});

export function discussionSummary(row: DiscussionRow) {
  return {
    id: row.id,
    slug: row.slug,
    categoryId: row.category_id,
    categorySlug: row.category_slug,
    title: row.title,
    excerpt: row.excerpt,
    author: authorOf(row),
    score: row.upvotes - row.downvotes,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    commentCount: row.comment_count,
    viewCount: Number(row.view_count),
    pinned: row.pinned,
    locked: row.locked,
    createdAt: row.created_at.toISOString(),
    lastActivityAt: row.last_activity_at.toISOString(),
  };
}

const moderationOf = (row: { moderated_at: Date | null; moderated_by: string | null; moderation_reason: string | null }) => ({
  moderatedAt: row.moderated_at ? row.moderated_at.toISOString() : null,
  moderatedBy: row.moderated_by,
  moderationReason: row.moderation_reason,
});

export interface ModerationDiscussionRow extends DiscussionRow {
  open_report_count: number;
  hidden_comment_count: number;
}

export const MODERATION_DISCUSSION_COLUMNS = `${DISCUSSION_COLUMNS},
  (SELECT count(*)::int FROM community_reports r WHERE r.discussion_id = d.id AND r.comment_id IS NULL AND r.status = 'OPEN') AS open_report_count,
  (SELECT count(*)::int FROM community_comments c WHERE c.discussion_id = d.id AND c.status = 'HIDDEN') AS hidden_comment_count`;

export function moderationDiscussionView(row: ModerationDiscussionRow) {
  return {
    ...discussionSummary(row),
    authorUserId: row.author_user_id,
    authorTenantId: row.author_tenant_id,
    ...moderationOf(row),
    status: row.status,
    bodyHtml: row.body_html,
    openReportCount: row.open_report_count,
    hiddenCommentCount: row.hidden_comment_count,
  };
}

/** Columns of a comment (alias c) with its author (alias u). */
export const COMMENT_COLUMNS = `c.id, c.discussion_id, c.parent_id, c.body_html, c.status, c.upvotes, c.downvotes, c.created_at,
  c.author_user_id, c.author_tenant_id, u.name AS author_name, (u.platform_role IS NOT NULL) AS author_staff,
  c.moderated_at, c.moderated_by, c.moderation_reason`;

export const COMMENT_FROM = `community_comments c LEFT JOIN users u ON u.id = c.author_user_id`;

export interface CommentRow {
  id: string;
  discussion_id: string;
  parent_id: string | null;
  body_html: string;
  status: CommentStatus;
  upvotes: number;
  downvotes: number;
  created_at: Date;
  author_user_id: string | null;
  author_tenant_id: string | null;
  author_name: string | null;
  author_staff: boolean | null;
  moderated_at: Date | null;
  moderated_by: string | null;
  moderation_reason: string | null;
}

export function commentView(row: CommentRow, myVote: number | null) {
  return {
    id: row.id,
    discussionId: row.discussion_id,
    parentId: row.parent_id,
    author: authorOf(row),
    bodyHtml: row.body_html,
    score: row.upvotes - row.downvotes,
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    createdAt: row.created_at.toISOString(),
    myVote,
  };
}

export function moderationCommentView(row: CommentRow & { open_report_count: number }) {
  const { myVote: _none, ...view } = commentView(row, null);
  return {
    ...view,
    authorUserId: row.author_user_id,
    authorTenantId: row.author_tenant_id,
    ...moderationOf(row),
    status: row.status,
    openReportCount: row.open_report_count,
  };
}
