/**
 * Keeping the search index's effective prices on time.
 *
 * - `affectedProducts`: the published products a rule's scope or a campaign's items reach.
 * - `enqueueRepricing`: one `index` outbox row per such product (aggregate product, topic
 *   `product.repriced`), written in one INSERT … SELECT per 5 000 ids, in the caller's transaction.
 * - The window scheduler (`runPricingSchedulerPass`, started by the jobs role): every few seconds it
 *   finds rules and published campaigns whose startsAt or endsAt fell in (last pass, now] and enqueues
 *   their products. The end of the last pass is kept in PostgreSQL (pricing_schedule_state), so a
 *   restart or a pause misses no window; the state row is claimed with FOR UPDATE SKIP LOCKED, so of
 *   several jobs processes one does each pass (a duplicate row would only re-index a product twice).
 *   A pass covers boundaries up to now − SCHEDULER_LAG_MS: a write that decided "not live yet" just
 *   before a boundary and commits just after it is then still seen by the pass that covers the
 *   boundary (a pass cannot see uncommitted rows). So a window re-prices its products within about
 *   interval + lag (5 s by default) of its boundary. Process clocks are assumed to be in sync (NTP).
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type { Queryable } from '../../domain/pricing-engine';
import { enqueueOutboxSelect } from '../../storage/outbox';
import type { RepricingCause } from '../../storage/outbox-events';
import { startPeriodicTask, type PeriodicTask } from '../../lib/periodic-task';

export type TargetScope = 'ALL' | 'PRODUCTS' | 'CATEGORIES' | 'BRANDS' | 'COLLECTIONS';

export const REPRICED_TOPIC = 'product.repriced';
const CHUNK = 5_000;

/** Default pause between passes (PRICING_SCHEDULER_INTERVAL_MS in lib/config.ts). */
export const SCHEDULER_INTERVAL_MS = 3_000;
/** How far behind the clock a pass stays, so writes committing around a boundary are seen. */
export const SCHEDULER_LAG_MS = 2_000;

/** Published products of the store that `scope` + `ids` reach (categories with their subtrees). */
export async function affectedProducts(db: Queryable, storeId: string, scope: TargetScope, ids: readonly string[]): Promise<string[]> {
  if (scope !== 'ALL' && ids.length === 0) return [];
  let rows: Array<{ id: string }>;
  switch (scope) {
    case 'ALL':
      rows = await db.query(`SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED'`, [storeId]);
      break;
    case 'PRODUCTS':
      rows = await db.query(`SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND id = ANY($2::uuid[])`, [
        storeId,
        ids,
      ]);
      break;
    case 'BRANDS':
      rows = await db.query(`SELECT id FROM products WHERE store_id = $1 AND status = 'PUBLISHED' AND brand_id = ANY($2::uuid[])`, [
        storeId,
        ids,
      ]);
      break;
    case 'CATEGORIES':
      rows = await db.query(
        `WITH RECURSIVE tree AS (SELECT id FROM categories WHERE store_id = $1 AND id = ANY($2::uuid[])
                                 UNION SELECT c.id FROM categories c JOIN tree t ON c.parent_id = t.id)
         SELECT DISTINCT p.id FROM products p JOIN product_categories pc ON pc.product_id = p.id JOIN tree t ON t.id = pc.category_id
          WHERE p.store_id = $1 AND p.status = 'PUBLISHED'`,
        [storeId, ids],
      );
      break;
    case 'COLLECTIONS':
      rows = await db.query(
        `SELECT DISTINCT p.id FROM products p JOIN collection_items ci ON ci.product_id = p.id
          WHERE p.store_id = $1 AND p.status = 'PUBLISHED' AND ci.collection_id = ANY($2::uuid[])`,
        [storeId, ids],
      );
      break;
  }
  return rows.map((r) => r.id);
}

/** Products reached by a flash-sale campaign's items (products, and categories with their subtrees). */
export async function campaignProducts(
  db: Queryable,
  storeId: string,
  items: ReadonlyArray<{ kind: 'PRODUCT' | 'CATEGORY'; targetId: string }>,
): Promise<string[]> {
  const products = items.filter((i) => i.kind === 'PRODUCT').map((i) => i.targetId);
  const categories = items.filter((i) => i.kind === 'CATEGORY').map((i) => i.targetId);
  const [a, b] = await Promise.all([
    affectedProducts(db, storeId, 'PRODUCTS', products),
    affectedProducts(db, storeId, 'CATEGORIES', categories),
  ]);
  return [...new Set([...a, ...b])];
}

/** Enqueues an `index` outbox row per product in the caller's transaction (`db` must be the transaction's manager: enqueueOutboxSelect refuses another). */
export async function enqueueRepricing(
  db: EntityManager,
  tenantId: string,
  productIds: readonly string[],
  cause: RepricingCause,
): Promise<number> {
  const unique = [...new Set(productIds)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    await enqueueOutboxSelect(
      db,
      { queue: 'index', topic: REPRICED_TOPIC, aggregateType: 'product' },
      { tenantId: '$1::uuid', aggregateId: 'id::text', payload: '$2::jsonb', from: 'FROM unnest($3::uuid[]) AS id' },
      [tenantId, JSON.stringify(cause), unique.slice(i, i + CHUNK)],
    );
  }
  return unique.length;
}

export interface SchedulerPass {
  /** False when another process held the scheduler state (it does this pass). */
  ran: boolean;
  from?: Date;
  to?: Date;
  rules: number;
  campaigns: number;
  products: number;
}

/**
 * One scheduler pass up to `now`: the windows of rules (without customer groups, the only ones the
 * public price sees) and of published campaigns that opened or closed in (last pass, now] re-index
 * their products. Returns what it found.
 */
export async function runPricingSchedulerPass(
  dataSource: DataSource,
  clock: Date = new Date(),
  lagMs = SCHEDULER_LAG_MS,
): Promise<SchedulerPass> {
  const now = new Date(clock.getTime() - lagMs);
  return dataSource.transaction(async (m) => {
    const [state]: Array<{ last_pass_at: Date }> = await m.query(
      'SELECT last_pass_at FROM pricing_schedule_state WHERE id = 1 FOR UPDATE SKIP LOCKED',
    );
    if (!state) return { ran: false, rules: 0, campaigns: 0, products: 0 };
    const from = state.last_pass_at;
    if (now.getTime() <= from.getTime()) return { ran: true, from, to: now, rules: 0, campaigns: 0, products: 0 };
    const crossed = `((starts_at > $1 AND starts_at <= $2) OR (ends_at > $1 AND ends_at <= $2))`;
    const rules: Array<{ id: string; tenant_id: string; store_id: string; scope: TargetScope; target_ids: string[] }> = await m.query(
      `SELECT id, tenant_id, store_id, scope, target_ids FROM pricing_rules WHERE is_active AND cardinality(customer_groups) = 0 AND ${crossed}`,
      [from, now],
    );
    const campaigns: Array<{
      id: string;
      tenant_id: string;
      store_id: string;
      items: Array<{ kind: 'PRODUCT' | 'CATEGORY'; targetId: string }>;
    }> = await m.query(
      `SELECT c.id, c.tenant_id, c.store_id,
              coalesce((SELECT json_agg(json_build_object('kind', i.kind, 'targetId', i.target_id)) FROM flash_sale_items i WHERE i.campaign_id = c.id), '[]') AS items
         FROM flash_sale_campaigns c WHERE c.status = 'PUBLISHED' AND ${crossed}`,
      [from, now],
    );
    let products = 0;
    for (const rule of rules) {
      const ids = await affectedProducts(m, rule.store_id, rule.scope, rule.target_ids);
      products += await enqueueRepricing(m, rule.tenant_id, ids, { pricingRuleId: rule.id, change: 'window' });
    }
    for (const campaign of campaigns) {
      const ids = await campaignProducts(m, campaign.store_id, campaign.items);
      products += await enqueueRepricing(m, campaign.tenant_id, ids, { flashSaleCampaignId: campaign.id, change: 'window' });
    }
    await m.query('UPDATE pricing_schedule_state SET last_pass_at = $1 WHERE id = 1', [now]);
    return { ran: true, from, to: now, rules: rules.length, campaigns: campaigns.length, products };
  });
}

/** Runs a pass every `intervalMs` until stopped (the jobs role starts it). */
export function startPricingScheduler(dataSource: DataSource, logger: Logger, intervalMs = SCHEDULER_INTERVAL_MS): PeriodicTask {
  return startPeriodicTask({
    logger,
    failureKey: 'pricing:pass',
    failureMessage: 'pricing scheduler pass failed; retrying',
    intervalMs,
    run: async () => {
      const pass = await runPricingSchedulerPass(dataSource);
      if (pass.products > 0)
        logger.info(
          { rules: pass.rules, campaigns: pass.campaigns, products: pass.products },
          'pricing windows opened or closed; products queued for re-indexing',
        );
    },
  });
}
