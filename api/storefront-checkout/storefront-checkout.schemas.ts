/**
 * DTOs of the storefront checkout (docs/storefront.md, "Cart and checkout"): the cart lines, the
 * quote, the checkout body (customer, shipping address and option, card payment, idempotency key)
 * and what the operations answer. Amounts are JSON numbers with at most 4 decimals (money of
 * schema-types.ts), computed with exact decimal arithmetic.
 */
import Joi from 'joi';
import { dto } from '../http/route';
import { email } from '../auth/auth.schemas';
import { t, typedDto } from '../http/typed-schema';
import { currency, dateTime, httpUrl, money, oneOf, text, uuid } from '../http/schema-types';

export const CHECKOUT_MAX_LINES = 50;
export const CHECKOUT_MAX_QUANTITY = 99;
export const CHECKOUT_PROVIDERS = ['iyzico', 'stripe', 'adyen'] as const;
export const CHECKOUT_STATUSES = ['PENDING_PAYMENT', 'CHALLENGE_REQUIRED', 'PAID', 'DECLINED'] as const;

const line = t.object({
  variantId: t.string(uuid().description('A variant of a published product of the store (404 variant_not_found otherwise).')).required(),
  quantity: t.number(Joi.number().integer().min(1).max(CHECKOUT_MAX_QUANTITY).description('1 to 99.')).required(),
});

const lines = () =>
  t
    .array(
      line,
      Joi.array()
        .min(1)
        .max(CHECKOUT_MAX_LINES)
        .description('1 to 50 lines; lines naming the same variant are merged (quantities added, at most 99 in all).'),
    )
    .required();

const place = (max: number, what: string) => text(1, max).trim().description(`${what}, 1 to ${max} characters.`);

const quoteAddress = t.object({
  city: t.string(place(120, 'City')).required(),
  district: t.string(place(120, 'District')),
});

export const CheckoutQuoteDto = typedDto(
  'CheckoutQuoteDto',
  t.object({
    lines: lines(),
    shippingAddress: quoteAddress.rules((s) => s.description('Where to ship: without it the quote has no shipping options.')),
    shippingRateId: t.string(uuid().description('The shipping option chosen: the total then includes its price.')),
  }),
);

const shippingAddress = t.object({
  name: t.string(place(200, 'Recipient name')).required(),
  line1: t.string(place(200, 'Street address')).required(),
  line2: t.string(text(1, 200).trim().description('Second address line, up to 200 characters.')),
  city: t.string(place(120, 'City')).required(),
  district: t.string(place(120, 'District')).required(),
  postalCode: t.string(
    Joi.string()
      .trim()
      .pattern(/^[A-Za-z0-9 -]{2,12}$/, 'postal code')
      .description('Postal code: 2 to 12 letters, digits, spaces or hyphens.'),
  ),
  country: t
    .string(
      Joi.string()
        .pattern(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 code')
        .description('Country: its ISO 3166-1 alpha-2 code, e.g. TR.'),
    )
    .required(),
});

const card = t.object({
  number: t
    .string(
      Joi.string()
        .pattern(/^[0-9]{12,19}$/, 'card number')
        .description('12 to 19 digits, no spaces. Never stored or logged; only the brand and last four digits are kept.'),
    )
    .required(),
  expiryMonth: t.number(Joi.number().integer().min(1).max(12)).required(),
  expiryYear: t.number(Joi.number().integer().min(2000).max(2100).description('Four digits.')).required(),
  cvc: t
    .string(
      Joi.string()
        .pattern(/^[0-9]{3,4}$/, 'CVC')
        .description('3 or 4 digits; never stored.'),
    )
    .required(),
  holderName: t.string(place(100, 'Cardholder name')).required(),
});

export const PlaceCheckoutDto = typedDto(
  'PlaceCheckoutDto',
  t.object({
    lines: lines(),
    customer: t
      .object({
        email: t.string(email().description("The shopper's e-mail address (up to 254 characters).")).required(),
        name: t.string(place(200, 'Full name')).required(),
        phone: t.string(
          Joi.string()
            .trim()
            .pattern(/^\+?[0-9 ()-]{5,32}$/, 'phone number')
            .max(32)
            .description('5 to 32 digits, spaces, parentheses, hyphens; an optional leading +.'),
        ),
      })
      .required(),
    shippingAddress: shippingAddress.required(),
    shippingRateId: t.string(uuid().description('One of the options of the quote for this cart and address.')).required(),
    payment: t
      .object({
        provider: t
          .oneOf(CHECKOUT_PROVIDERS, (s) => s.description('One of the providers the store enabled (GET …/checkout/options).'))
          .required(),
        card: card.required(),
        installments: t.number(Joi.number().integer().min(1).max(12).description('1 (default, a single payment) to 12.')),
      })
      .required(),
    idempotencyKey: t.string(
      Joi.string()
        .min(1)
        .max(255)
        .pattern(/^[\x21-\x7e]+$/, 'printable characters')
        .description(
          'Makes Pay safe to send twice: a second checkout with the same key (per store, kept 24 hours) answers what the first did and orders nothing more; the same key with another body answers 409 checkout_key_reused. 1 to 255 printable ASCII characters.',
        ),
    ),
    acceptTerms: t.boolean(
      Joi.boolean().description(
        "The shopper accepted the shop's terms (GET …/checkout/options answers them); required true when the shop has terms, else 400 terms_not_accepted.",
      ),
    ),
    expectedTotal: t.number(
      money().description('The total the shopper was shown; 409 checkout_total_changed when the total to pay differs.'),
    ),
    returnUrl: t.string(
      httpUrl().description(
        'Where the browser returns after a 3-D Secure challenge: a page of the storefront, /shop/{storeId}/checkout/return/{provider} on any host (default: on PUBLIC_BASE_URL). A client of its own passes the signed query it receives there to POST …/checkout/return/{provider}.',
      ),
    ),
  }),
);

const amount = () => Joi.number().min(0).required();

const QuoteLineView = Joi.object({
  variantId: uuid().required(),
  productId: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required().description('The product page is /shop/{storeId}/products/{slug}.'),
  sku: Joi.string().allow(null).required(),
  options: Joi.object().pattern(Joi.string(), Joi.string()).required(),
  imageUrl: Joi.string().allow(null).required(),
  quantity: Joi.number().integer().min(1).required(),
  unitPrice: amount().description('After the price rules and running flash sales, exact.'),
  compareAtPrice: Joi.number().min(0).allow(null).required(),
  lineTotal: amount().description('unitPrice × quantity, exact.'),
  available: Joi.boolean().required().description('The stock covers the quantity now (exact stock levels are not public).'),
}).label('CheckoutQuoteLine');

const ShippingOptionView = Joi.object({
  rateId: uuid().required(),
  name: Joi.string().required(),
  price: amount(),
  free: Joi.boolean().required(),
  minDeliveryDays: Joi.number().integer().allow(null).required(),
  maxDeliveryDays: Joi.number().integer().allow(null).required(),
}).label('CheckoutShippingOption');

export const CheckoutQuoteResponse = dto(
  'CheckoutQuoteResponse',
  Joi.object({
    storeId: uuid().required(),
    currency: currency().required(),
    lines: Joi.array().items(QuoteLineView).required().description('In the order sent, lines of the same variant merged.'),
    itemCount: Joi.number().integer().min(1).required(),
    subtotal: amount().description('Sum of the line totals.'),
    shippingOptions: Joi.array()
      .items(ShippingOptionView)
      .required()
      .description('Cheapest first; empty without a shippingAddress or when no rate covers the address.'),
    shipping: ShippingOptionView.allow(null).required().description('The option of shippingRateId; null when none was chosen.'),
    total: amount().description('subtotal + the chosen shipping price, rounded half up to 2 decimals: what Pay charges.'),
    allAvailable: Joi.boolean().required().description('Every line is available in its quantity.'),
  }),
);

export const CheckoutOptionsResponse = dto(
  'CheckoutOptionsResponse',
  Joi.object({
    storeId: uuid().required(),
    currency: currency().required(),
    available: Joi.boolean().required().description('The checkout sells now: prices shown to everyone and a provider enabled.'),
    providers: Joi.array().items(oneOf(CHECKOUT_PROVIDERS)).required().description('The payment providers the store enabled.'),
    maxInstallments: Joi.number().integer().min(1).max(12).required(),
    installmentsMinAmount: Joi.number().min(0).required().description('Installments need a total of at least this much.'),
    requirePhone: Joi.boolean().required().description('The checkout needs a phone number.'),
    guestCheckout: Joi.boolean()
      .required()
      .description('False: only signed-in customers may buy; the storefront has no customer accounts yet, so such a shop does not sell.'),
    terms: Joi.object({ url: Joi.string().allow(null).required(), text: Joi.string().allow(null).required() })
      .allow(null)
      .required()
      .description("The shop's terms, which the shopper accepts with acceptTerms; null: none."),
    sandbox: Joi.boolean().required().description('A sandbox store: no money moves and the test cards below are accepted.'),
    testCards: Joi.array()
      .items(
        Joi.object({
          provider: Joi.string().required(),
          flow: Joi.string().required(),
          brand: Joi.string().required(),
          number: Joi.string().required(),
          expiryMonth: Joi.number().integer().required(),
          expiryYear: Joi.number().integer().required(),
          cvc: Joi.string().required(),
          outcome: Joi.string().required(),
          threeDsCode: Joi.string().allow(null).required(),
        }).label('CheckoutTestCard'),
      )
      .required()
      .description('Sandbox stores only (empty otherwise): the test cards of the enabled providers.'),
  }),
);

const PublicOrderItem = Joi.object({
  title: Joi.string().required(),
  sku: Joi.string().allow(null).required(),
  options: Joi.object().pattern(Joi.string(), Joi.string()).required(),
  quantity: Joi.number().integer().min(1).required(),
  unitPrice: amount(),
  lineTotal: amount(),
}).label('StorefrontOrderItem');

export const PublicOrderView = Joi.object({
  id: uuid().required(),
  storeId: uuid().required(),
  status: oneOf(['PLACED', 'CANCELLED']).required().description('The order: CANCELLED after a declined payment.'),
  checkoutStatus: oneOf(CHECKOUT_STATUSES)
    .required()
    .description('PAID once the payment is captured; CHALLENGE_REQUIRED while 3-D Secure waits; DECLINED (order cancelled).'),
  currency: currency().required(),
  subtotal: amount(),
  shipping: Joi.object({ name: Joi.string().required(), price: amount() }).required(),
  total: amount().description('subtotal + shipping, rounded half up to 2 decimals: the amount charged.'),
  itemCount: Joi.number().integer().min(1).required(),
  items: Joi.array().items(PublicOrderItem).required(),
  customer: Joi.object({ name: Joi.string().required(), email: Joi.string().required() }).required(),
  shippingAddress: Joi.object({
    name: Joi.string().required(),
    line1: Joi.string().required(),
    line2: Joi.string().allow(null).required(),
    city: Joi.string().required(),
    district: Joi.string().required(),
    postalCode: Joi.string().allow(null).required(),
    country: Joi.string().required(),
  }).required(),
  payment: Joi.object({
    provider: Joi.string().required(),
    declineCode: Joi.string().allow(null).required(),
  }).required(),
  createdAt: dateTime().required(),
}).label('StorefrontOrder');

export const PublicOrderResponse = dto('StorefrontOrderResponse', PublicOrderView);

export const PlaceCheckoutResponse = dto(
  'PlaceCheckoutResponse',
  Joi.object({
    status: oneOf(['PAID', 'CHALLENGE_REQUIRED']).required(),
    orderId: uuid().required(),
    viewKey: Joi.string()
      .required()
      .description("The secret of the order's public page: GET /storefront/stores/{storeId}/orders/{orderId}?key=…; keep it."),
    challengeUrl: Joi.string()
      .allow(null)
      .required()
      .description("CHALLENGE_REQUIRED: send the shopper's browser here; it comes back to returnUrl. Null when PAID."),
    order: PublicOrderView.required(),
  }),
);

export const ChallengeReturnResponse = dto(
  'CheckoutReturnResponse',
  Joi.object({
    status: oneOf(['PAID', 'DECLINED']).required(),
    orderId: uuid().required(),
    declineCode: Joi.string().allow(null).required(),
  }),
);

export const CheckoutReturnDto = typedDto(
  'CheckoutReturnDto',
  t.object({
    query: t
      .custom<Record<string, string>>(
        Joi.object()
          .pattern(Joi.string().max(64), Joi.string().max(2048).allow(''))
          .max(30)
          .description('The query parameters the browser came back with from the challenge, as received (signed by the provider).'),
      )
      .required(),
  }),
);

export const viewKeyQuery = {
  key: Joi.string()
    .min(16)
    .max(128)
    .pattern(/^[A-Za-z0-9_-]+$/, 'view key')
    .required()
    .description("The order's view key from the checkout's answer."),
};
