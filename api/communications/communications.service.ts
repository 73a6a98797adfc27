/**
 * The in-app notifications of the signed-in member (merchant_notifications, written by notifyTenant:
 * storage/notifications.ts): the tenant's broadcasts and the member's own ones. Marking read is
 * audited; a notification to the whole tenant read by one member is read for all of them.
 */
import { recordAudit } from '../../storage/audit';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { communicationsError } from './communications.errors';

interface NotificationRow {
  id: string;
  store_id: string | null;
  user_id: string | null;
  topic: string;
  title: string;
  body: string;
  link: string | null;
  read_at: Date | null;
  created_at: Date;
}

const view = (row: NotificationRow) => ({
  id: row.id,
  storeId: row.store_id,
  topic: row.topic,
  title: row.title,
  body: row.body,
  link: row.link,
  read: row.read_at !== null,
  readAt: row.read_at ? new Date(row.read_at).toISOString() : null,
  createdAt: new Date(row.created_at).toISOString(),
});

/** The member's view: the tenant's notifications to everyone or to this user. */
function scope(ctx: RequestContext): [string, string] | null {
  if (!ctx.tenantId || !ctx.actor.id) return null;
  return [ctx.tenantId, ctx.actor.id];
}
const MINE = 'tenant_id = $1 AND (user_id IS NULL OR user_id = $2)';

export async function listNotifications(ctx: RequestContext, query: { unreadOnly: boolean; limit: number }) {
  const mine = scope(ctx);
  if (!mine) return { items: [], unreadCount: 0 };
  const rows: NotificationRow[] = await ctx.manager.query(
    `SELECT id, store_id, user_id, topic, title, body, link, read_at, created_at FROM merchant_notifications
      WHERE ${MINE} ${query.unreadOnly ? 'AND read_at IS NULL' : ''}
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [...mine, query.limit],
  );
  const unread: Array<{ n: string }> = await ctx.manager.query(
    `SELECT count(*) AS n FROM merchant_notifications WHERE ${MINE} AND read_at IS NULL`,
    mine,
  );
  return { items: rows.map(view), unreadCount: Number(unread[0]!.n) };
}

export async function markNotificationRead(ctx: RequestContext, id: string): Promise<void> {
  const mine = scope(ctx);
  if (!mine) throw communicationsError('notification_not_found', 'The notification does not exist.');
  await inTransaction(ctx, async (tx) => {
    const rows: Array<{ id: string; read_at: Date | null }> = await tx.manager.query(
      `SELECT id, read_at FROM merchant_notifications WHERE id = $3 AND ${MINE} FOR UPDATE`,
      [...mine, id.toLowerCase()],
    );
    const row = rows[0];
    if (!row) throw communicationsError('notification_not_found', 'The notification does not exist.');
    if (row.read_at !== null) return;
    await tx.manager.query('UPDATE merchant_notifications SET read_at = now() WHERE id = $1', [row.id]);
    await recordAudit(tx, {
      action: 'notification.read',
      resourceType: 'merchant_notification',
      resourceId: row.id,
      after: { read: true },
    });
  });
}

export async function markAllNotificationsRead(ctx: RequestContext): Promise<{ count: number }> {
  const mine = scope(ctx);
  if (!mine) return { count: 0 };
  return inTransaction(ctx, async (tx) => {
    // An UPDATE answers [rows, affected count] through TypeORM.
    const [, count] = (await tx.manager.query(
      `UPDATE merchant_notifications SET read_at = now() WHERE ${MINE} AND read_at IS NULL`,
      mine,
    )) as [unknown[], number];
    if (count > 0)
      await recordAudit(tx, { action: 'notification.read_all', resourceType: 'merchant_notification', resourceId: null, after: { count } });
    return { count };
  });
}
