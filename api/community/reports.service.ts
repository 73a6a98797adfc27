/**
 * Reports to the moderators (docs/community.md, "Reports"): a signed-in user reports a published
 * discussion or comment; platform staff work the queue and close each report once, OPEN → RESOLVED
 * (acted upon) or OPEN → DISMISSED (nothing to do). Any other move is 409 report_already_closed.
 */
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import { hitUserLimit } from './community-limits';
import { communityError } from './community.errors';
import { Params } from './community.sql';
import type {
  CommentStatus,
  CommunityReportStatus,
  CreateCommunityReportDto,
  DiscussionStatus,
  ResolveCommunityReportDto,
} from './community.schemas';
import { discussionNotFound } from './discussions.service';

/** The moves of a report: only an OPEN report is closed, once. */
const REPORT_TRANSITIONS: Record<CommunityReportStatus, readonly CommunityReportStatus[]> = {
  OPEN: ['RESOLVED', 'DISMISSED'],
  RESOLVED: [],
  DISMISSED: [],
};

interface ReportRow {
  id: string;
  discussion_id: string;
  discussion_slug: string;
  discussion_title: string;
  discussion_status: DiscussionStatus;
  comment_id: string | null;
  comment_status: CommentStatus | null;
  reason: string;
  details: string | null;
  status: CommunityReportStatus;
  reporter_user_id: string;
  reporter_tenant_id: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution_note: string | null;
  created_at: Date;
}

const SELECT = `SELECT r.*, d.slug AS discussion_slug, d.title AS discussion_title, d.status AS discussion_status, c.status AS comment_status
  FROM community_reports r JOIN community_discussions d ON d.id = r.discussion_id LEFT JOIN community_comments c ON c.id = r.comment_id`;

function reportView(row: ReportRow) {
  return {
    id: row.id,
    targetType: row.comment_id ? ('COMMENT' as const) : ('DISCUSSION' as const),
    discussionId: row.discussion_id,
    discussionSlug: row.discussion_slug,
    discussionTitle: row.discussion_title,
    discussionStatus: row.discussion_status,
    commentId: row.comment_id,
    commentStatus: row.comment_status,
    reason: row.reason,
    details: row.details,
    status: row.status,
    reporterUserId: row.reporter_user_id,
    reporterTenantId: row.reporter_tenant_id,
    resolvedAt: row.resolved_at ? row.resolved_at.toISOString() : null,
    resolvedBy: row.resolved_by,
    resolutionNote: row.resolution_note,
    createdAt: row.created_at.toISOString(),
  };
}

const reportNotFound = () => communityError('report_not_found', 'The community report does not exist.');

async function reportById(ctx: RequestContext, id: string): Promise<ReportRow> {
  const [row] = (await ctx.manager.query(`${SELECT} WHERE r.id = $1`, [id])) as ReportRow[];
  if (!row) throw reportNotFound();
  return row;
}

/** The discussion of a published target (a comment's discussion), or 404 when the public cannot see the target. */
async function visibleTarget(tx: RequestContext, target: 'discussion' | 'comment', id: string): Promise<string> {
  if (target === 'discussion') {
    const rows: unknown[] = await tx.manager.query("SELECT 1 FROM community_discussions WHERE id = $1 AND status = 'PUBLISHED'", [id]);
    if (rows.length === 0) throw discussionNotFound();
    return id;
  }
  const [row] = (await tx.manager.query(
    `SELECT c.discussion_id FROM community_comments c JOIN community_discussions d ON d.id = c.discussion_id
      WHERE c.id = $1 AND c.status = 'PUBLISHED' AND d.status = 'PUBLISHED'
        AND (c.parent_id IS NULL OR EXISTS (SELECT 1 FROM community_comments p WHERE p.id = c.parent_id AND p.status = 'PUBLISHED'))`,
    [id],
  )) as Array<{ discussion_id: string }>;
  if (!row) throw communityError('comment_not_found', 'The comment does not exist.');
  return row.discussion_id;
}

export async function createReport(
  ctx: RequestContext,
  target: 'discussion' | 'comment',
  id: string,
  input: InputOf<typeof CreateCommunityReportDto>,
) {
  await hitUserLimit(ctx, 'reportsPerUser');
  try {
    return await inTransaction(ctx, async (tx) => {
      const discussionId = await visibleTarget(tx, target, id);
      const reportId = uuidv7();
      await tx.manager.query(
        `INSERT INTO community_reports (id, discussion_id, comment_id, reporter_user_id, reporter_tenant_id, reason, details)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [reportId, discussionId, target === 'comment' ? id : null, tx.actor.id, tx.tenantId ?? null, input.reason, input.details ?? null],
      );
      await recordAudit(tx, {
        action: 'community_report.create',
        resourceType: 'community_report',
        resourceId: reportId,
        after: { discussionId, commentId: target === 'comment' ? id : null, reason: input.reason, details: input.details ?? null },
      });
      return reportView(await reportById(tx, reportId));
    });
  } catch (error) {
    if (isUniqueViolation(error, 'community_reports_open_once'))
      throw communityError('already_reported', `You already have an open report of this ${target}.`);
    throw error;
  }
}

export async function listReports(ctx: RequestContext, query: { status?: CommunityReportStatus; cursor?: string; limit: number }) {
  const p = new Params();
  const where: string[] = [];
  if (query.status !== undefined) where.push(`r.status = ${p.add(query.status)}`);
  if (query.cursor !== undefined) where.push(`r.id > ${p.add(query.cursor)}`);
  const rows: ReportRow[] = await ctx.manager.query(
    `${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY r.id LIMIT ${p.add(query.limit + 1)}`,
    p.values,
  );
  const items = rows.slice(0, query.limit).map(reportView);
  return { items, nextCursor: rows.length > query.limit ? items[items.length - 1]!.id : null };
}

export async function resolveReport(ctx: RequestContext, id: string, input: InputOf<typeof ResolveCommunityReportDto>) {
  return inTransaction(ctx, async (tx) => {
    const [current] = (await tx.manager.query('SELECT status FROM community_reports WHERE id = $1 FOR UPDATE', [id])) as Array<{
      status: CommunityReportStatus;
    }>;
    if (!current) throw reportNotFound();
    if (!REPORT_TRANSITIONS[current.status].includes(input.status))
      throw communityError('report_already_closed', `The report is ${current.status}; only an OPEN report can be closed.`);
    await tx.manager.query(
      `UPDATE community_reports SET status = $2, resolved_at = now(), resolved_by = $3, resolution_note = $4, updated_at = now() WHERE id = $1`,
      [id, input.status, tx.actor.id ?? null, input.note ?? null],
    );
    await recordAudit(tx, {
      action: 'community_report.resolve',
      resourceType: 'community_report',
      resourceId: id,
      tenantId: null,
      before: { status: current.status },
      after: { status: input.status, note: input.note ?? null },
    });
    return reportView(await reportById(tx, id));
  });
}
