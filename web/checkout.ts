/**
 * The storefront's cart and checkout pages (docs/storefront.md, "Cart and checkout"), built only on the
 * public checkout operations of the API (api/storefront-checkout):
 *
 * - the cart lives in a cookie per store (`cart`, Path=/shop/<storeId>, HttpOnly, SameSite=Lax,
 *   signed with an HMAC derived from APP_SECRET): variant ids and quantities only, at most 50 lines of
 *   1 to 99; a cookie that does not verify reads as an empty cart;
 * - POST …/cart/add, …/cart/update: change it and send the browser back to the cart (303);
 * - GET …/cart: the lines priced by the quote operation; GET …/checkout: address, shipping options of
 *   the quote for the city and district, totals, the card form with the enabled providers (and the
 *   test cards in sandbox stores); POST …/checkout pays: PAID → the order page, CHALLENGE_REQUIRED →
 *   the provider's challenge page (the order and its view key wait in a signed `checkout` cookie),
 *   anything else → the checkout page again with the reason (never a 5xx);
 * - GET …/checkout/return/<provider>: where the challenge sends the browser back; settles it through
 *   the API and shows the order, or the checkout page with the decline;
 * - GET …/orders/<id>?key=…: the confirmation page.
 *
 * Every form post is refused (403) unless it comes from this server's own pages (web/page-security.ts).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type Router from '@koa/router';
import type Koa from 'koa';
import { apiClientFor, type ApiClient, type Json } from './api-client';
import { CROSS_SITE_MESSAGE, crossSiteReason } from './page-security';
import { FormBodyError, readFormBody } from './form-body';
import { isUuid } from '../storage/ids';

export const CART_MAX_LINES = 50;
export const CART_MAX_QUANTITY = 99;
const PROVIDERS = ['iyzico', 'stripe', 'adyen'] as const;

export type CartLine = { variantId: string; quantity: number };

export interface CheckoutDeps {
  appSecret: string;
  publicBaseUrl: string;
  formLimitBytes: number;
  /** Renders a storefront page of a template with the page scope (the storefront's own renderer). */
  render: (ctx: Koa.Context, template: string, title: string, page: Record<string, unknown>) => Promise<void>;
}

// ---- signed cookies -------------------------------------------------------------------------------

function signer(appSecret: string): (value: string) => string {
  const key = createHmac('sha256', appSecret).update('storefront-cart-cookie:v1').digest();
  return (value) => createHmac('sha256', key).update(value).digest('base64url');
}

export function encodeCart(appSecret: string, storeId: string, lines: CartLine[]): string {
  const payload = Buffer.from(lines.map((l) => `${l.variantId}:${l.quantity}`).join(',')).toString('base64url');
  return `${payload}.${signer(appSecret)(`${storeId}|${payload}`)}`;
}

function verified(appSecret: string, scope: string, cookie: string | undefined): string | undefined {
  if (!cookie || cookie.length > 4096) return undefined;
  const dot = cookie.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const payload = cookie.slice(0, dot);
  const given = Buffer.from(cookie.slice(dot + 1));
  const expected = Buffer.from(signer(appSecret)(`${scope}|${payload}`));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return Buffer.from(payload, 'base64url').toString('utf8');
}

export function decodeCart(appSecret: string, storeId: string, cookie: string | undefined): CartLine[] {
  const text = verified(appSecret, storeId, cookie);
  if (!text) return [];
  const lines: CartLine[] = [];
  for (const part of text.split(',').slice(0, CART_MAX_LINES)) {
    const [variantId, qty] = part.split(':');
    const quantity = Number(qty);
    if (isUuid(variantId) && Number.isInteger(quantity) && quantity >= 1 && quantity <= CART_MAX_QUANTITY)
      lines.push({ variantId, quantity });
  }
  return lines;
}

const cookieOptions = (storeId: string, maxAgeDays = 30) => ({
  path: `/shop/${storeId}`,
  httpOnly: true,
  sameSite: 'lax' as const,
  overwrite: true,
  maxAge: maxAgeDays * 86_400_000,
});

// ---- the router -----------------------------------------------------------------------------------

export function addCheckoutRoutes(router: Router, deps: CheckoutDeps): void {
  const cartOf = (ctx: Koa.Context): CartLine[] => decodeCart(deps.appSecret, ctx.params.storeId!, ctx.cookies.get('cart'));
  const saveCart = (ctx: Koa.Context, lines: CartLine[]): void => {
    const storeId = ctx.params.storeId!;
    if (lines.length === 0) ctx.cookies.set('cart', '', { ...cookieOptions(storeId), maxAge: 0 });
    else ctx.cookies.set('cart', encodeCart(deps.appSecret, storeId, lines.slice(0, CART_MAX_LINES)), cookieOptions(storeId));
  };
  const api = (ctx: Koa.Context, headers: Record<string, string> = {}): ApiClient => apiClientFor(ctx, headers);
  const base = (ctx: Koa.Context): string => `/storefront/stores/${ctx.params.storeId}`;
  const shopBase = (ctx: Koa.Context): string => `/shop/${ctx.params.storeId}`;

  /** The form of a post from this server's pages, or undefined once a refusal page was answered. */
  async function form(ctx: Koa.Context): Promise<URLSearchParams | undefined> {
    ctx.set('Cache-Control', 'no-store');
    if (crossSiteReason(ctx, deps.publicBaseUrl)) {
      ctx.req.resume();
      ctx.status = 403;
      await deps.render(ctx, 'cart', 'Cart', { cart_error: CROSS_SITE_MESSAGE, cart: null });
      if (ctx.status !== 404) ctx.status = 403;
      return undefined;
    }
    try {
      return await readFormBody(ctx, deps.formLimitBytes);
    } catch (error) {
      if (!(error instanceof FormBodyError)) throw error;
      await deps.render(ctx, 'cart', 'Cart', { cart_error: error.message, cart: null });
      ctx.status = error.status;
      return undefined;
    }
  }

  const quantityOf = (value: string | null): number | undefined => {
    const n = Number(value);
    return Number.isInteger(n) && n >= 0 && n <= CART_MAX_QUANTITY ? n : undefined;
  };

  router.post('/shop/:storeId/cart/add', async (ctx) => {
    const fields = await form(ctx);
    if (!fields) return;
    const variantId = (fields.get('variant') ?? '').toLowerCase();
    const quantity = quantityOf(fields.get('quantity') ?? '1');
    if (!isUuid(variantId) || !quantity) {
      ctx.status = 400;
      return deps.render(ctx, 'cart', 'Cart', { cart_error: 'Choose a variant and a quantity from 1 to 99.', cart: null });
    }
    const lines = cartOf(ctx);
    const line = lines.find((l) => l.variantId === variantId);
    if (line) line.quantity = Math.min(CART_MAX_QUANTITY, line.quantity + quantity);
    else if (lines.length >= CART_MAX_LINES) {
      ctx.status = 409;
      return deps.render(ctx, 'cart', 'Cart', { cart_error: `A cart holds at most ${CART_MAX_LINES} products.`, cart: null });
    } else lines.push({ variantId, quantity });
    saveCart(ctx, lines);
    ctx.status = 303;
    ctx.redirect(`${shopBase(ctx)}/cart`);
  });

  router.post('/shop/:storeId/cart/update', async (ctx) => {
    const fields = await form(ctx);
    if (!fields) return;
    const remove = (fields.get('remove') ?? '').toLowerCase();
    const lines = cartOf(ctx)
      .map((l) => {
        const q = fields.has(`qty-${l.variantId}`) ? quantityOf(fields.get(`qty-${l.variantId}`)) : l.quantity;
        return { variantId: l.variantId, quantity: l.variantId === remove ? 0 : (q ?? l.quantity) };
      })
      .filter((l) => l.quantity > 0);
    saveCart(ctx, lines);
    ctx.status = 303;
    ctx.redirect(`${shopBase(ctx)}/cart`);
  });

  /** The quote of the cart (and address); an answer the page can show whatever happens. */
  async function quote(
    ctx: Koa.Context,
    lines: CartLine[],
    address?: { city: string; district?: string },
    shippingRateId?: string,
  ): Promise<{ quote: Json; error: string | null }> {
    if (lines.length === 0) return { quote: null, error: null };
    const body: Json = { lines };
    if (address?.city) body.shippingAddress = { city: address.city, ...(address.district ? { district: address.district } : {}) };
    if (shippingRateId) body.shippingRateId = shippingRateId;
    const res = await api(ctx).request('POST', `${base(ctx)}/checkout/quote`, { body });
    if (res.ok) return { quote: res.json, error: null };
    if (res.status === 404 && res.json?.code === 'variant_not_found') {
      // A product left the shop: drop its lines and say so.
      const gone = new Set<number>((res.json.errors ?? []).map((e: { path: string }) => Number(/lines\[(\d+)\]/.exec(e.path)?.[1])));
      const kept = lines.filter((_, i) => !gone.has(i));
      saveCart(ctx, kept);
      const again: { quote: Json } = kept.length ? await quote(ctx, kept, address) : { quote: null };
      return { quote: again.quote, error: 'A product in your cart is no longer sold and was removed.' };
    }
    return { quote: null, error: messageOf(res.status, res.json) };
  }

  router.get('/shop/:storeId/cart', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const { quote: cart, error } = await quote(ctx, cartOf(ctx));
    await deps.render(ctx, 'cart', 'Cart', { cart, cart_error: error });
  });

  async function checkoutPage(ctx: Koa.Context, values: Record<string, string>, message: string | null, status = 200): Promise<void> {
    ctx.set('Cache-Control', 'no-store');
    const lines = cartOf(ctx);
    const address = values.city ? { city: values.city, district: values.district } : undefined;
    const [first, options] = await Promise.all([quote(ctx, lines, address), api(ctx).request('GET', `${base(ctx)}/checkout/options`)]);
    const offered = (first.quote?.shippingOptions ?? []) as Array<{ rateId: string }>;
    const chosen = offered.some((o) => o.rateId === values.shippingRateId) ? values.shippingRateId : offered[0]?.rateId;
    // The total with the option selected, computed by the API (exact decimals), never here.
    const { quote: q, error } = chosen ? await quote(ctx, lines, address, chosen) : first;
    const shipping = q?.shipping ?? null;
    ctx.status = status;
    await deps.render(ctx, 'checkout', 'Checkout', {
      cart: q,
      checkout_error: message ?? error,
      options: options.ok ? options.json : null,
      values,
      chosen_rate: chosen,
      shipping,
      // One key per rendering of the form: a double-clicked Pay sends it twice and orders once.
      idempotency_key: randomUUID(),
      provider_names: PROVIDERS,
    });
  }

  const ADDRESS_FIELDS = [
    'email',
    'name',
    'phone',
    'recipient',
    'line1',
    'line2',
    'city',
    'district',
    'postalCode',
    'country',
    'shippingRateId',
    'provider',
  ];

  router.get('/shop/:storeId/checkout', async (ctx) => {
    const values: Record<string, string> = { country: 'TR' };
    for (const key of ADDRESS_FIELDS) if (typeof ctx.query[key] === 'string') values[key] = (ctx.query[key] as string).slice(0, 200);
    await checkoutPage(ctx, values, null);
  });

  router.post('/shop/:storeId/checkout', async (ctx) => {
    const fields = await form(ctx);
    if (!fields) return;
    const values: Record<string, string> = {};
    for (const key of ADDRESS_FIELDS) values[key] = (fields.get(key) ?? '').trim().slice(0, 254);
    const lines = cartOf(ctx);
    if (lines.length === 0) return checkoutPage(ctx, values, 'Your cart is empty.', 409);
    const optional = (v: string) => (v ? v : undefined);
    const provider = values.provider || 'iyzico';
    const body = {
      lines,
      customer: { email: values.email, name: values.name, ...(values.phone ? { phone: values.phone } : {}) },
      shippingAddress: {
        name: values.recipient || values.name,
        line1: values.line1,
        line2: optional(values.line2!),
        city: values.city,
        district: values.district,
        postalCode: optional(values.postalCode!),
        country: (values.country || 'TR').toUpperCase(),
      },
      shippingRateId: values.shippingRateId,
      payment: {
        provider,
        card: {
          number: (fields.get('cardNumber') ?? '').replace(/[\s-]/g, ''),
          expiryMonth: Number(fields.get('expiryMonth')),
          expiryYear: Number(fields.get('expiryYear')),
          cvc: (fields.get('cvc') ?? '').trim(),
          holderName: (fields.get('holderName') ?? '').trim(),
        },
        ...(fields.get('installments') && fields.get('installments') !== '1' ? { installments: Number(fields.get('installments')) } : {}),
      },
      returnUrl: `${ctx.protocol}://${ctx.host}${shopBase(ctx)}/checkout/return/${provider}`,
      ...(fields.get('acceptTerms') === 'on' ? { acceptTerms: true } : {}),
    };
    // The total the page showed holds for the option it had selected; another option is quoted afresh by the API.
    const expected = Number(fields.get('expectedTotal'));
    if (fields.get('expectedTotal') && fields.get('expectedRate') === values.shippingRateId && Number.isFinite(expected))
      Object.assign(body, { expectedTotal: expected });
    const key = (fields.get('idempotencyKey') ?? '').slice(0, 255);
    const res = await api(ctx, /^[\x20-\x7e]{1,255}$/.test(key) ? { 'Idempotency-Key': key } : {}).request(
      'POST',
      `${base(ctx)}/checkout`,
      {
        body,
      },
    );
    if (res.status === 201 && res.json.status === 'PAID') {
      saveCart(ctx, []);
      ctx.status = 303;
      return ctx.redirect(`${shopBase(ctx)}/orders/${res.json.orderId}?key=${encodeURIComponent(res.json.viewKey)}`);
    }
    if (res.status === 201 && res.json.status === 'CHALLENGE_REQUIRED' && typeof res.json.challengeUrl === 'string') {
      const pending = Buffer.from(`${res.json.orderId}:${res.json.viewKey}`).toString('base64url');
      ctx.cookies.set('checkout', `${pending}.${signer(deps.appSecret)(`${ctx.params.storeId}|${pending}`)}`, {
        ...cookieOptions(ctx.params.storeId!),
        maxAge: 3_600_000,
      });
      ctx.status = 303;
      return ctx.redirect(res.json.challengeUrl);
    }
    await checkoutPage(ctx, values, messageOf(res.status, res.json), res.status >= 400 && res.status < 500 ? res.status : 503);
  });

  router.get('/shop/:storeId/checkout/return/:provider', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const provider = ctx.params.provider!;
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(ctx.query)) if (typeof v === 'string') query[k] = v;
    if (!(PROVIDERS as readonly string[]).includes(provider) || Object.keys(query).length > 30)
      return checkoutPage(ctx, {}, 'This payment return is not one we recognise.', 400);
    const res = await api(ctx).request('POST', `${base(ctx)}/checkout/return/${provider}`, { body: { query } });
    const pending = verified(deps.appSecret, ctx.params.storeId!, ctx.cookies.get('checkout'));
    const [orderId, viewKey] = pending ? pending.split(':') : [];
    if (res.ok && res.json.status === 'PAID') {
      saveCart(ctx, []);
      ctx.cookies.set('checkout', '', { ...cookieOptions(ctx.params.storeId!), maxAge: 0 });
      if (orderId === res.json.orderId && viewKey) {
        ctx.status = 303;
        return ctx.redirect(`${shopBase(ctx)}/orders/${orderId}?key=${encodeURIComponent(viewKey)}`);
      }
      return checkoutPage(ctx, {}, 'Your payment went through and your order is placed. Thank you!', 200);
    }
    if (res.ok) {
      ctx.cookies.set('checkout', '', { ...cookieOptions(ctx.params.storeId!), maxAge: 0 });
      return checkoutPage(
        ctx,
        {},
        `The card was declined (${res.json.declineCode ?? 'declined'}); nothing was charged and your order was cancelled.`,
        402,
      );
    }
    return checkoutPage(ctx, {}, messageOf(res.status, res.json), res.status >= 400 && res.status < 500 ? res.status : 503);
  });

  router.get('/shop/:storeId/orders/:orderId', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const key = typeof ctx.query.key === 'string' ? ctx.query.key : '';
    const orderId = ctx.params.orderId!;
    const res = isUuid(orderId) && key ? await api(ctx).request('GET', `${base(ctx)}/orders/${orderId}`, { query: { key } }) : undefined;
    if (!res?.ok) {
      ctx.status = res && res.status !== 404 && res.status !== 400 ? (res.status === 429 ? 429 : 503) : 404;
      return deps.render(ctx, 'order', 'Order', { order: null, order_error: 'There is no order at this address.' });
    }
    await deps.render(ctx, 'order', `Order ${res.json.id.slice(-8)}`, { order: res.json, paid: res.json.checkoutStatus === 'PAID' });
  });
}

/** What the page says for an answer of the checkout API that is not a success. */
export function messageOf(status: number, body: Json): string {
  const code = body?.code as string | undefined;
  switch (code) {
    case 'payment_declined':
      return `The card was declined (${body.errors?.[0]?.message ?? 'declined'}); nothing was charged. Try another card.`;
    case 'insufficient_stock':
      return `Not enough stock: ${(body.errors ?? []).map((e: { message: string }) => e.message).join('; ')}. Change the quantities in your cart.`;
    case 'product_unavailable':
    case 'variant_not_found':
      return 'A product in your cart is no longer sold; remove it from your cart.';
    case 'shipping_rate_unavailable':
      return 'That shipping option is not available for this address; choose one of the options shown.';
    case 'checkout_total_changed':
      return 'The total changed since you opened the page; check it and press Pay again.';
    case 'terms_not_accepted':
      return "Please accept the shop's terms to buy.";
    case 'provider_not_enabled':
    case 'checkout_unavailable':
    case 'guest_checkout_disabled':
    case 'installments_below_minimum':
      return body.detail ?? 'This shop cannot take this payment.';
    case 'validation_failed':
      return `Please check the form: ${(body.errors ?? []).map((e: { path: string; message: string }) => e.message).join('; ')}.`;
    case 'rate_limited':
      return 'Too many attempts: please wait a minute and try again.';
    default:
      return status >= 500 || !status
        ? 'The shop could not take your order just now; nothing was charged. Please try again.'
        : (body?.detail ?? 'Something went wrong.');
  }
}
