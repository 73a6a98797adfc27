/**
 * Campaigns (docs/marketing.md, "Campaigns"): create, read, change and delete while DRAFT or
 * SCHEDULED, and send. Sending takes the audience (the segment's customers at that moment) into
 * `campaign_recipients`, one `pending` row per customer; the marketing scheduler of the jobs worker
 * (marketing-scheduler.ts) then hands the pending rows, in batches, to the customer message pipeline.
 * A campaign whose scheduledAt lies ahead waits as SCHEDULED until the scheduler finds it due.
 */
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { requireStore } from '../../domain/store-access';
import type { InputOf } from '../http/typed-schema';
import { marketingError } from './marketing.errors';
import { RECIPIENT_STATUSES, type CampaignStatus, type CreateCampaignDto, type UpdateCampaignDto } from './marketing.schemas';
import { campaignView, type CampaignRow } from './marketing.views';
import { segmentQuery } from './segments';
import { loadStoreScoped, tenantOf as tenantOfCaller } from './store-scoped';

export type CreateCampaignInput = InputOf<typeof CreateCampaignDto>;
export type UpdateCampaignInput = InputOf<typeof UpdateCampaignDto>;
export interface ListQuery {
  cursor?: string;
  limit: number;
}

/** The campaign states and the moves between them; `send` moves DRAFT on, the scheduler the rest. */
export const CAMPAIGN_TRANSITIONS: Record<CampaignStatus, readonly CampaignStatus[]> = {
  DRAFT: ['SCHEDULED', 'SENDING'],
  SCHEDULED: ['SENDING'],
  SENDING: ['SENT'],
  SENT: [],
};
/** The states in which a campaign can still be changed or deleted. */
const EDITABLE: readonly CampaignStatus[] = ['DRAFT', 'SCHEDULED'];

const notFound = () => marketingError('campaign_not_found', 'The campaign does not exist.');
const refused = (status: CampaignStatus, what: string) =>
  marketingError('campaign_state_refused', `A ${status} campaign cannot be ${what}.`);

const tenantOf = (ctx: RequestContext): string => tenantOfCaller(ctx, notFound);

/** The campaign of the caller's tenant (locked when `forWrite`), on a store the caller may use; 404 otherwise. */
const loadCampaign = (ctx: RequestContext, id: string, forWrite = false): Promise<CampaignRow> =>
  loadStoreScoped<CampaignRow>(ctx, 'marketing_campaigns', id, notFound, forWrite);

async function deliveryCounts(ctx: RequestContext, id: string) {
  const rows: Array<{ status: string; n: number }> = await ctx.manager.query(
    'SELECT status, count(*)::int AS n FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status',
    [id],
  );
  const deliveries = Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  for (const row of rows) deliveries[row.status] = row.n;
  return { recipients: rows.reduce((sum, r) => sum + r.n, 0), deliveries };
}

async function detail(ctx: RequestContext, row: CampaignRow) {
  return { ...campaignView(row), ...(await deliveryCounts(ctx, row.id)) };
}

export async function listCampaigns(ctx: RequestContext, query: ListQuery) {
  const apiKeyStore = ctx.actor.type === 'api_key' ? (ctx.actor.storeId ?? null) : null;
  const rows: CampaignRow[] = await ctx.manager.query(
    `SELECT * FROM marketing_campaigns
      WHERE tenant_id = $1 AND ($2::uuid IS NULL OR id < $2) AND ($3::uuid IS NULL OR store_id = $3)
      ORDER BY id DESC LIMIT $4`,
    [tenantOf(ctx), query.cursor?.toLowerCase() ?? null, apiKeyStore, query.limit + 1],
  );
  const page = rows.slice(0, query.limit);
  return { items: page.map(campaignView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export function getCampaign(ctx: RequestContext, id: string) {
  return loadCampaign(ctx, id).then((row) => detail(ctx, row));
}

export async function createCampaign(ctx: RequestContext, input: CreateCampaignInput) {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true });
    const id = uuidv7();
    const rows: CampaignRow[] = await tx.manager.query(
      `INSERT INTO marketing_campaigns (id, tenant_id, store_id, name, subject, body, category, segment, status, scheduled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'DRAFT', $9) RETURNING *`,
      [
        id,
        tenantOf(tx),
        store.id,
        input.name,
        input.subject,
        input.body,
        input.category,
        JSON.stringify(input.segment),
        input.scheduledAt ?? null,
      ],
    );
    const row = rows[0]!;
    await recordAudit(tx, { action: 'campaign.create', resourceType: 'campaign', resourceId: id, after: campaignView(row) });
    return detail(tx, row);
  });
}

export async function updateCampaign(ctx: RequestContext, id: string, input: UpdateCampaignInput) {
  return inTransaction(ctx, async (tx) => {
    const before = await loadCampaign(tx, id, true);
    if (!EDITABLE.includes(before.status)) throw refused(before.status, 'changed');
    const rows = await tx.manager.query(
      `UPDATE marketing_campaigns SET
         name = coalesce($2, name), subject = coalesce($3, subject), body = coalesce($4, body),
         category = coalesce($5, category), segment = coalesce($6::jsonb, segment),
         scheduled_at = CASE WHEN $7 THEN $8::timestamptz ELSE scheduled_at END,
         status = CASE WHEN status = 'SCHEDULED' AND $7 AND $8::timestamptz IS NULL THEN 'DRAFT' ELSE status END,
         updated_at = now()
       WHERE id = $1 RETURNING *`,
      [
        id,
        input.name ?? null,
        input.subject ?? null,
        input.body ?? null,
        input.category ?? null,
        input.segment === undefined ? null : JSON.stringify(input.segment),
        input.scheduledAt !== undefined,
        input.scheduledAt ?? null,
      ],
    );
    const row = (rows as [CampaignRow[]])[0][0]!;
    await recordAudit(tx, {
      action: 'campaign.update',
      resourceType: 'campaign',
      resourceId: id,
      before: campaignView(before),
      after: campaignView(row),
    });
    return detail(tx, row);
  });
}

export async function deleteCampaign(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const before = await loadCampaign(tx, id, true);
    if (!EDITABLE.includes(before.status)) throw refused(before.status, 'deleted');
    await tx.manager.query('DELETE FROM marketing_campaigns WHERE id = $1', [id]);
    await recordAudit(tx, { action: 'campaign.delete', resourceType: 'campaign', resourceId: id, before: campaignView(before) });
  });
}

/**
 * Moves a campaign to SENDING (inside the caller's transaction): takes its audience into
 * `campaign_recipients` as `pending` rows (a customer already there is kept as it is).
 */
export async function startSending(tx: RequestContext, campaign: CampaignRow, now: Date): Promise<CampaignRow> {
  if (!CAMPAIGN_TRANSITIONS[campaign.status].includes('SENDING')) throw refused(campaign.status, 'sent');
  const audience = segmentQuery(campaign.tenant_id, campaign.store_id, campaign.segment, now, `$10::uuid, c.id, 'pending'`);
  await tx.manager.query(`INSERT INTO campaign_recipients (campaign_id, customer_id, status) ${audience.sql} ON CONFLICT DO NOTHING`, [
    ...audience.params,
    campaign.id,
  ]);
  const rows = await tx.manager.query(
    `UPDATE marketing_campaigns SET status = 'SENDING', started_at = $2, updated_at = now() WHERE id = $1 RETURNING *`,
    [campaign.id, now],
  );
  const row = (rows as [CampaignRow[]])[0][0]!;
  await recordAudit(tx, {
    action: 'campaign.start_sending',
    resourceType: 'campaign',
    resourceId: campaign.id,
    tenantId: campaign.tenant_id,
    before: { status: campaign.status },
    after: { status: 'SENDING' },
  });
  return row;
}

/** POST …/send: a DRAFT campaign is sent now, or SCHEDULED when its scheduledAt lies ahead; any other state is 409. */
export async function sendCampaign(ctx: RequestContext, id: string, now: Date = new Date()) {
  return inTransaction(ctx, async (tx) => {
    const campaign = await loadCampaign(tx, id, true);
    if (campaign.status !== 'DRAFT') throw refused(campaign.status, 'sent');
    if (campaign.scheduled_at !== null && campaign.scheduled_at > now) {
      const rows = await tx.manager.query(
        `UPDATE marketing_campaigns SET status = 'SCHEDULED', updated_at = now() WHERE id = $1 RETURNING *`,
        [id],
      );
      const row = (rows as [CampaignRow[]])[0][0]!;
      await recordAudit(tx, {
        action: 'campaign.schedule',
        resourceType: 'campaign',
        resourceId: id,
        before: { status: 'DRAFT' },
        after: { status: 'SCHEDULED', scheduledAt: row.scheduled_at?.toISOString() },
      });
      return detail(tx, row);
    }
    return detail(tx, await startSending(tx, campaign, now));
  });
}
