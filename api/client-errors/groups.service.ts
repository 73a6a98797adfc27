/**
 * Triage of a client error group (docs/client-errors.md, "Statuses" and "Comments"): platform staff
 * set its status (open, resolved, ignored; setting the status it has changes nothing) and comment
 * on it. Every change is audited in its transaction, as a platform entry (no tenant).
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { clientErrorsError } from './client-errors.errors';
import { CLIENT_ERROR_COMMENTS_PER_GROUP, type AddCommentInput, type SetGroupStatusInput } from './client-errors.schemas';
import { GROUP_COLUMNS, type GroupRow } from './client-errors.sql';
import { groupView, type ClientErrorCommentView, type ClientErrorGroupView } from './client-errors.views';

const notFound = (fingerprint: string) =>
  clientErrorsError('client_error_group_not_found', `No client error group has the fingerprint ${fingerprint}.`);

async function lockedGroup(tx: RequestContext, fingerprint: string): Promise<GroupRow> {
  const [row] = (await tx.manager.query(`SELECT ${GROUP_COLUMNS} FROM client_error_groups g WHERE g.fingerprint = $1 FOR UPDATE`, [
    fingerprint.toLowerCase(),
  ])) as GroupRow[];
  if (!row) throw notFound(fingerprint);
  return row;
}

/** PATCH /client-errors/groups/{fingerprint}. */
export async function setClientErrorGroupStatus(
  ctx: RequestContext,
  fingerprint: string,
  input: SetGroupStatusInput,
): Promise<ClientErrorGroupView> {
  return inTransaction(ctx, async (tx) => {
    const row = await lockedGroup(tx, fingerprint);
    if (row.status === input.status) return groupView(row);
    const [updated] = (await tx.manager.query(
      `WITH g AS (
         UPDATE client_error_groups SET status = $2, status_changed_at = now(), status_changed_by = $3, updated_at = now()
          WHERE fingerprint = $1 RETURNING *)
       SELECT ${GROUP_COLUMNS} FROM g`,
      [row.fingerprint, input.status, tx.actor.type === 'user' ? tx.actor.id : null],
    )) as GroupRow[];
    await recordAudit(tx, {
      action: 'client_error_group.set_status',
      resourceType: 'client_error_group',
      resourceId: row.fingerprint,
      tenantId: null,
      before: { status: row.status },
      after: { status: input.status },
    });
    return groupView(updated!);
  });
}

interface CommentRow {
  id: string;
  fingerprint: string;
  body: string;
  author_id: string | null;
  author_name: string | null;
  created_at: Date;
}

const commentView = (row: CommentRow): ClientErrorCommentView => ({
  id: row.id,
  fingerprint: row.fingerprint,
  body: row.body,
  author: row.author_id ? { id: row.author_id, name: row.author_name ?? '' } : null,
  createdAt: row.created_at.toISOString(),
});

/** GET /client-errors/groups/{fingerprint}/comments: oldest first, all of them (a group keeps at most 500). */
export async function listClientErrorComments(ctx: RequestContext, fingerprint: string): Promise<{ items: ClientErrorCommentView[] }> {
  const key = fingerprint.toLowerCase();
  const [group] = (await ctx.manager.query(`SELECT 1 FROM client_error_groups WHERE fingerprint = $1`, [key])) as unknown[];
  if (!group) throw notFound(fingerprint);
  const rows = (await ctx.manager.query(
    `SELECT c.id, c.fingerprint, c.body, c.author_id, u.name AS author_name, c.created_at
       FROM client_error_comments c LEFT JOIN users u ON u.id = c.author_id
      WHERE c.fingerprint = $1 ORDER BY c.created_at, c.id`,
    [key],
  )) as CommentRow[];
  return { items: rows.map(commentView) };
}

/** POST /client-errors/groups/{fingerprint}/comments. */
export async function addClientErrorComment(
  ctx: RequestContext,
  fingerprint: string,
  input: AddCommentInput,
): Promise<ClientErrorCommentView> {
  return inTransaction(ctx, async (tx) => {
    const group = await lockedGroup(tx, fingerprint);
    if (group.comment_count >= CLIENT_ERROR_COMMENTS_PER_GROUP)
      throw clientErrorsError(
        'client_error_comment_limit_reached',
        `The group already has ${CLIENT_ERROR_COMMENTS_PER_GROUP} comments, the most it keeps.`,
      );
    const authorId = tx.actor.type === 'user' ? (tx.actor.id ?? null) : null;
    const [row] = (await tx.manager.query(
      `WITH c AS (
         INSERT INTO client_error_comments (id, fingerprint, author_id, body) VALUES ($1, $2, $3, $4)
         RETURNING id, fingerprint, body, author_id, created_at)
       SELECT c.*, u.name AS author_name FROM c LEFT JOIN users u ON u.id = c.author_id`,
      [uuidv7(), group.fingerprint, authorId, input.body],
    )) as CommentRow[];
    await tx.manager.query(`UPDATE client_error_groups SET comment_count = comment_count + 1, updated_at = now() WHERE fingerprint = $1`, [
      group.fingerprint,
    ]);
    const view = commentView(row!);
    await recordAudit(tx, {
      action: 'client_error_group.comment',
      resourceType: 'client_error_group',
      resourceId: group.fingerprint,
      tenantId: null,
      after: { commentId: view.id, body: view.body },
    });
    return view;
  });
}
