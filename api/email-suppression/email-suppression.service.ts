/**
 * The suppression list (docs/messaging.md, "Suppression"): addresses that must not be e-mailed, for
 * one store or platform-wide. Only the SHA-256 hash of the normalised address and its domain are
 * kept, never the address. Tenant members record and read their stores' entries; platform staff
 * (platform_admin, support_agent) record platform-wide ones. Every write is audited.
 */
import { ValidationError } from '../../lib/errors';
import { recordAudit } from '../../storage/audit';
import { emailDomain, emailHash, readUnsubscribeToken } from '../../storage/customer-messages';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { requireStore } from '../../domain/store-access';
import { escapeHtml, htmlPage } from '../payments/providers/html';
import { suppressionError } from './email-suppression.errors';
import { SUPPRESSION_REASONS, type RecordSuppressionInput, type SuppressionReason } from './email-suppression.schemas';

export interface SuppressionEntryView {
  id: string;
  storeId: string | null;
  appliesPlatform: boolean;
  emailHash: string;
  emailDomain: string;
  reason: SuppressionReason;
  createdAt: string;
}

interface EntryRow {
  id: string;
  store_id: string | null;
  applies_platform: boolean;
  email_hash: string;
  email_domain: string;
  reason: SuppressionReason;
  created_at: Date;
}

const view = (row: EntryRow): SuppressionEntryView => ({
  id: row.id,
  storeId: row.store_id,
  appliesPlatform: row.applies_platform,
  emailHash: row.email_hash,
  emailDomain: row.email_domain,
  reason: row.reason,
  createdAt: new Date(row.created_at).toISOString(),
});

const COLUMNS = 'id, store_id, applies_platform, email_hash, email_domain, reason, created_at';

/** Platform staff who are no tenant member act platform-wide (auth merchant_or_platform). */
const actsPlatformWide = (ctx: RequestContext): boolean => !ctx.tenantId && ctx.actor.platformRole !== undefined;

export interface ListSuppressionQuery {
  storeId: string;
  emailDomain?: string;
  emailHash?: string;
  appliesPlatform?: boolean;
  limit: number;
}

/**
 * The store's entries, newest first. With appliesPlatform=true: the platform-wide entries for the
 * given emailHash instead (the caller already knows the address; the platform list is never browsed).
 */
export async function listSuppressionEntries(ctx: RequestContext, query: ListSuppressionQuery): Promise<{ items: SuppressionEntryView[] }> {
  await requireStore(ctx, query.storeId);
  if (query.appliesPlatform === true && query.emailHash === undefined)
    throw new ValidationError('appliesPlatform=true looks up platform-wide entries by emailHash: give emailHash.', [
      { path: 'query.emailHash', message: 'emailHash is required with appliesPlatform=true' },
    ]);
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (query.appliesPlatform === true) where.push('applies_platform');
  else {
    add('store_id = ?', query.storeId);
    if (query.appliesPlatform === false) where.push('NOT applies_platform');
  }
  if (query.emailHash !== undefined) add('email_hash = ?', query.emailHash.toLowerCase());
  if (query.emailDomain !== undefined) add('email_domain = ?', query.emailDomain.toLowerCase());
  params.push(query.limit);
  const rows: EntryRow[] = await ctx.manager.query(
    `SELECT ${COLUMNS} FROM email_suppression_entries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return { items: rows.map(view) };
}

/** Records an entry for the caller's store, or (platform staff, no storeId) platform-wide. */
export async function recordSuppression(ctx: RequestContext, input: RecordSuppressionInput): Promise<SuppressionEntryView> {
  return inTransaction(ctx, async (tx) => {
    let tenantId: string | null = null;
    if (input.storeId === undefined) {
      if (!actsPlatformWide(tx)) throw suppressionError('platform_suppression_forbidden', 'Name one of your stores (storeId).');
    } else {
      if (actsPlatformWide(tx))
        throw suppressionError('platform_suppression_forbidden', 'Platform staff record platform-wide entries: leave storeId out.');
      tenantId = (await requireStore(tx, input.storeId, { forWrite: true })).tenantId;
    }
    const row = await insertEntry(tx, {
      tenantId,
      storeId: input.storeId ?? null,
      hash: emailHash(input.email),
      domain: emailDomain(input.email),
      reason: input.reason,
    });
    if (!row) throw suppressionError('suppression_entry_exists', 'The address is already suppressed there.');
    await recordAudit(tx, {
      action: 'email_suppression.record',
      resourceType: 'email_suppression_entry',
      resourceId: row.id,
      after: { storeId: row.store_id, appliesPlatform: row.applies_platform, emailDomain: row.email_domain, reason: row.reason },
      tenantId,
    });
    return view(row);
  });
}

async function insertEntry(
  tx: RequestContext,
  entry: { tenantId: string | null; storeId: string | null; hash: string; domain: string; reason: SuppressionReason },
): Promise<EntryRow | null> {
  const platform = entry.storeId === null;
  const rows: EntryRow[] = await tx.manager.query(
    `INSERT INTO email_suppression_entries (id, tenant_id, store_id, applies_platform, email_hash, email_domain, reason, created_by_type, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT DO NOTHING
     RETURNING ${COLUMNS}`,
    [uuidv7(), entry.tenantId, entry.storeId, platform, entry.hash, entry.domain, entry.reason, tx.actor.type, tx.actor.id ?? null],
  );
  return rows[0] ?? null;
}

export async function suppressionOverview(ctx: RequestContext, storeId: string) {
  await requireStore(ctx, storeId);
  const rows: Array<{ reason: SuppressionReason; recent: string; total: string }> = await ctx.manager.query(
    `SELECT reason, count(*) FILTER (WHERE created_at >= now() - interval '30 days') AS recent, count(*) AS total
       FROM email_suppression_entries WHERE store_id = $1 GROUP BY reason`,
    [storeId],
  );
  const byReason = Object.fromEntries(SUPPRESSION_REASONS.map((r) => [r, 0])) as Record<SuppressionReason, number>;
  let total = 0;
  let allTime = 0;
  for (const row of rows) {
    byReason[row.reason] = Number(row.recent);
    total += Number(row.recent);
    allTime += Number(row.total);
  }
  return { storeId, periodDays: 30, total, byReason, allTime };
}

/** Whether the address is suppressed platform-wide or for one of the caller's stores (a store API key: its store). */
export async function checkSuppression(ctx: RequestContext, email: string) {
  const hash = emailHash(email);
  const rows: Array<{ store_id: string | null; applies_platform: boolean }> = await ctx.manager.query(
    `SELECT store_id, applies_platform FROM email_suppression_entries
      WHERE email_hash = $1 AND (applies_platform OR (tenant_id = $2 AND ($3::uuid IS NULL OR store_id = $3::uuid)))
      ORDER BY store_id`,
    [hash, ctx.tenantId ?? null, ctx.actor.type === 'api_key' ? (ctx.actor.storeId ?? null) : null],
  );
  const appliesPlatform = rows.some((r) => r.applies_platform);
  const storeIds = rows.filter((r) => r.store_id !== null).map((r) => r.store_id!);
  return { emailHash: hash, suppressed: appliesPlatform || storeIds.length > 0, appliesPlatform, storeIds };
}

// ---- the unsubscribe page (public) ---------------------------------------------------------------

function claimsOf(ctx: RequestContext, token: string) {
  const claims = readUnsubscribeToken(servicesOf(ctx).config.appSecret, token);
  if (!claims) throw suppressionError('unsubscribe_token_invalid', 'This unsubscribe link is not valid.');
  return claims;
}

/** The page an unsubscribe link opens: a confirmation form (a link alone changes nothing, so mail scanners opening it unsubscribe nobody). */
export function unsubscribePage(ctx: RequestContext, token: string): string {
  claimsOf(ctx, token);
  return htmlPage(
    'Unsubscribe',
    `<p>Stop e-mails from this store to your address?</p>
<form method="post"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">Unsubscribe</button></form>`,
  );
}

/** The form's post: records an UNSUBSCRIBE entry for the store (once; a second post changes nothing). */
export async function unsubscribe(ctx: RequestContext, token: string): Promise<string> {
  const claims = claimsOf(ctx, token);
  await inTransaction(ctx, async (tx) => {
    const stores: Array<{ tenant_id: string }> = await tx.manager.query('SELECT tenant_id FROM stores WHERE id = $1', [claims.storeId]);
    const tenantId = stores[0]?.tenant_id;
    if (!tenantId) return; // the store is gone: nothing left to e-mail from
    const domains: Array<{ email: string }> = await tx.manager.query('SELECT email FROM customers WHERE id = $1 AND store_id = $2', [
      claims.customerId,
      claims.storeId,
    ]);
    const customerEmail = domains[0]?.email;
    const domain = customerEmail && emailHash(customerEmail) === claims.emailHash ? emailDomain(customerEmail) : 'unknown';
    const row = await insertEntry(tx, { tenantId, storeId: claims.storeId, hash: claims.emailHash, domain, reason: 'UNSUBSCRIBE' });
    if (row)
      await recordAudit(tx, {
        action: 'email_suppression.unsubscribe',
        resourceType: 'email_suppression_entry',
        resourceId: row.id,
        after: { storeId: row.store_id, customerId: claims.customerId, reason: row.reason },
        tenantId,
      });
  });
  return htmlPage('Unsubscribed', '<p>You will receive no more e-mails from this store.</p>');
}
