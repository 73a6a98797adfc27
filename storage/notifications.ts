/**
 * In-app notifications of merchants. A notification is written in the transaction of the event it
 * describes (a support reply, an incident update, an onboarding step), so a write that rolls back
 * notifies nobody and one that commits always has its notification. A `dedupeKey` makes it at most
 * once per tenant: a retried broadcast or job notifies nobody twice.
 */
import { uuidv7 } from './ids';
import type { RequestContext } from './request-context';

export interface TenantNotification {
  tenantId: string;
  storeId?: string | null;
  /** Only this member of the tenant; absent: every member. */
  userId?: string | null;
  /** `<area>.<event>`, e.g. `support.ticket_replied`. */
  topic: string;
  title: string;
  body: string;
  link?: string | null;
  dedupeKey?: string | null;
}

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * Records the notification in the caller's transaction. Returns false when the tenant already has
 * one with the same dedupeKey (nothing is written then).
 */
export async function notifyTenant(ctx: RequestContext, notification: TenantNotification): Promise<boolean> {
  if (!ctx.inTransaction) throw new Error('notifyTenant must run inside the transaction of the event it describes (use inTransaction)');
  const rows: unknown[] = await ctx.manager.query(
    `INSERT INTO merchant_notifications (id, tenant_id, store_id, user_id, topic, title, body, link, dedupe_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (tenant_id, dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
     RETURNING id`,
    [
      uuidv7(),
      notification.tenantId,
      notification.storeId ?? null,
      notification.userId ?? null,
      notification.topic,
      clip(notification.title, 300),
      clip(notification.body, 10_000),
      notification.link ?? null,
      notification.dedupeKey ?? null,
    ],
  );
  return rows.length === 1;
}
