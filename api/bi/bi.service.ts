/**
 * The business intelligence reports of a store (docs/insight.md, "Business intelligence"): read-only
 * aggregates over the store's placed orders (a cancelled order counts nowhere), their lines, payments,
 * customers and storefront checkouts. Amounts are summed exactly in numeric and answered as JSON
 * numbers rounded half up to 2 decimals (domain/money.ts); days and months are those of the store's
 * time zone.
 */
import { requireStore } from '../../domain/store-access';
import { divideHalfUp, RESULT_DECIMALS, rescale, SCALE, toUnits, unitsToNumber } from '../../domain/money';
import type { RequestContext } from '../../storage/request-context';
import { biError } from './bi.errors';
import * as SQL from './bi.sql';

/** A decimal string of 4 decimals as a money amount of 2 decimals (half up). */
const money = (units: bigint): number => unitsToNumber(rescale(units, SCALE, RESULT_DECIMALS), RESULT_DECIMALS);
/** `total / count` in cents, half up. */
const average = (units: bigint, count: number): number =>
  unitsToNumber(divideHalfUp(rescale(units, SCALE, RESULT_DECIMALS), BigInt(count)), RESULT_DECIMALS);
/** A share of two counts with 4 decimals; null when there is nothing to share. */
const rate = (part: number, whole: number): number | null =>
  whole > 0 ? Number(divideHalfUp(BigInt(part) * 10_000n, BigInt(whole))) / 10_000 : null;

export const CONVERSION_UNAVAILABLE =
  'Product views are counted per product over its lifetime, not per day, so no conversion rate can be computed for a window of days.';
export const COST_UNKNOWN = 'Products carry no cost price, so the cost of goods and the gross profit are unknown.';
export const DISCOUNTS_UNKNOWN =
  'Orders store the prices after pricing rules and flash sales, not the discount given, so discounts are unknown.';

interface Scope {
  storeId: string;
  currency: string;
  timeZone: string;
}

async function scopeOf(ctx: RequestContext, storeId: string): Promise<Scope> {
  const store = await requireStore(ctx, storeId);
  return { storeId: store.id, currency: store.currency, timeZone: store.timezone || 'UTC' };
}

interface Window {
  since: Date;
  until: Date;
  from: string;
  to: string;
}

const QUARTER_HOUR = 15 * 60_000;
const UTC_DAY = 86_400_000;
const floorTo = (at: Date, step: number): Date => new Date(Math.floor(at.getTime() / step) * step);
const ceilTo = (at: Date, step: number): Date => new Date(Math.ceil(at.getTime() / step) * step);

/**
 * The window's instants and the part of it the quarter-hour summaries cover whole (`lo` to `hi`):
 * the arguments $2 to $5 of the order window queries of bi.sql.ts.
 */
const quarterHours = (since: Date, until: Date): [Date, Date, Date, Date] => [
  since,
  until,
  ceilTo(since, QUARTER_HOUR),
  floorTo(until, QUARTER_HOUR),
];

/** Whether the store has placed orders after `until`: then the summaries, which count every order, do not answer for the window. */
async function ordersAfter(ctx: RequestContext, scope: Scope, until: Date): Promise<boolean> {
  const [row] = (await ctx.manager.query(SQL.ORDERS_AFTER, [scope.storeId, until])) as Array<{ later: boolean }>;
  return row!.later;
}

/** The last `days` days of the store's calendar, today included, up to now. */
async function windowOf(ctx: RequestContext, scope: Scope, days: number, now: Date): Promise<Window> {
  const [row] = (await ctx.manager.query(SQL.WINDOW, [now, scope.timeZone, days])) as Array<{
    since: Date;
    first_day: string;
    last_day: string;
  }>;
  return { since: row!.since, until: now, from: row!.first_day, to: row!.last_day };
}

const header = (scope: Scope, window: Window, days: number) => ({
  storeId: scope.storeId,
  currency: scope.currency,
  timeZone: scope.timeZone,
  days,
  from: window.from,
  to: window.to,
});

export interface ProfitLossQuery {
  storeId: string;
  from: string;
  to: string;
}

export async function profitLoss(ctx: RequestContext, query: ProfitLossQuery) {
  if (query.to < query.from)
    throw biError('bi_period_invalid', 'to must not be before from.', [{ path: 'query.to', message: 'must not be before from' }]);
  const scope = await scopeOf(ctx, query.storeId);
  const dayAfter = new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const [period] = (await ctx.manager.query(SQL.PERIOD, [query.from, dayAfter, scope.timeZone])) as Array<{ since: Date; until: Date }>;
  const args = [scope.storeId, period!.since, period!.until];
  const [orders] = (await ctx.manager.query(SQL.PROFIT_LOSS_ORDERS, [
    scope.storeId,
    ...quarterHours(period!.since, period!.until),
  ])) as Array<{
    orders: number;
    gross_sales: string;
    shipping: string;
  }>;
  const [refunds] = (await ctx.manager.query(SQL.PROFIT_LOSS_REFUNDS, args)) as Array<{ refunds: string }>;
  const gross = toUnits(orders!.gross_sales);
  const shipping = toUnits(orders!.shipping);
  const refunded = toUnits(refunds!.refunds);
  return {
    storeId: scope.storeId,
    currency: scope.currency,
    timeZone: scope.timeZone,
    from: query.from,
    to: query.to,
    orders: orders!.orders,
    grossSales: money(gross),
    discounts: null,
    shipping: money(shipping),
    refunds: money(refunded),
    netRevenue: money(gross + shipping - refunded),
    costOfGoods: null,
    grossProfit: null,
    notes: [DISCOUNTS_UNKNOWN, COST_UNKNOWN],
  };
}

export interface DaysQuery {
  storeId: string;
  days: number;
}

export async function kpis(ctx: RequestContext, query: DaysQuery, now = new Date()) {
  const scope = await scopeOf(ctx, query.storeId);
  const window = await windowOf(ctx, scope, query.days, now);
  const [sums] = (await ctx.manager.query(SQL.KPIS_ORDERS, [scope.storeId, ...quarterHours(window.since, window.until)])) as Array<{
    orders: number;
    revenue: string;
  }>;
  const [people] = (
    (await ordersAfter(ctx, scope, window.until))
      ? await ctx.manager.query(SQL.KPIS_CUSTOMERS_FROM_ORDERS, [scope.storeId, window.since, window.until])
      : await ctx.manager.query(SQL.KPIS_CUSTOMERS, [scope.storeId, window.since])
  ) as Array<{ customers: number; new_customers: number }>;
  const revenue = toUnits(sums!.revenue);
  return {
    ...header(scope, window, query.days),
    revenue: money(revenue),
    orders: sums!.orders,
    averageOrderValue: sums!.orders > 0 ? average(revenue, sums!.orders) : null,
    customers: people!.customers,
    newCustomers: people!.new_customers,
    returningCustomers: people!.customers - people!.new_customers,
    conversionRate: null,
    conversionRateUnavailable: CONVERSION_UNAVAILABLE,
  };
}

export interface TopProductsQuery extends DaysQuery {
  limit: number;
}

export async function topProducts(ctx: RequestContext, query: TopProductsQuery, now = new Date()) {
  const scope = await scopeOf(ctx, query.storeId);
  const window = await windowOf(ctx, scope, query.days, now);
  const rows = (await ctx.manager.query(SQL.TOP_PRODUCTS, [
    scope.storeId,
    window.since,
    window.until,
    query.limit,
    ceilTo(window.since, UTC_DAY),
    floorTo(window.until, UTC_DAY),
  ])) as Array<{
    product_id: string | null;
    title: string;
    quantity: string;
    orders: number;
    revenue: string;
  }>;
  return {
    ...header(scope, window, query.days),
    items: rows.map((r) => ({
      productId: r.product_id,
      title: r.title,
      quantity: Number(r.quantity),
      orders: r.orders,
      revenue: money(toUnits(r.revenue)),
    })),
  };
}

export async function revenueTimeseries(ctx: RequestContext, query: DaysQuery, now = new Date()) {
  const scope = await scopeOf(ctx, query.storeId);
  const window = await windowOf(ctx, scope, query.days, now);
  const rows = (await ctx.manager.query(SQL.REVENUE_TIMESERIES, [
    scope.storeId,
    ...quarterHours(window.since, window.until),
    scope.timeZone,
    window.from,
    window.to,
  ])) as Array<{ day: string; orders: number; revenue: string }>;
  return {
    ...header(scope, window, query.days),
    points: rows.map((r) => ({ date: r.day, orders: r.orders, revenue: money(toUnits(r.revenue)) })),
  };
}

export interface CohortsQuery {
  storeId: string;
  monthsBack: number;
}

/** `YYYY-MM` of the month `offset` months after `month` (`YYYY-MM`). */
const addMonths = (month: string, offset: number): string => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const index = y * 12 + (m - 1) + offset;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
};

export async function cohorts(ctx: RequestContext, query: CohortsQuery, now = new Date()) {
  const scope = await scopeOf(ctx, query.storeId);
  const [bounds] = (await ctx.manager.query(
    `SELECT to_char($1::timestamptz AT TIME ZONE $2, 'YYYY-MM') AS current,
            ((date_trunc('month', $1::timestamptz AT TIME ZONE $2) - make_interval(months => $3::int - 1)) AT TIME ZONE $2) AS since`,
    [now, scope.timeZone, query.monthsBack],
  )) as Array<{ current: string; since: Date }>;
  const first = addMonths(bounds!.current, -(query.monthsBack - 1));
  const rows = (
    (await ordersAfter(ctx, scope, now))
      ? await ctx.manager.query(SQL.COHORTS_FROM_ORDERS, [scope.storeId, scope.timeZone, bounds!.since, now])
      : await ctx.manager.query(SQL.COHORTS, [scope.storeId, `${first}-01`])
  ) as Array<{ cohort: string; month: string; customers: number }>;
  const active = new Map(rows.map((r) => [`${r.cohort.slice(0, 7)}|${r.month.slice(0, 7)}`, r.customers]));
  const items = [];
  for (let c = 0; c < query.monthsBack; c++) {
    const month = addMonths(first, c);
    const size = active.get(`${month}|${month}`) ?? 0;
    const retention = [];
    for (let offset = 0; offset < query.monthsBack - c; offset++) {
      const customers = active.get(`${month}|${addMonths(month, offset)}`) ?? 0;
      retention.push({ monthOffset: offset, month: addMonths(month, offset), customers, rate: rate(customers, size) });
    }
    items.push({ month, customers: size, retention });
  }
  return { storeId: scope.storeId, timeZone: scope.timeZone, monthsBack: query.monthsBack, cohorts: items };
}

export async function funnel(ctx: RequestContext, query: DaysQuery, now = new Date()) {
  const scope = await scopeOf(ctx, query.storeId);
  const window = await windowOf(ctx, scope, query.days, now);
  const [row] = (await ctx.manager.query(SQL.FUNNEL, [scope.storeId, ...quarterHours(window.since, window.until)])) as Array<{
    checkouts_started: number;
    checkouts_paid: number;
    orders_placed: number;
    orders_paid: number;
    product_views_lifetime: string;
  }>;
  const r = row!;
  return {
    ...header(scope, window, query.days),
    productViews: null,
    productViewsUnavailable: CONVERSION_UNAVAILABLE,
    productViewsLifetime: Number(r.product_views_lifetime),
    stages: [
      { stage: 'CHECKOUT_STARTED', count: r.checkouts_started, rateFromPrevious: null },
      { stage: 'CHECKOUT_PAID', count: r.checkouts_paid, rateFromPrevious: rate(r.checkouts_paid, r.checkouts_started) },
      { stage: 'ORDER_PLACED', count: r.orders_placed, rateFromPrevious: null },
      { stage: 'ORDER_PAID', count: r.orders_paid, rateFromPrevious: rate(r.orders_paid, r.orders_placed) },
    ],
  };
}

export interface LimitQuery {
  storeId: string;
  limit: number;
}

export async function customerLtv(ctx: RequestContext, query: LimitQuery) {
  const scope = await scopeOf(ctx, query.storeId);
  const rows = (await ctx.manager.query(SQL.CUSTOMER_LTV, [scope.storeId, query.limit])) as Array<{
    customer_id: string;
    name: string | null;
    email: string | null;
    orders: number;
    revenue: string;
    first_at: Date;
    last_at: Date;
  }>;
  return {
    storeId: scope.storeId,
    currency: scope.currency,
    items: rows.map((r) => {
      const revenue = toUnits(r.revenue);
      return {
        customerId: r.customer_id,
        name: r.name,
        email: r.email,
        orders: r.orders,
        lifetimeRevenue: money(revenue),
        averageOrderValue: average(revenue, r.orders),
        firstOrderAt: r.first_at.toISOString(),
        lastOrderAt: r.last_at.toISOString(),
      };
    }),
  };
}
