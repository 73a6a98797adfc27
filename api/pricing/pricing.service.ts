/**
 * Price rules of a store (merchant CRUD) and price computation.
 *
 * Every write records one audit entry (`pricing_rule.create|update|delete`) and one outbox row for
 * the rule (queue index, aggregate pricing_rule) in its transaction, plus, when the write changes a
 * price anyone sees now (a rule without customer groups whose window contains now, before or after
 * the write), one `product.repriced` index row per published product the rule reaches before or after
 * (api/pricing/reprice.ts). Windows that open or close later are the scheduler's. A PATCH that changes
 * nothing writes nothing.
 */
import { PricingRule } from '../../storage/entities';
import type { PricingRuleScope, PricingRuleTier, PricingRuleType } from '../../storage/entities/pricing-rule.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { NotFoundError, ValidationError } from '../../lib/errors';
import { formatUnits, toUnits } from '../../domain/money';
import { requireStore } from '../../domain/store-access';
import { priceLines, type PricedLine } from '../../domain/pricing-engine';
import { affectedProducts, enqueueRepricing } from './reprice';
import { pricingError } from './pricing.errors';
import type { ComputeProductPriceDto, CreatePricingRuleDto, UpdatePricingRuleDto } from './pricing.schemas';
import type { InputOf } from '../http/typed-schema';

/** A rule's own settings as the API reads and writes them (its window aside: text out, dates in). */
interface RuleSettings {
  name: string;
  type: PricingRuleType;
  value: number;
  scope: PricingRuleScope;
  targetIds: string[];
  customerGroups: string[];
  tiers: Array<{ minQuantity: number; value: number }>;
  priority: number;
  stackable: boolean;
  isActive: boolean;
}

export interface PricingRuleView extends RuleSettings {
  id: string;
  storeId: string;
  startsAt: string | null;
  endsAt: string | null;
  state: 'ACTIVE' | 'SCHEDULED' | 'EXPIRED' | 'INACTIVE';
  createdAt: string;
  updatedAt: string;
}

/** Canonical decimal string of an amount (numeric text or validated JSON number). */
const amount = (value: string | number): string => formatUnits(toUnits(value), 4);

function stateOf(row: Pick<PricingRule, 'isActive' | 'startsAt' | 'endsAt'>, now = new Date()): PricingRuleView['state'] {
  if (!row.isActive) return 'INACTIVE';
  if (row.startsAt && row.startsAt.getTime() > now.getTime()) return 'SCHEDULED';
  if (row.endsAt && row.endsAt.getTime() <= now.getTime()) return 'EXPIRED';
  return 'ACTIVE';
}

export function ruleView(row: PricingRule): PricingRuleView {
  return {
    id: row.id,
    storeId: row.storeId,
    name: row.name,
    type: row.type,
    value: Number(amount(row.value)),
    scope: row.scope,
    targetIds: row.targetIds,
    customerGroups: row.customerGroups,
    tiers: row.tiers.map((t) => ({ minQuantity: t.minQuantity, value: Number(amount(t.value)) })),
    startsAt: row.startsAt ? row.startsAt.toISOString() : null,
    endsAt: row.endsAt ? row.endsAt.toISOString() : null,
    priority: row.priority,
    stackable: row.stackable,
    isActive: row.isActive,
    state: stateOf(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const notFound = (): NotFoundError => pricingError('pricing_rule_not_found', 'The price rule does not exist.');

type Fields = Pick<
  PricingRule,
  | 'name'
  | 'type'
  | 'value'
  | 'scope'
  | 'targetIds'
  | 'customerGroups'
  | 'tiers'
  | 'startsAt'
  | 'endsAt'
  | 'priority'
  | 'stackable'
  | 'isActive'
>;

/** What the audit log keeps and what decides whether a PATCH changed anything. */
const fields = (row: Fields): Record<string, unknown> => ({
  name: row.name,
  type: row.type,
  value: amount(row.value),
  scope: row.scope,
  targetIds: row.targetIds,
  customerGroups: row.customerGroups,
  tiers: row.tiers.map((t) => ({ minQuantity: t.minQuantity, value: amount(t.value) })),
  startsAt: row.startsAt ? row.startsAt.toISOString() : null,
  endsAt: row.endsAt ? row.endsAt.toISOString() : null,
  priority: row.priority,
  stackable: row.stackable,
  isActive: row.isActive,
});

const PERCENT_MAX = toUnits(100);

/** The checks that need the whole rule: value bounds by type, targets by scope, the window. */
function checkRule(next: Fields): void {
  const errors: Array<{ path: string; message: string }> = [];
  const checkValue = (value: string, path: string): void => {
    if (next.type !== 'PERCENT') return;
    const units = toUnits(value);
    if (units > PERCENT_MAX) errors.push({ path, message: 'a PERCENT value must be at most 100' });
    else if (units % 100n !== 0n) errors.push({ path, message: 'a PERCENT value has at most 2 decimals' });
  };
  checkValue(next.value, 'body.value');
  next.tiers.forEach((t, i) => checkValue(t.value, `body.tiers[${i}].value`));
  if (next.scope === 'ALL' && next.targetIds.length > 0)
    errors.push({ path: 'body.targetIds', message: 'targetIds must be empty when scope is ALL' });
  if (next.scope !== 'ALL' && next.targetIds.length === 0)
    errors.push({
      path: 'body.targetIds',
      message: `targetIds must name at least one ${next.scope.toLowerCase()} for scope ${next.scope}`,
    });
  if (next.startsAt && next.endsAt && next.endsAt.getTime() <= next.startsAt.getTime())
    errors.push({ path: 'body.endsAt', message: 'endsAt must be after startsAt' });
  if (errors.length > 0) throw new ValidationError(errors.map((e) => e.message).join('; '), errors);
}

const TARGET_TABLES: Record<Exclude<PricingRuleScope, 'ALL'>, string> = {
  PRODUCTS: 'products',
  CATEGORIES: 'categories',
  BRANDS: 'brands',
  COLLECTIONS: 'collections',
};

/** Every target id must be a product/category/brand/collection of the store (404 target_not_found). */
async function checkTargets(tx: RequestContext, storeId: string, scope: PricingRuleScope, ids: string[]): Promise<void> {
  if (scope === 'ALL' || ids.length === 0) return;
  const rows: Array<{ id: string }> = await tx.manager.query(
    `SELECT id FROM ${TARGET_TABLES[scope]} WHERE store_id = $1 AND id = ANY($2::uuid[])`,
    [storeId, ids],
  );
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.map((id, i) => ({ id, i })).filter(({ id }) => !found.has(id));
  if (missing.length > 0) {
    throw pricingError(
      'target_not_found',
      `${missing.length} of the targetIds ${missing.length === 1 ? 'is' : 'are'} not ${scope.toLowerCase()} of the store.`,
      missing.map(({ i }) => ({
        path: `body.targetIds[${i}]`,
        message: `not a ${scope.toLowerCase().replace(/s$/, '').replace(/ie$/, 'y')} of the store`,
      })),
    );
  }
}

/** Whether the rule changes the price anyone sees right now. */
const publicNow = (row: Fields, now: Date): boolean => row.customerGroups.length === 0 && stateOf(row, now) === 'ACTIVE';

async function repriceFor(tx: RequestContext, storeId: string, ruleId: string, change: string, versions: Fields[]): Promise<void> {
  const now = new Date();
  const relevant = versions.filter((v) => publicNow(v, now));
  const ids = new Set<string>();
  for (const v of relevant) for (const id of await affectedProducts(tx.manager, storeId, v.scope, v.targetIds)) ids.add(id);
  await enqueueRepricing(tx.manager, tx.tenantId!, [...ids], { pricingRuleId: ruleId, change });
}

const ruleEvent = (row: PricingRule, verb: 'created' | 'updated' | 'deleted'): OutboxEvent => ({
  queue: 'index' as const,
  topic: `pricing_rule.${verb}`,
  aggregateType: 'pricing_rule',
  aggregateId: row.id,
  payload: { storeId: row.storeId },
});

const sortTiers = (tiers: Array<{ minQuantity: number; value: number | string }>): PricingRuleTier[] =>
  [...tiers].sort((a, b) => a.minQuantity - b.minQuantity).map((t) => ({ minQuantity: t.minQuantity, value: amount(t.value) }));

// ---- list ----------------------------------------------------------------------------------------

export interface ListRulesQuery {
  storeId: string;
  cursor?: string;
  limit: number;
}

export async function listRules(
  ctx: RequestContext,
  query: ListRulesQuery,
): Promise<{ items: PricingRuleView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  const qb = tenantRepository(ctx, PricingRule).createQueryBuilder('r').andWhere('r.storeId = :storeId', { storeId: store.id });
  if (query.cursor !== undefined) qb.andWhere('r.id < :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('r.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(ruleView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

// ---- create --------------------------------------------------------------------------------------

export type CreateRuleInput = InputOf<typeof CreatePricingRuleDto>;

export async function createRule(ctx: RequestContext, body: CreateRuleInput): Promise<PricingRuleView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, body.storeId, { forWrite: true });
    const now = new Date();
    const next: Fields = {
      name: body.name,
      type: body.type,
      value: amount(body.value),
      scope: body.scope,
      targetIds: body.targetIds.map((id) => id.toLowerCase()),
      customerGroups: body.customerGroups,
      tiers: sortTiers(body.tiers),
      startsAt: body.startsAt ?? null,
      endsAt: body.endsAt ?? null,
      priority: body.priority,
      stackable: body.stackable,
      isActive: body.isActive,
    };
    checkRule(next);
    await checkTargets(tx, store.id, next.scope, next.targetIds);
    const rules = tenantRepository(tx, PricingRule, notFound);
    const row = rules.create({ id: uuidv7(), storeId: store.id, ...next, createdAt: now, updatedAt: now });
    await tx.manager.insert(PricingRule, row);
    await recordAudit(tx, {
      action: 'pricing_rule.create',
      resourceType: 'pricing_rule',
      resourceId: row.id,
      after: { storeId: store.id, ...fields(row) },
    });
    await enqueueOutbox(tx, ruleEvent(row, 'created'));
    await repriceFor(tx, store.id, row.id, 'created', [next]);
    return ruleView(row);
  });
}

// ---- update and delete ---------------------------------------------------------------------------

async function loadForWrite(tx: RequestContext, id: string): Promise<PricingRule> {
  const rules = tenantRepository(tx, PricingRule, notFound);
  const found = await rules.findOne({ where: { id }, select: { id: true, storeId: true } });
  if (!found) throw notFound();
  if (tx.actor.type === 'api_key' && tx.actor.storeId !== found.storeId) throw notFound();
  await requireStore(tx, found.storeId, { forWrite: true });
  const row = await rules.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!row) throw notFound();
  return row;
}

export type UpdateRuleInput = InputOf<typeof UpdatePricingRuleDto>;

export async function updateRule(ctx: RequestContext, id: string, body: UpdateRuleInput): Promise<PricingRuleView> {
  return inTransaction(ctx, async (tx) => {
    const row = await loadForWrite(tx, id);
    const scopeChanged = body.scope !== undefined && body.scope !== row.scope;
    const next: Fields = {
      name: body.name ?? row.name,
      type: body.type ?? row.type,
      value: body.value !== undefined ? amount(body.value) : row.value,
      scope: body.scope ?? row.scope,
      // A new scope without new targets: ALL needs none, other scopes need theirs (400 below).
      targetIds: body.targetIds !== undefined ? body.targetIds.map((t) => t.toLowerCase()) : scopeChanged ? [] : row.targetIds,
      customerGroups: body.customerGroups ?? row.customerGroups,
      tiers: body.tiers !== undefined ? sortTiers(body.tiers) : row.tiers,
      startsAt: body.startsAt !== undefined ? body.startsAt : row.startsAt,
      endsAt: body.endsAt !== undefined ? body.endsAt : row.endsAt,
      priority: body.priority ?? row.priority,
      stackable: body.stackable ?? row.stackable,
      isActive: body.isActive ?? row.isActive,
    };
    checkRule(next);
    if (body.targetIds !== undefined || scopeChanged) await checkTargets(tx, row.storeId, next.scope, next.targetIds);
    const before = fields(row);
    const after = fields(next);
    if (JSON.stringify(before) === JSON.stringify(after)) return ruleView(row);
    const now = new Date();
    await tenantRepository(tx, PricingRule).update({ id: row.id }, { ...next, updatedAt: now });
    await recordAudit(tx, { action: 'pricing_rule.update', resourceType: 'pricing_rule', resourceId: row.id, before, after });
    await enqueueOutbox(tx, ruleEvent(row, 'updated'));
    await repriceFor(tx, row.storeId, row.id, 'updated', [row, next]);
    return ruleView({ ...row, ...next, updatedAt: now });
  });
}

export async function deleteRule(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const row = await loadForWrite(tx, id);
    await tenantRepository(tx, PricingRule).delete({ id: row.id });
    await recordAudit(tx, {
      action: 'pricing_rule.delete',
      resourceType: 'pricing_rule',
      resourceId: row.id,
      before: { storeId: row.storeId, ...fields(row) },
    });
    await enqueueOutbox(tx, ruleEvent(row, 'deleted'));
    await repriceFor(tx, row.storeId, row.id, 'deleted', [row]);
  });
}

// ---- compute -------------------------------------------------------------------------------------

export type ComputeInput = InputOf<typeof ComputeProductPriceDto>;

export interface ComputeResult {
  storeId: string;
  currency: string;
  at: string;
  customerGroups: string[];
  items: Array<Omit<PricedLine, 'productStatus' | 'currency'>>;
  totals: { subtotal: number; discount: number; total: number };
}

export async function computePrices(ctx: RequestContext, body: ComputeInput): Promise<ComputeResult> {
  const store = await requireStore(ctx, body.storeId);
  const groups = new Set(body.customerGroups ?? []);
  if (body.customerId !== undefined) {
    const [customer]: Array<{ tags: string[] }> = await ctx.manager.query(
      'SELECT tags FROM customers WHERE id = $1 AND store_id = $2 AND tenant_id = $3',
      [body.customerId, store.id, ctx.tenantId],
    );
    if (!customer)
      throw pricingError('customer_not_found', 'The customer does not exist in this store.', [
        { path: 'body.customerId', message: 'customer not found in the store' },
      ]);
    for (const tag of customer.tags) groups.add(tag.trim().toLowerCase());
  }
  const at = body.at ?? new Date();
  const cart = await priceLines(ctx.manager, store.id, body.items, at, { customerGroups: [...groups] });
  return {
    storeId: store.id,
    currency: cart.currency,
    at: at.toISOString(),
    customerGroups: [...groups].sort(),
    items: cart.lines.map(({ productStatus: _s, currency: _c, ...line }) => line),
    totals: cart.totals,
  };
}
