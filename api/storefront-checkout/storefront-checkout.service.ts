/**
 * The public storefront checkout (docs/storefront.md, "Cart and checkout"). No token: every operation
 * starts from the store in the path (404 store_not_found for an unknown or archived one) and acts in
 * that store's tenant; rate-limited per client address.
 *
 * - quote: the cart's lines priced by the pricing engine (as for a shopper who is not signed in: no
 *   customer groups), their subtotal, the shipping options of the shipping quote for the address
 *   (the order value is the priced subtotal) and the total with the chosen option. Exact decimals
 *   (domain/money.ts); the total is rounded half up to 2 decimals like an order's.
 * - place: finds the store's customer by e-mail or creates one (an existing customer's details are
 *   never changed by a shopper who is not signed in), places the order through the orders service
 *   (stock reserved atomically, 409 insufficient_stock naming the lines; priced without customer
 *   groups, since an e-mail address proves nothing), with the shipping charge carried in the order's
 *   total (total = subtotal + shipping, rounded half up to 2 decimals; the shipping option is kept in
 *   storefront_checkouts), then pays the total by card (api/payments, captured at once). PAID: the
 *   order is paid; CHALLENGE_REQUIRED: the shopper completes 3-D Secure at challengeUrl and comes
 *   back to the return page; DECLINED: the order is cancelled (its stock goes back) and 402
 *   payment_declined. With an Idempotency-Key (storage/idempotency.ts) a second Pay with the same
 *   body answers what the first did and orders nothing more.
 * - return: settles a 3-D Secure challenge from the provider's signed return query: PAID, or
 *   DECLINED with the order cancelled. Settling twice changes nothing.
 * - order: the order's public view for the confirmation page, guarded by its view key (an HMAC of
 *   the order id under APP_SECRET, compared in constant time): a wrong key is a 404 like an unknown id.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { clientKey, type RateLimitRule } from '../../storage/rate-limit';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { idempotent } from '../../storage/idempotency';
import { storeNotFound } from '../../domain/store-access';
import { asPriceVisibility } from '../../domain/price-visibility';
import { priceLines } from '../../domain/pricing-engine';
import { formatUnits, rescale, RESULT_DECIMALS, SCALE, toUnits, unitsToNumber } from '../../domain/money';
import { ValidationError, type FieldError } from '../../lib/errors';
import { quoteShipping, type ShippingOption } from '../shipping-rates/shipping-quote';
import { cancelOrder, createOrder } from '../orders/orders.service';
import { ordersError } from '../orders/orders.errors';
import { TEST_CARDS } from '../sandbox/sandbox.cards';
import type { InputOf } from '../http/typed-schema';
import {
  CHECKOUT_MAX_QUANTITY,
  CHECKOUT_PROVIDERS,
  type CheckoutQuoteDto,
  type CheckoutReturnDto,
  type PlaceCheckoutDto,
} from './storefront-checkout.schemas';
import { checkoutError } from './storefront-checkout.errors';
import { payOrder, settleChallengeReturn, type CheckoutProvider } from './order-payment';

export type CheckoutQuoteInput = InputOf<typeof CheckoutQuoteDto>;
export type PlaceCheckoutInput = InputOf<typeof PlaceCheckoutDto>;
export type CheckoutReturnInput = InputOf<typeof CheckoutReturnDto>;

/** Per client address: quotes and reads (the cart page quotes on every change). */
export const CHECKOUT_READ_LIMIT: RateLimitRule = { limit: 120, windowSeconds: 60 };
/** Per client address: checkouts placed and 3-D Secure returns. */
export const CHECKOUT_WRITE_LIMIT: RateLimitRule = { limit: 20, windowSeconds: 60 };

export const readLimitKey = (ip: string | undefined): string => `storefront-checkout:read:${clientKey(ip)}`;
export const writeLimitKey = (ip: string | undefined): string => `storefront-checkout:write:${clientKey(ip)}`;

const hitLimit = (ctx: RequestContext, kind: 'read' | 'write'): Promise<void> =>
  servicesOf(ctx).rateLimiter.hit(
    kind === 'read' ? readLimitKey(ctx.client?.ip) : writeLimitKey(ctx.client?.ip),
    kind === 'read' ? CHECKOUT_READ_LIMIT : CHECKOUT_WRITE_LIMIT,
  );

const amount = (units: bigint, scale = SCALE): number => unitsToNumber(units, scale);
const numeric = (value: string): number => unitsToNumber(toUnits(value), SCALE);

// ---- the store ------------------------------------------------------------------------------------

interface CheckoutStore {
  id: string;
  tenantId: string;
  currency: string;
  sandbox: boolean;
  pricesToEveryone: boolean;
  providers: CheckoutProvider[];
  maxInstallments: number;
  /** Installments need a total of at least this much (decimal string). */
  installmentsMinAmount: string;
  requirePhone: boolean;
  /** False: only signed-in customers may buy, and the storefront has no customer accounts yet. */
  guestCheckout: boolean;
  /** The store's terms the shopper must accept, when it has any. */
  terms: { url: string | null; text: string | null } | null;
}

/** The store `storeId` (not archived) with its checkout settings; 404 store_not_found otherwise. */
async function checkoutStore(ctx: RequestContext, storeId: string): Promise<CheckoutStore> {
  const rows: Array<{
    id: string;
    tenant_id: string;
    currency: string;
    price_visibility: string;
    kind: string;
    enabled_providers: string[] | null;
    installments_enabled: boolean | null;
    installments_max_count: number | null;
    installments_min_amount: string | null;
    require_phone: boolean | null;
    guest_checkout: boolean | null;
    terms_url: string | null;
    terms_text: string | null;
  }> = await ctx.manager.query(
    `SELECT s.id, s.tenant_id, s.currency, s.price_visibility, t.kind,
            c.enabled_providers, c.installments_enabled, c.installments_max_count, c.installments_min_amount,
            c.require_phone, c.guest_checkout, c.terms_url, c.terms_text
       FROM stores s JOIN tenants t ON t.id = s.tenant_id
       LEFT JOIN checkout_settings c ON c.store_id = s.id
      WHERE s.id = $1 AND s.status <> 'archived'`,
    [storeId],
  );
  const row = rows[0];
  if (!row) throw storeNotFound();
  // No settings saved: every provider, single payments only (the checkout settings' defaults).
  const enabled = row.enabled_providers ?? [...CHECKOUT_PROVIDERS];
  return {
    id: row.id,
    tenantId: row.tenant_id,
    currency: row.currency.trim(),
    sandbox: row.kind === 'sandbox',
    pricesToEveryone: asPriceVisibility(row.price_visibility) === 'EVERYONE',
    providers: CHECKOUT_PROVIDERS.filter((p) => enabled.includes(p)),
    maxInstallments: row.installments_enabled ? (row.installments_max_count ?? 1) : 1,
    installmentsMinAmount: row.installments_min_amount ?? '0',
    requirePhone: row.require_phone ?? false,
    guestCheckout: row.guest_checkout ?? true,
    terms: row.terms_url || row.terms_text ? { url: row.terms_url, text: row.terms_text } : null,
  };
}

/** A context acting inside the store's tenant, as the shopper (anonymous), so the tenant-scoped services of orders apply. */
const storeContext = (ctx: RequestContext, store: CheckoutStore): RequestContext => ({ ...ctx, tenantId: store.tenantId });

function requireSelling(store: CheckoutStore): void {
  if (!store.pricesToEveryone)
    throw checkoutError(
      'checkout_unavailable',
      'This store does not show its prices to everyone, so it does not sell through the storefront checkout.',
    );
  if (store.providers.length === 0) throw checkoutError('checkout_unavailable', 'This store has no payment provider enabled.');
}

export async function checkoutOptions(ctx: RequestContext, storeId: string) {
  await hitLimit(ctx, 'read');
  const store = await checkoutStore(ctx, storeId);
  return {
    storeId: store.id,
    currency: store.currency,
    available: store.pricesToEveryone && store.providers.length > 0,
    providers: store.providers,
    maxInstallments: store.maxInstallments,
    installmentsMinAmount: Number(store.installmentsMinAmount),
    requirePhone: store.requirePhone,
    guestCheckout: store.guestCheckout,
    terms: store.terms,
    sandbox: store.sandbox,
    testCards: store.sandbox
      ? TEST_CARDS.filter((c) => (store.providers as string[]).includes(c.provider)).map((c) => ({
          provider: c.provider,
          flow: c.flow,
          brand: c.brand,
          number: c.number,
          expiryMonth: c.expiryMonth,
          expiryYear: c.expiryYear,
          cvc: c.cvc,
          outcome: c.outcome,
          threeDsCode: c.threeDsCode,
        }))
      : [],
  };
}

// ---- the cart -------------------------------------------------------------------------------------

interface CartLine {
  variantId: string;
  productId: string;
  title: string;
  slug: string;
  sku: string | null;
  options: Record<string, string>;
  imageUrl: string | null;
  quantity: number;
  stock: number;
  /** Position of the first line of this variant in the body. */
  index: number;
}

/** Merges lines of the same variant (first position wins) and reads them: published products of the store only. */
async function cartLines(ctx: RequestContext, storeId: string, lines: Array<{ variantId: string; quantity: number }>): Promise<CartLine[]> {
  const merged = new Map<string, { quantity: number; index: number }>();
  lines.forEach((l, index) => {
    const id = l.variantId.toLowerCase();
    const seen = merged.get(id);
    if (seen) seen.quantity += l.quantity;
    else merged.set(id, { quantity: l.quantity, index });
  });
  const tooMany = [...merged].filter(([, l]) => l.quantity > CHECKOUT_MAX_QUANTITY);
  if (tooMany.length)
    throw new ValidationError(
      `At most ${CHECKOUT_MAX_QUANTITY} of one variant.`,
      tooMany.map(([, l]) => ({
        path: `body.lines[${l.index}].quantity`,
        message: `at most ${CHECKOUT_MAX_QUANTITY} in all for this variant`,
      })),
    );
  const rows: Array<{
    id: string;
    product_id: string;
    sku: string | null;
    options: Record<string, string> | null;
    stock: number;
    title: string;
    slug: string;
    image_url: string | null;
  }> = await ctx.manager.query(
    `SELECT v.id, v.product_id, v.sku, v.options, v.stock, p.title, p.slug,
            (SELECT i.url FROM product_images i WHERE i.product_id = p.id ORDER BY i.position, i.id LIMIT 1) AS image_url
       FROM product_variants v JOIN products p ON p.id = v.product_id
      WHERE v.id = ANY($1::uuid[]) AND v.store_id = $2 AND p.store_id = $2 AND p.status = 'PUBLISHED'`,
    [[...merged.keys()], storeId],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing: FieldError[] = [...merged]
    .filter(([id]) => !byId.has(id))
    .map(([, l]) => ({ path: `body.lines[${l.index}].variantId`, message: 'no such variant of a published product of this store' }));
  if (missing.length) throw ordersError('variant_not_found', 'A variant is not a variant of a published product of this store.', missing);
  return [...merged].map(([id, l]) => {
    const r = byId.get(id)!;
    return {
      variantId: id,
      productId: r.product_id,
      title: r.title,
      slug: r.slug,
      sku: r.sku,
      options: r.options ?? {},
      imageUrl: r.image_url,
      quantity: l.quantity,
      stock: r.stock,
      index: l.index,
    };
  });
}

interface PricedCartView {
  currency: string;
  lines: Array<
    Omit<CartLine, 'stock' | 'index'> & { unitPrice: number; compareAtPrice: number | null; lineTotal: number; available: boolean }
  >;
  itemCount: number;
  subtotal: bigint;
}

async function priceCart(ctx: RequestContext, store: CheckoutStore, lines: CartLine[]): Promise<PricedCartView> {
  const cart = await priceLines(
    ctx.manager,
    store.id,
    lines.map((l) => ({ productId: l.productId, variantId: l.variantId, quantity: l.quantity })),
    new Date(),
    { customerGroups: [] },
  );
  let subtotal = 0n;
  let itemCount = 0;
  const priced = lines.map((l, i) => {
    const p = cart.lines[i]!;
    const unit = toUnits(p.unitPrice);
    const lineTotal = unit * BigInt(l.quantity);
    subtotal += lineTotal;
    itemCount += l.quantity;
    const { stock, index, ...rest } = l;
    void index;
    return {
      ...rest,
      unitPrice: amount(unit),
      compareAtPrice: p.compareAtPrice,
      lineTotal: amount(lineTotal),
      available: stock >= l.quantity,
    };
  });
  return { currency: cart.currency.trim(), lines: priced, itemCount, subtotal };
}

const optionView = (o: ShippingOption) => ({
  rateId: o.rateId,
  name: o.name,
  price: o.price,
  free: o.free,
  minDeliveryDays: o.minDeliveryDays,
  maxDeliveryDays: o.maxDeliveryDays,
});

async function shippingOptions(
  ctx: RequestContext,
  store: CheckoutStore,
  lines: CartLine[],
  subtotal: bigint,
  address: { city: string; district?: string | null },
) {
  const quote = await quoteShipping(
    ctx.manager,
    store.id,
    { items: lines.map((l) => ({ variantId: l.variantId, quantity: l.quantity })), orderValue: formatUnits(subtotal, SCALE) },
    address,
  );
  return quote.options.map(optionView);
}

export async function quoteCheckout(ctx: RequestContext, storeId: string, input: CheckoutQuoteInput) {
  await hitLimit(ctx, 'read');
  const store = await checkoutStore(ctx, storeId);
  if (!store.pricesToEveryone)
    throw checkoutError(
      'checkout_unavailable',
      'This store does not show its prices to everyone, so it does not sell through the storefront checkout.',
    );
  const lines = await cartLines(ctx, store.id, input.lines);
  const cart = await priceCart(ctx, store, lines);
  const options = input.shippingAddress ? await shippingOptions(ctx, store, lines, cart.subtotal, input.shippingAddress) : [];
  let shipping: ReturnType<typeof optionView> | null = null;
  if (input.shippingRateId) {
    shipping = options.find((o) => o.rateId === input.shippingRateId!.toLowerCase()) ?? null;
    if (!shipping)
      throw checkoutError('shipping_rate_unavailable', 'The shipping option chosen is not offered for this cart and address.', [
        { path: 'body.shippingRateId', message: 'not one of the options for this cart and address' },
      ]);
  }
  const shippingUnits = shipping ? toUnits(shipping.price) : 0n;
  return {
    storeId: store.id,
    currency: cart.currency,
    lines: cart.lines,
    itemCount: cart.itemCount,
    subtotal: amount(cart.subtotal),
    shippingOptions: options,
    shipping,
    total: amount(rescale(cart.subtotal + shippingUnits, SCALE, RESULT_DECIMALS), RESULT_DECIMALS),
    allAvailable: cart.lines.every((l) => l.available),
  };
}

// ---- view keys ------------------------------------------------------------------------------------

export function orderViewKey(appSecret: string, orderId: string): string {
  return createHmac('sha256', appSecret).update(`storefront-order-view:v1:${orderId.toLowerCase()}`).digest('base64url');
}

function viewKeyMatches(appSecret: string, orderId: string, key: string): boolean {
  const expected = Buffer.from(orderViewKey(appSecret, orderId));
  const given = Buffer.from(key);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// ---- placing --------------------------------------------------------------------------------------

interface CheckoutRow {
  id: string;
  order_id: string;
  status: 'PENDING_PAYMENT' | 'CHALLENGE_REQUIRED' | 'PAID' | 'DECLINED';
  currency: string;
  subtotal: string;
  shipping_name: string;
  shipping_price: string;
  total: string;
  shipping_address: Record<string, string | null>;
  provider: string;
  payment_id: string | null;
  challenge_url: string | null;
  decline_code: string | null;
  created_at: Date;
  customer_name: string | null;
  customer_email: string;
}

/** Finds the store's customer by e-mail (case-insensitively) or creates one; an existing customer is left as it is. */
async function customerFor(
  tx: RequestContext,
  storeId: string,
  customer: PlaceCheckoutInput['customer'],
  address: PlaceCheckoutInput['shippingAddress'],
): Promise<string> {
  const now = new Date();
  const id = uuidv7();
  const inserted: Array<{ id: string }> = await tx.manager.query(
    `INSERT INTO customers (id, tenant_id, store_id, name, email, phone, addresses, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $8)
     ON CONFLICT (store_id, email_key) DO NOTHING RETURNING id`,
    [
      id,
      tx.tenantId,
      storeId,
      customer.name,
      customer.email,
      customer.phone ?? null,
      JSON.stringify([
        {
          line1: address.line1,
          line2: address.line2 ?? null,
          city: address.city,
          district: address.district,
          postalCode: address.postalCode ?? null,
          country: address.country,
        },
      ]),
      now,
    ],
  );
  if (inserted[0]) {
    await recordAudit(tx, {
      action: 'customer.create',
      resourceType: 'customer',
      resourceId: id,
      after: { storeId, email: customer.email, name: customer.name, source: 'storefront_checkout' },
    });
    return id;
  }
  const existing: Array<{ id: string }> = await tx.manager.query(
    'SELECT id FROM customers WHERE store_id = $1 AND tenant_id = $2 AND email_key = lower($3)',
    [storeId, tx.tenantId, customer.email],
  );
  return existing[0]!.id;
}

async function loadCheckout(
  ctx: RequestContext,
  storeId: string,
  where: { orderId?: string; paymentId?: string },
): Promise<CheckoutRow | undefined> {
  const column = where.orderId ? 'c.order_id' : 'c.payment_id';
  const rows: CheckoutRow[] = await ctx.manager.query(
    `SELECT c.id, c.order_id, c.status, c.currency, c.subtotal, c.shipping_name, c.shipping_price, c.total, c.shipping_address,
            c.provider, c.payment_id, c.challenge_url, c.decline_code, c.created_at, cu.name AS customer_name, cu.email AS customer_email
       FROM storefront_checkouts c JOIN customers cu ON cu.id = c.customer_id
      WHERE ${column} = $1 AND c.store_id = $2`,
    [(where.orderId ?? where.paymentId)!.toLowerCase(), storeId],
  );
  return rows[0];
}

/** The public view of the order of a checkout (what the confirmation page shows). */
async function publicOrder(ctx: RequestContext, storeId: string, checkout: CheckoutRow) {
  const orders: Array<{ id: string; store_id: string; status: 'PLACED' | 'CANCELLED'; item_count: number; created_at: Date }> =
    await ctx.manager.query('SELECT id, store_id, status, item_count, created_at FROM orders WHERE id = $1 AND store_id = $2', [
      checkout.order_id,
      storeId,
    ]);
  const order = orders[0]!;
  const items: Array<{
    title: string;
    sku: string | null;
    options: Record<string, string>;
    quantity: number;
    unit_price: string;
    line_total: string;
  }> = await ctx.manager.query(
    'SELECT title, sku, options, quantity, unit_price, line_total FROM order_items WHERE order_id = $1 ORDER BY position',
    [order.id],
  );
  const a = checkout.shipping_address;
  return {
    id: order.id,
    storeId: order.store_id,
    status: order.status,
    checkoutStatus: checkout.status,
    currency: checkout.currency.trim(),
    subtotal: numeric(checkout.subtotal),
    shipping: { name: checkout.shipping_name, price: numeric(checkout.shipping_price) },
    total: numeric(checkout.total),
    itemCount: order.item_count,
    items: items.map((i) => ({
      title: i.title,
      sku: i.sku,
      options: i.options ?? {},
      quantity: i.quantity,
      unitPrice: numeric(i.unit_price),
      lineTotal: numeric(i.line_total),
    })),
    customer: { name: checkout.customer_name ?? '', email: checkout.customer_email },
    shippingAddress: {
      name: a.name ?? '',
      line1: a.line1 ?? '',
      line2: a.line2 ?? null,
      city: a.city ?? '',
      district: a.district ?? '',
      postalCode: a.postalCode ?? null,
      country: a.country ?? '',
    },
    payment: { provider: checkout.provider, declineCode: checkout.decline_code },
    createdAt: new Date(checkout.created_at).toISOString(),
  };
}

export type PublicOrderBody = Awaited<ReturnType<typeof publicOrder>>;

/** What place answers; DECLINED is stored the same way (an idempotent replay answers the 402 again) and thrown by the route. */
export type PlaceOutcome =
  | { status: 'PAID' | 'CHALLENGE_REQUIRED'; orderId: string; viewKey: string; challengeUrl: string | null; order: PublicOrderBody }
  | { status: 'DECLINED'; orderId: string; declineCode: string };

/** The return address of a 3-D Secure challenge: the storefront's return page of this store and provider, on any host. */
function returnUrlFor(ctx: RequestContext, storeId: string, provider: CheckoutProvider, given: string | undefined): string {
  const path = `/shop/${storeId}/checkout/return/${provider}`;
  if (given === undefined) return `${servicesOf(ctx).config.publicBaseUrl}${path}`;
  const url = new URL(given);
  if (url.pathname !== path || url.search || url.hash || url.username || url.password)
    throw new ValidationError("returnUrl must be the storefront's return page of this store and provider.", [
      { path: 'body.returnUrl', message: `must be an http(s) URL with the path ${path} and no query` },
    ]);
  return url.toString();
}

async function setStatus(
  tx: RequestContext,
  checkoutId: string,
  change: { status: CheckoutRow['status']; paymentId?: string | null; challengeUrl?: string | null; declineCode?: string | null },
): Promise<void> {
  await tx.manager.query(
    `UPDATE storefront_checkouts SET status = $2, payment_id = COALESCE($3, payment_id), challenge_url = $4, decline_code = $5, updated_at = now()
      WHERE id = $1 AND tenant_id = $6`,
    [checkoutId, change.status, change.paymentId ?? null, change.challengeUrl ?? null, change.declineCode ?? null, tx.tenantId],
  );
}

export async function placeCheckout(
  ctx: RequestContext,
  storeId: string,
  input: PlaceCheckoutInput,
  idempotencyKey: string | undefined,
): Promise<PlaceOutcome> {
  await hitLimit(ctx, 'write');
  const store = await checkoutStore(ctx, storeId);
  requireSelling(store);
  const provider = input.payment.provider;
  if (!store.providers.includes(provider))
    throw checkoutError('provider_not_enabled', `The payment provider ${provider} is not enabled in this store.`, [
      { path: 'body.payment.provider', message: `one of ${store.providers.join(', ')}` },
    ]);
  if (!store.guestCheckout)
    throw checkoutError(
      'guest_checkout_disabled',
      'This shop sells only to signed-in customers, and the storefront has no customer accounts yet; the merchant turns guest checkout on in the checkout settings.',
    );
  if (store.terms && input.acceptTerms !== true)
    throw checkoutError('terms_not_accepted', "The shop's terms must be accepted to buy.", [
      { path: 'body.acceptTerms', message: 'must be true: the shop has terms' },
    ]);
  const installments = input.payment.installments ?? 1;
  if (installments > store.maxInstallments)
    throw checkoutError('provider_not_enabled', `This store accepts at most ${store.maxInstallments} installments.`, [
      { path: 'body.payment.installments', message: `at most ${store.maxInstallments}` },
    ]);
  const returnUrl = returnUrlFor(ctx, store.id, provider, input.returnUrl);
  const shopper = storeContext(ctx, store);
  const { appSecret } = servicesOf(ctx).config;
  // The card takes part in the fingerprint only as its HMAC, so the key table holds no card data.
  const cardHash = createHmac('sha256', appSecret).update(JSON.stringify(input.payment.card)).digest('hex');
  const fingerprint = { storeId: store.id, body: { ...input, payment: { ...input.payment, card: cardHash } } };
  return idempotent(shopper, `storefront-checkout:${store.id}`, idempotencyKey, fingerprint, async (tx) => {
    const lines = await cartLines(tx, store.id, input.lines);
    const cart = await priceCart(tx, store, lines);
    const options = await shippingOptions(tx, store, lines, cart.subtotal, input.shippingAddress);
    const shipping = options.find((o) => o.rateId === input.shippingRateId.toLowerCase());
    if (!shipping)
      throw checkoutError('shipping_rate_unavailable', 'The shipping option chosen is not offered for this cart and address.', [
        { path: 'body.shippingRateId', message: 'not one of the options for this cart and address' },
      ]);
    const shippingUnits = toUnits(shipping.price);
    const totalUnits = rescale(cart.subtotal + shippingUnits, SCALE, RESULT_DECIMALS);
    if (
      input.expectedTotal !== undefined &&
      toUnits(input.expectedTotal, RESULT_DECIMALS + 2) !== rescale(totalUnits, RESULT_DECIMALS, RESULT_DECIMALS + 2)
    )
      throw checkoutError(
        'checkout_total_changed',
        `The total to pay is now ${formatUnits(totalUnits, RESULT_DECIMALS)} ${cart.currency}.`,
        [{ path: 'body.expectedTotal', message: `the total is ${formatUnits(totalUnits, RESULT_DECIMALS)}` }],
      );
    if (installments > 1 && rescale(totalUnits, RESULT_DECIMALS, SCALE) < toUnits(store.installmentsMinAmount))
      throw checkoutError(
        'installments_below_minimum',
        `Installments start at a total of ${store.installmentsMinAmount} ${cart.currency} in this shop.`,
        [{ path: 'body.payment.installments', message: 'only a single payment for this total' }],
      );

    const customerId = await customerFor(tx, store.id, input.customer, input.shippingAddress);
    const order = await createOrder(
      tx,
      {
        storeId: store.id,
        customerId,
        items: lines.map((l) => ({ variantId: l.variantId, quantity: l.quantity })),
        shippingAddress: { city: input.shippingAddress.city, district: input.shippingAddress.district },
      },
      { shippingCharge: formatUnits(shippingUnits, SCALE), customerGroups: [] },
    );
    const checkoutId = uuidv7();
    const a = input.shippingAddress;
    await tx.manager.query(
      `INSERT INTO storefront_checkouts (id, tenant_id, store_id, order_id, customer_id, status, currency, subtotal, shipping_rate_id,
                                         shipping_name, shipping_price, total, shipping_address, provider)
       VALUES ($1, $2, $3, $4, $5, 'PENDING_PAYMENT', $6, $7, $8, $9, $10, $11, $12::jsonb, $13)`,
      [
        checkoutId,
        tx.tenantId,
        store.id,
        order.id,
        customerId,
        order.currency,
        formatUnits(cart.subtotal, SCALE),
        shipping.rateId,
        shipping.name,
        formatUnits(shippingUnits, SCALE),
        formatUnits(totalUnits, RESULT_DECIMALS),
        JSON.stringify({
          name: a.name,
          line1: a.line1,
          line2: a.line2 ?? null,
          city: a.city,
          district: a.district,
          postalCode: a.postalCode ?? null,
          country: a.country,
        }),
        provider,
      ],
    );
    await recordAudit(tx, {
      action: 'storefront_checkout.place',
      resourceType: 'order',
      resourceId: order.id,
      after: { storeId: store.id, customerId, total: formatUnits(totalUnits, RESULT_DECIMALS), shipping: shipping.price, provider },
    });

    const paid = await payOrder(tx, { storeId: store.id, orderId: order.id, provider, card: input.payment.card, installments, returnUrl });
    if (paid.outcome === 'DECLINED') {
      await cancelOrder(tx, order.id);
      await setStatus(tx, checkoutId, { status: 'DECLINED', paymentId: paid.paymentId, declineCode: paid.declineCode });
      await recordAudit(tx, {
        action: 'storefront_checkout.declined',
        resourceType: 'order',
        resourceId: order.id,
        before: { status: 'PENDING_PAYMENT' },
        after: { status: 'DECLINED', declineCode: paid.declineCode },
      });
      return { status: 'DECLINED' as const, orderId: order.id, declineCode: paid.declineCode };
    }
    const status = paid.outcome === 'PAID' ? 'PAID' : 'CHALLENGE_REQUIRED';
    const challengeUrl = paid.outcome === 'CHALLENGE_REQUIRED' ? paid.challengeUrl : null;
    await setStatus(tx, checkoutId, { status, paymentId: paid.paymentId, challengeUrl });
    await recordAudit(tx, {
      action: status === 'PAID' ? 'storefront_checkout.paid' : 'storefront_checkout.challenge',
      resourceType: 'order',
      resourceId: order.id,
      before: { status: 'PENDING_PAYMENT' },
      after: { status, paymentId: paid.paymentId },
    });
    const row = (await loadCheckout(tx, store.id, { orderId: order.id }))!;
    return {
      status,
      orderId: order.id,
      viewKey: orderViewKey(appSecret, order.id),
      challengeUrl,
      order: await publicOrder(tx, store.id, row),
    };
  });
}

// ---- 3-D Secure return ----------------------------------------------------------------------------

export async function completeCheckoutReturn(ctx: RequestContext, storeId: string, provider: CheckoutProvider, input: CheckoutReturnInput) {
  await hitLimit(ctx, 'write');
  const store = await checkoutStore(ctx, storeId);
  const shopper = storeContext(ctx, store);
  return inTransaction(shopper, async (tx) => {
    const settled = await settleChallengeReturn(tx, provider, input.query);
    const checkout = await loadCheckout(tx, store.id, { orderId: settled.orderId });
    if (!checkout || checkout.provider !== provider)
      throw checkoutError('return_not_recognised', 'This return names no pending checkout of this store.');
    await tx.manager.query('SELECT 1 FROM storefront_checkouts WHERE id = $1 FOR UPDATE', [checkout.id]);
    const current = (await loadCheckout(tx, store.id, { orderId: settled.orderId }))!;
    if (current.status === 'CHALLENGE_REQUIRED' || current.status === 'PENDING_PAYMENT') {
      if (settled.outcome === 'DECLINED') await cancelOrder(tx, current.order_id);
      const status = settled.outcome === 'PAID' ? 'PAID' : 'DECLINED';
      await setStatus(tx, current.id, { status, paymentId: settled.paymentId, declineCode: settled.declineCode });
      await recordAudit(tx, {
        action: status === 'PAID' ? 'storefront_checkout.paid' : 'storefront_checkout.declined',
        resourceType: 'order',
        resourceId: current.order_id,
        before: { status: current.status },
        after: { status, declineCode: settled.declineCode },
      });
      return { status, orderId: current.order_id, declineCode: settled.declineCode };
    }
    // Settled before (the return page reloaded): answer how it ended.
    return {
      status: current.status === 'PAID' ? ('PAID' as const) : ('DECLINED' as const),
      orderId: current.order_id,
      declineCode: current.decline_code,
    };
  });
}

// ---- the order's public view ----------------------------------------------------------------------

export async function getPublicOrder(ctx: RequestContext, storeId: string, orderId: string, key: string): Promise<PublicOrderBody> {
  await hitLimit(ctx, 'read');
  const notFound = () => checkoutError('order_not_found', 'No order of this store has this id and view key.');
  if (!viewKeyMatches(servicesOf(ctx).config.appSecret, orderId, key)) throw notFound();
  const store = await checkoutStore(ctx, storeId);
  const checkout = await loadCheckout(ctx, store.id, { orderId });
  if (!checkout) throw notFound();
  return publicOrder(ctx, store.id, checkout);
}
