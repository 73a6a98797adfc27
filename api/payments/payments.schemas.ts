/**
 * DTOs and response schemas of the payments area, and the path parameters every payment-provider
 * callback and 3-D Secure page shares (plan purchases in billing, app purchases in the app store).
 * Amounts are JSON decimal numbers with at most the currency's minor-unit decimals (more is a 400
 * amount_invalid, never rounded); the card is sent once and never stored beyond brand and last 4 digits.
 */
import Joi from 'joi';
import { dto, formDto, htmlDocument } from '../http/route';
import { t, typedDto, type InputOf } from '../http/typed-schema';
import { httpUrl, money, text, uuid } from '../http/schema-types';
import { PAYMENT_PROVIDERS } from './providers/port';
import { PAYMENT_STATUSES } from './payment-states';

/** A payment amount: greater than 0, at most 4 decimals here, at most the currency's minor unit in the service. */
const amount = (): Joi.NumberSchema => money().greater(0).prefs({ convert: false });

export const cardSchema = () =>
  t.object({
    number: t
      .string(
        Joi.string()
          .pattern(/^[0-9]{12,19}$/, 'card number')
          .description('The card number, 12 to 19 digits without spaces (sandbox test cards: GET /sandbox/test-cards).'),
      )
      .required(),
    expiryMonth: t.number(Joi.number().integer().min(1).max(12).description('1 to 12.')).required(),
    expiryYear: t.number(Joi.number().integer().min(2000).max(2100).description('Four digits, e.g. 2030.')).required(),
    cvc: t
      .string(
        Joi.string()
          .pattern(/^[0-9]{3,4}$/, 'CVC')
          .description('3 or 4 digits.'),
      )
      .required(),
    holderName: t.string(text(1, 120).trim().description('The name on the card, 1 to 120 characters.')).required(),
  });

export const providerField = () => t.oneOf(PAYMENT_PROVIDERS, (s) => s.description('The payment provider: iyzico, stripe or adyen.'));

export const CreatePaymentDto = typedDto(
  'CreatePaymentDto',
  t.object({
    orderId: t
      .string(uuid().description('The order to pay (404 order_not_found for an unknown order or one of another tenant).'))
      .required(),
    provider: providerField().required(),
    card: cardSchema().required(),
    installments: t
      .number(Joi.number().integer().min(1).max(12).description("1 (single payment) to 12; the card's BIN decides which counts it offers."))
      .default(1),
    amount: t.number(
      amount().description(
        "The amount to authorize; default the order's unpaid total (its total minus what live payments hold). Above the unpaid total answers 409 amount_exceeds_unpaid.",
      ),
    ),
    returnUrl: t.string(
      httpUrl().description(
        'Where the shopper is sent after a 3-D Secure challenge, once the payment is updated (paymentId and status are appended).',
      ),
    ),
    callbackUrl: t.string(
      httpUrl().description(
        "Where the provider posts its signed callbacks; default this platform's POST /payments/callbacks/{provider}. Give another only for a proxy that forwards them there.",
      ),
    ),
  }),
);
export type CreatePaymentInput = InputOf<typeof CreatePaymentDto>;

/** The `amount` query parameter of a capture (the specification lists no capture body). */
export const captureAmountParam = Joi.number()
  .greater(0)
  .max(1_000_000_000)
  .precision(4)
  .description('The amount to capture (a decimal number); default everything authorized and not captured yet.');
export interface CapturePaymentInput {
  amount?: number;
}

export const RefundPaymentDto = typedDto(
  'RefundPaymentDto',
  t.object({
    amount: t.number(amount().description('The amount to refund; default (an empty object) everything captured and not refunded yet.')),
    reason: t.string(text(1, 500).trim().description('Why, kept in the ledger (1 to 500 characters).')),
  }),
);
export type RefundPaymentInput = InputOf<typeof RefundPaymentDto>;

export const ConfirmManualRefundDto = typedDto(
  'ConfirmManualRefundDto',
  t.object({
    amount: t
      .number(
        amount().description('The amount paid back by hand: must equal the pending manual refund (409 manual_refund_amount_mismatch).'),
      )
      .required(),
    reference: t.string(text(1, 200).trim().description('The bank transfer or receipt reference of the repayment (1 to 200 characters).')),
  }),
);
export type ConfirmManualRefundInput = InputOf<typeof ConfirmManualRefundDto>;

/** The body a payment provider posts to a callback URL (payments, plan and app purchases); checked by its signature. */
export const PspCallbackBodyDto = dto(
  'PspCallbackBodyDto',
  Joi.object({
    eventId: text(1, 200).required().description('The provider event id; a replay of a seen id changes nothing.'),
    provider: Joi.string()
      .valid(...PAYMENT_PROVIDERS)
      .required(),
    occurredAt: Joi.string().isoDate().required(),
    type: Joi.string()
      .valid('payment.authorized', 'payment.captured', 'payment.declined', 'payment.refunded', 'refund.manual_required')
      .required(),
    providerPaymentId: text(1, 200).required(),
    reference: text(1, 200).required().description('Our id of the charge (payment, plan purchase or app purchase).'),
    amount: Joi.string()
      .pattern(/^\d{1,10}(\.\d{1,4})?$/)
      .description('Decimal string.'),
    declineCode: text(1, 100),
  }).description('A signed provider callback (header X-Provider-Signature: t=<unix seconds>,v1=<HMAC-SHA256 hex over "<t>.<raw body>">).'),
);

export const ProviderCallbackAnswer = dto(
  'ProviderCallbackAnswer',
  Joi.object({
    received: Joi.boolean().valid(true).required(),
    duplicate: Joi.boolean().required().description('True when this event id was seen before (nothing changed).'),
    applied: Joi.boolean().required().description('True when the callback changed a payment.'),
    paymentId: uuid().allow(null).required(),
  }),
);

const num = () => Joi.number();

export const PaymentView = dto(
  'PaymentView',
  Joi.object({
    id: uuid().required(),
    orderId: uuid().required(),
    storeId: uuid().required(),
    provider: Joi.string()
      .valid(...PAYMENT_PROVIDERS)
      .required(),
    providerPaymentId: Joi.string().allow(null).required(),
    status: Joi.string()
      .valid(...PAYMENT_STATUSES)
      .required(),
    currency: Joi.string().required(),
    amount: num().required().description('Authorized (or asked for, while PENDING_CHALLENGE or DECLINED).'),
    captured: num().required(),
    refunded: num().required(),
    pendingManualRefund: num()
      .required()
      .description('A refund the provider left to be paid back by hand, waiting for confirm-manual or cancel-manual.'),
    capturable: num().required().description('What may still be captured.'),
    refundable: num().required().description('What may still be refunded: captured − refunded − pendingManualRefund.'),
    installments: Joi.number().integer().required(),
    card: Joi.object({ brand: Joi.string().required(), last4: Joi.string().required() }).allow(null).required(),
    declineCode: Joi.string().allow(null).required(),
    declineMessage: Joi.string().allow(null).required(),
    challenge: Joi.object({
      url: Joi.string().required().description("The provider's 3-D Secure page to send the shopper to."),
      expiresAt: Joi.date().iso().required(),
    })
      .allow(null)
      .required()
      .description('Set while PENDING_CHALLENGE.'),
    operations: Joi.array()
      .items(
        Joi.object({
          id: uuid().required(),
          kind: Joi.string().required(),
          amount: num().required(),
          providerReference: Joi.string().allow(null).required(),
          note: Joi.string().allow(null).required(),
          createdAt: Joi.date().iso().required(),
        }),
      )
      .required()
      .description('The ledger of the payment, oldest first.'),
    createdAt: Joi.date().iso().required(),
    updatedAt: Joi.date().iso().required(),
  }),
);

export const ChallengeAnswerDto = formDto(
  'SimulatorChallengeAnswerDto',
  Joi.object({ code: Joi.string().trim().min(1).max(12).required().description('The one-time code of the 3-D Secure challenge.') }),
);

export const ChallengePage = htmlDocument(
  'SimulatorChallengePage',
  "The payment simulator's 3-D Secure challenge page: the charge and a code form.",
);
export const ReturnPage = htmlDocument('PaymentReturnPage', 'The outcome of a 3-D Secure challenge of a payment.');

/**
 * `{provider}` of the callback paths: the configured payment provider's key, lower-case letters,
 * digits and hyphens, 1 to 40 characters (the specification does not type it).
 */
export const pspProviderParam = text(1, 40)
  .pattern(/^[a-z][a-z0-9-]*$/, 'provider key')
  .required()
  .description('Key of the payment provider (lower-case letters, digits, hyphens; 1 to 40 characters).');

/** `{provider}` of the simulator's and the payments' own paths: one of the three providers. */
export const knownProviderParam = Joi.string()
  .valid(...PAYMENT_PROVIDERS)
  .required()
  .description('The payment provider: iyzico, stripe or adyen.');

/**
 * `{token}` of the 3-D Secure pages: an opaque URL-safe token the service issued when it started the
 * payment, 16 to 512 characters (the specification does not type it).
 */
export const threeDsTokenParam = text(16, 512)
  .pattern(/^[A-Za-z0-9_-]+$/, 'URL-safe token')
  .required()
  .description('Opaque URL-safe token issued when the 3-D Secure payment was started (16 to 512 characters).');
