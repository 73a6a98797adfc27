/**
 * Orders (docs/commerce.md, "Orders"). Placing an order, in one transaction:
 * 1. the store: a store API key or sandbox token acts on its own store; a member's token names it, or
 *    acts on the tenant's default store when it does not (resolveStoreId, domain/store-access.ts);
 * 2. the customer must be a customer of that store, each variant a variant of that store's products
 *    (404 customer_not_found / variant_not_found, also for another tenant's ids);
 * 3. the variants are locked (SELECT … FOR UPDATE, in id order so concurrent orders cannot deadlock),
 *    every line's stock is checked, and only when all lines fit is the stock decremented; otherwise
 *    409 insufficient_stock and nothing is reserved;
 * 4. the lines are priced by the pricing engine (the variant's price, else the product's, with the
 *    rules and running flash sales in force; unit prices in the currency's minor unit, half up; exact
 *    decimal arithmetic; flash-sale caps counted),
 *    the order and its lines are stored, the products' sales counts grow by the quantities (one index
 *    outbox row per product, so the best_selling sort sees it), one audit entry order.create, and the
 *    event order.placed.
 * Cancelling puts the stock back, takes the quantities off the sales counts (a cancelled order is not
 * a sale), records order.cancel and emits order.cancelled; cancelling a cancelled order changes nothing
 * and answers the order as it is (idempotent).
 */
import { Customer, Order, OrderItem } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { NotFoundError, type FieldError } from '../../lib/errors';
import { priceLines } from '../../domain/pricing-engine';
import { recordFlashSaleSales } from '../flash-sales/flash-sales.stock';
import { formatUnits, rescale, RESULT_DECIMALS, SCALE, toUnits, unitsToNumber } from '../../domain/money';
import { decodeCursor, encodeCursor, isDate, isUuid } from '../http/cursor';
import { requireStore, resolveStoreId } from '../../domain/store-access';
import { emitEvent } from '../webhooks/events';
import { ordersError } from './orders.errors';
import type { CreateOrderDto } from './orders.schemas';
import type { InputOf } from '../http/typed-schema';

export type CreateOrderInput = InputOf<typeof CreateOrderDto>;

export interface ListOrdersInput {
  storeId: string;
  customerId?: string;
  status?: 'PLACED' | 'CANCELLED';
  limit: number;
  cursor?: string;
}

export const orderNotFound = (): NotFoundError => ordersError('order_not_found', 'The order does not exist.');

const money = (value: string): number => unitsToNumber(toUnits(value), SCALE);

export function orderView(order: Order, items: OrderItem[]) {
  return {
    id: order.id,
    storeId: order.storeId,
    customerId: order.customerId,
    status: order.status,
    currency: order.currency,
    subtotal: money(order.subtotal),
    total: money(order.total),
    itemCount: order.itemCount,
    shippingAddress: { city: order.shippingCity, district: order.shippingDistrict },
    items: items.map((i) => ({
      id: i.id,
      productId: i.productId,
      variantId: i.variantId,
      title: i.title,
      sku: i.sku,
      options: i.options,
      quantity: i.quantity,
      unitPrice: money(i.unitPrice),
      lineTotal: money(i.lineTotal),
    })),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    cancelledAt: order.cancelledAt?.toISOString() ?? null,
  };
}

export type OrderViewBody = ReturnType<typeof orderView>;

/** The data of order.placed / order.cancelled: the fields the specification names plus what a receiver needs to act on it. */
export function orderEventData(view: OrderViewBody): Record<string, unknown> {
  return {
    orderId: view.id,
    total: view.total,
    currency: view.currency,
    customerId: view.customerId,
    storeId: view.storeId,
    status: view.status,
    itemCount: view.itemCount,
    items: view.items.map((i) => ({
      productId: i.productId,
      variantId: i.variantId,
      sku: i.sku,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      lineTotal: i.lineTotal,
    })),
    shippingAddress: view.shippingAddress,
    createdAt: view.createdAt,
    ...(view.cancelledAt ? { cancelledAt: view.cancelledAt } : {}),
  };
}

interface LockedVariant {
  id: string;
  product_id: string;
  sku: string | null;
  options: Record<string, string>;
  variant_price: string | null;
  stock: number;
  title: string;
  product_price: string;
  currency: string;
  status: string;
}

/** Adds `delta` to the sales count of each product (never below 0) and queues each for re-indexing. */
async function changeSalesCounts(
  tx: RequestContext,
  quantities: Map<string, number>,
  delta: 1 | -1,
  topic: 'product.sales_changed',
): Promise<void> {
  const ids = [...quantities.keys()].sort();
  if (ids.length === 0) return;
  await tx.manager.query(
    `UPDATE products p SET sales_count = GREATEST(p.sales_count + $3 * q.qty, 0)
       FROM unnest($1::uuid[], $2::int[]) AS q(id, qty)
      WHERE p.id = q.id AND p.tenant_id = $4`,
    [ids, ids.map((id) => quantities.get(id)!), delta, tx.tenantId],
  );
  await enqueueOutbox(
    tx,
    ids.map((id): OutboxEvent => ({ queue: 'index', topic, aggregateType: 'product', aggregateId: id })),
  );
}

/** What a caller other than POST /orders adds to an order (the storefront checkout). */
export interface CreateOrderOptions {
  /** A shipping charge (decimal text) carried in the order's total: total = subtotal + shipping, rounded half up to 2 decimals. */
  shippingCharge?: string;
  /** Price with these customer groups instead of the customer's tags (the storefront checkout: none, the shopper is not signed in). */
  customerGroups?: readonly string[];
}

export async function createOrder(ctx: RequestContext, input: CreateOrderInput, options: CreateOrderOptions = {}): Promise<OrderViewBody> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, await resolveStoreId(tx, input.storeId, 'body'), { forWrite: true });
    const customer = await tenantRepository(tx, Customer).findOneBy({ id: input.customerId.toLowerCase(), storeId: store.id });
    if (!customer) throw ordersError('customer_not_found', 'The customer is not a customer of this store.');

    // Merge lines of the same variant (first position wins), remembering where each came from.
    const lines = new Map<string, { quantity: number; index: number }>();
    input.items.forEach((item, index) => {
      const id = item.variantId.toLowerCase();
      const line = lines.get(id);
      if (line) line.quantity += item.quantity;
      else lines.set(id, { quantity: item.quantity, index });
    });
    const variants: LockedVariant[] = await tx.manager.query(
      `SELECT v.id, v.product_id, v.sku, v.options, v.price AS variant_price, v.stock, p.title, p.price AS product_price, p.currency, p.status
         FROM product_variants v JOIN products p ON p.id = v.product_id
        WHERE v.id = ANY($1::uuid[]) AND v.store_id = $2 AND v.tenant_id = $3
        ORDER BY v.id
        FOR UPDATE OF v`,
      [[...lines.keys()], store.id, tx.tenantId],
    );
    const byId = new Map(variants.map((v) => [v.id, v]));
    const missing = [...lines].filter(([id]) => !byId.has(id));
    if (missing.length) {
      const errors = missing.map(([, l]) => ({ path: `body.items[${l.index}].variantId`, message: 'no such variant in this store' }));
      throw ordersError('variant_not_found', 'A variant is not a variant of a product of this store.', errors);
    }
    const unavailable: FieldError[] = [];
    const short: FieldError[] = [];
    for (const [id, line] of lines) {
      const v = byId.get(id)!;
      if (v.status === 'ARCHIVED') unavailable.push({ path: `body.items[${line.index}].variantId`, message: 'the product is archived' });
      else if (v.stock < line.quantity)
        short.push({ path: `body.items[${line.index}].quantity`, message: `only ${v.stock} in stock, ${line.quantity} ordered` });
    }
    if (unavailable.length) throw ordersError('product_unavailable', 'An archived product cannot be ordered.', unavailable);
    if (short.length) throw ordersError('insufficient_stock', 'Not enough stock for every line; nothing was reserved.', short);
    const currencies = new Set(variants.map((v) => v.currency.trim()));
    if (currencies.size > 1)
      throw ordersError(
        'mixed_currencies',
        `The products are priced in different currencies (${[...currencies].sort().join(', ')}); place one order per currency.`,
      );

    const ordered = [...lines].sort((a, b) => a[1].index - b[1].index);
    await tx.manager.query(
      `UPDATE product_variants v SET stock = v.stock - q.qty FROM unnest($1::uuid[], $2::int[]) AS q(id, qty) WHERE v.id = q.id`,
      [ordered.map(([id]) => id), ordered.map(([, l]) => l.quantity)],
    );

    const now = new Date();
    // The pricing engine prices the lines as the shopper saw them: rules (the customer's tags are its
    // groups) and running flash sales, whose capped stock is counted in this transaction.
    const cart = await priceLines(
      tx.manager,
      store.id,
      ordered.map(([id, line]) => ({ productId: byId.get(id)!.product_id, variantId: id, quantity: line.quantity })),
      now,
      { customerGroups: options.customerGroups ?? customer.tags.map((t) => t.toLowerCase()) },
    );
    await recordFlashSaleSales(tx, cart.lines);
    const orderId = uuidv7();
    let subtotal = 0n;
    let itemCount = 0;
    const sales = new Map<string, number>();
    const items: OrderItem[] = ordered.map(([id, line], position) => {
      const v = byId.get(id)!;
      const unit = toUnits(cart.lines[position]!.unitPrice);
      const lineTotal = unit * BigInt(line.quantity);
      subtotal += lineTotal;
      itemCount += line.quantity;
      sales.set(v.product_id, (sales.get(v.product_id) ?? 0) + line.quantity);
      return tx.manager.create(OrderItem, {
        id: uuidv7(),
        tenantId: tx.tenantId!,
        orderId,
        productId: v.product_id,
        variantId: v.id,
        title: v.title,
        sku: v.sku,
        options: v.options ?? {},
        quantity: line.quantity,
        unitPrice: formatUnits(unit, SCALE),
        lineTotal: formatUnits(lineTotal, SCALE),
        position,
      });
    });
    const total = rescale(subtotal + (options.shippingCharge ? toUnits(options.shippingCharge) : 0n), SCALE, RESULT_DECIMALS);
    const order = tx.manager.create(Order, {
      id: orderId,
      tenantId: tx.tenantId!,
      storeId: store.id,
      customerId: customer.id,
      status: 'PLACED',
      currency: [...currencies][0]!,
      subtotal: formatUnits(subtotal, SCALE),
      total: formatUnits(total, RESULT_DECIMALS),
      itemCount,
      shippingCity: input.shippingAddress.city,
      shippingDistrict: input.shippingAddress.district,
      createdAt: now,
      updatedAt: now,
      cancelledAt: null,
    });
    await tx.manager.insert(Order, order);
    await tx.manager.insert(OrderItem, items);
    await changeSalesCounts(tx, sales, 1, 'product.sales_changed');
    const view = orderView(order, items);
    await recordAudit(tx, {
      action: 'order.create',
      resourceType: 'order',
      resourceId: order.id,
      after: { storeId: store.id, customerId: customer.id, total: order.total, currency: order.currency, itemCount },
    });
    await emitEvent(tx, { topic: 'order.placed', data: orderEventData(view) });
    return view;
  });
}

/** The order `id` of the caller's tenant (and of the API key's store), or 404. */
async function loadOrder(ctx: RequestContext, id: string, lock = false): Promise<Order> {
  const orders = tenantRepository(ctx, Order, orderNotFound);
  const order = lock
    ? await orders.findOne({ where: { id: id.toLowerCase() }, lock: { mode: 'pessimistic_write' } })
    : await orders.findOneBy({ id: id.toLowerCase() });
  if (!order) throw orderNotFound();
  // The store must be the caller's (an API key sees its own store only); an archived store's orders stay readable.
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== order.storeId) throw orderNotFound();
  return order;
}

async function itemsOf(ctx: RequestContext, orderIds: string[]): Promise<Map<string, OrderItem[]>> {
  const out = new Map<string, OrderItem[]>();
  if (orderIds.length === 0) return out;
  const rows = await tenantRepository(ctx, OrderItem)
    .createQueryBuilder('i')
    .andWhere('i.orderId IN (:...orderIds)', { orderIds })
    .orderBy('i.orderId')
    .addOrderBy('i.position')
    .getMany();
  for (const row of rows) {
    const bucket = out.get(row.orderId);
    if (bucket) bucket.push(row);
    else out.set(row.orderId, [row]);
  }
  return out;
}

export async function getOrder(ctx: RequestContext, id: string): Promise<OrderViewBody> {
  const order = await loadOrder(ctx, id);
  return orderView(order, (await itemsOf(ctx, [order.id])).get(order.id) ?? []);
}

export async function cancelOrder(ctx: RequestContext, id: string): Promise<OrderViewBody> {
  return inTransaction(ctx, async (tx) => {
    const order = await loadOrder(tx, id, true);
    const items = (await itemsOf(tx, [order.id])).get(order.id) ?? [];
    if (order.status === 'CANCELLED') return orderView(order, items);
    await requireStore(tx, order.storeId, { forWrite: true });
    const restock = items.filter((i) => i.variantId).sort((a, b) => (a.variantId! < b.variantId! ? -1 : 1));
    if (restock.length) {
      await tx.manager.query(
        `UPDATE product_variants v SET stock = v.stock + q.qty FROM unnest($1::uuid[], $2::int[]) AS q(id, qty) WHERE v.id = q.id AND v.tenant_id = $3`,
        [restock.map((i) => i.variantId), restock.map((i) => i.quantity), tx.tenantId],
      );
    }
    const sales = new Map<string, number>();
    for (const i of items) if (i.productId) sales.set(i.productId, (sales.get(i.productId) ?? 0) + i.quantity);
    await changeSalesCounts(tx, sales, -1, 'product.sales_changed');
    const now = new Date();
    await tx.manager.update(Order, { id: order.id }, { status: 'CANCELLED', cancelledAt: now, updatedAt: now });
    const cancelled = Object.assign(order, { status: 'CANCELLED' as const, cancelledAt: now, updatedAt: now });
    const view = orderView(cancelled, items);
    await recordAudit(tx, {
      action: 'order.cancel',
      resourceType: 'order',
      resourceId: order.id,
      before: { status: 'PLACED' },
      after: { status: 'CANCELLED' },
    });
    await emitEvent(tx, { topic: 'order.cancelled', data: orderEventData(view) });
    return view;
  });
}

/** Orders page newest first by (createdAt, id); the cursor is the last row's pair. */
const orderCursor = (order: Order): string => encodeCursor([order.createdAt.toISOString(), order.id]);

export async function listOrders(
  ctx: RequestContext,
  input: ListOrdersInput,
): Promise<{ items: OrderViewBody[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, input.storeId);
  const query = tenantRepository(ctx, Order)
    .createQueryBuilder('o')
    .andWhere('o.storeId = :storeId', { storeId: store.id })
    .orderBy('o.createdAt', 'DESC')
    .addOrderBy('o.id', 'DESC')
    .limit(input.limit + 1);
  if (input.customerId) query.andWhere('o.customerId = :customerId', { customerId: input.customerId.toLowerCase() });
  if (input.status) query.andWhere('o.status = :status', { status: input.status });
  if (input.cursor !== undefined) {
    const [afterAt, afterId] = decodeCursor(input.cursor, { accepts: ([at, id]) => isDate(at) && isUuid(id) });
    query.andWhere('(o.createdAt, o.id) < (:afterAt, :afterId)', { afterAt, afterId });
  }
  const rows = await query.getMany();
  const page = rows.slice(0, input.limit);
  const items = await itemsOf(
    ctx,
    page.map((o) => o.id),
  );
  return {
    items: page.map((o) => orderView(o, items.get(o.id) ?? [])),
    nextCursor: rows.length > input.limit ? orderCursor(page[page.length - 1]!) : null,
  };
}
