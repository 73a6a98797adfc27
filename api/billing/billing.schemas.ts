/**
 * DTOs of the billing area: plans, the tenant's subscription, plan purchases, usage, and the
 * operator's dunning cases and subscription invoices. The specification names the DTOs but not their
 * fields; the fields below are this platform's design (docs/billing.md). Amounts are decimals with at
 * most 2 decimals in an ISO 4217 currency. The provider callback body (PspCallbackBodyDto) is shared
 * with the app store and lives in the payments area.
 */
import Joi from 'joi';
import { t, typedDto, type InputOf } from '../http/typed-schema';
import { currency, dateTime, int, money, uuid } from '../http/schema-types';

/** The payment providers a card can be charged through (the payment-provider port's names). */
export const BILLING_PROVIDERS = ['iyzico', 'stripe', 'adyen'] as const;
/** States of a plan purchase (docs/billing.md, "Plan purchases"). */
export const PLAN_PURCHASE_STATUSES = ['PENDING', 'REQUIRES_ACTION', 'PAID', 'FAILED'] as const;
export type PlanPurchaseStatus = (typeof PLAN_PURCHASE_STATUSES)[number];
/** States of a subscription invoice (docs/billing.md, "Invoices"). */
export const INVOICE_STATUSES = ['DRAFT', 'OPEN', 'PAID', 'FAILED', 'VOID'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
/** The states an invoice can be advanced to by hand. */
export const INVOICE_TARGETS = ['OPEN', 'PAID', 'FAILED', 'VOID'] as const;
/** Steps of a dunning case (docs/billing.md, "Dunning"). */
export const DUNNING_STEPS = ['REMINDER', 'GRACE', 'SUSPENDED', 'RESOLVED'] as const;
export type DunningStep = (typeof DUNNING_STEPS)[number];
/** The steps a dunning case can be advanced to by hand. */
export const DUNNING_TARGETS = ['GRACE', 'SUSPENDED', 'RESOLVED'] as const;

/** A plan code: upper-case letters, digits and underscores, 2 to 40 characters (FREE, STARTER, GROWTH, SCALE). */
export const planCode = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Z][A-Z0-9_]{1,39}$/, 'plan code')
    .description('Plan code (GET /billing/plans), e.g. STARTER.');

const note = (): Joi.StringSchema => Joi.string().trim().min(1).max(1000);

export const SubscribeDto = typedDto(
  'SubscribeDto',
  t.object({
    plan: t
      .string(
        planCode().description(
          'The plan to subscribe to. FREE takes effect at once (a paid subscription ends); a paid plan answers a PENDING plan purchase to pay.',
        ),
      )
      .required(),
  }),
);

export const PlanCheckoutDto = typedDto(
  'PlanCheckoutDto',
  t.object({
    plan: t
      .string(planCode().description('The paid plan to buy one monthly period of (the current plan to renew it, another to change plan).'))
      .required(),
  }),
);

const CardDto = t.object({
  number: t
    .string(
      Joi.string()
        .pattern(/^\d{12,19}$/, 'card number')
        .description('Card number, 12 to 19 digits, no spaces.'),
    )
    .required(),
  expiryMonth: t.number(int(1, 12).description('Expiry month, 1 to 12.')).required(),
  expiryYear: t.number(int(2000, 2100).description('Expiry year, four digits.')).required(),
  cvc: t
    .string(
      Joi.string()
        .pattern(/^\d{3,4}$/, 'CVC')
        .description('Card security code, 3 or 4 digits.'),
    )
    .required(),
  holderName: t.string(Joi.string().trim().min(1).max(100).description('Name on the card, 1 to 100 characters.')).required(),
});

export const PayPlanPurchaseDto = typedDto(
  'PayPlanPurchaseDto',
  t.object({
    provider: t.oneOf(BILLING_PROVIDERS, (s) => s.description('The payment provider that charges the card.')).required(),
    card: CardDto.required(),
    installments: t.number(int(1, 12).description('Number of installments, 1 (default: a single payment) to 12.')).default(1),
    captureNow: t
      .boolean(Joi.boolean().description('Authorize and capture in one step (default true); false captures right after the authorization.'))
      .default(true),
    saveCard: t
      .boolean(
        Joi.boolean().description(
          'Have the provider keep the card (we keep its token) as the tenant payment method, so a FAILED invoice can be collected again (POST /billing/invoices/{id}/retry). Default false.',
        ),
      )
      .default(false),
  }),
);

const InvoiceLineDto = t.object({
  description: t.string(Joi.string().trim().min(1).max(200).description('What is billed, 1 to 200 characters.')).required(),
  quantity: t.number(int(1, 10_000).description('Quantity, 1 to 10,000.')).required(),
  unitPrice: t
    .number(money().precision(2).prefs({ convert: false }).description('Price of one unit before VAT, at most 2 decimals.'))
    .required(),
});

export const UpsertSubscriptionInvoiceDto = typedDto(
  'UpsertSubscriptionInvoiceDto',
  t.object({
    id: t.string(uuid().description('The DRAFT invoice to replace; absent: a new DRAFT invoice.')),
    tenantId: t.string(uuid().description('The tenant billed.')).required(),
    planCode: t.string(planCode().description('The plan the invoice is for, if any.')).nullable(),
    currency: t.string(currency().description('ISO 4217 currency; default TRY.')).default('TRY'),
    lines: t.array(InvoiceLineDto, Joi.array().min(1).max(50).description('The invoice lines, 1 to 50.')).required(),
    vatRate: t
      .number(Joi.number().min(0).max(100).precision(3).prefs({ convert: false }).description('VAT rate in percent, 0 to 100; default 20.'))
      .default(20),
    periodStart: t.date(dateTime().description('Start of the billed period.')).nullable(),
    periodEnd: t.date(dateTime().description('End of the billed period.')).nullable(),
    dueAt: t.date(dateTime().description('When the invoice is due.')).nullable(),
  }),
);

export const AdvanceSubscriptionInvoiceDto = typedDto(
  'AdvanceSubscriptionInvoiceDto',
  t.object({
    to: t
      .oneOf(INVOICE_TARGETS, (s) =>
        s.description('The state to move to: DRAFT → OPEN → PAID | FAILED | VOID; FAILED → OPEN | PAID | VOID.'),
      )
      .required(),
    reason: t.string(note().description('Why (kept in the audit log and as the last error of a FAILED invoice), 1 to 1000 characters.')),
  }),
);

export const UpsertDunningCaseDto = typedDto(
  'UpsertDunningCaseDto',
  t.object({
    id: t.string(uuid().description('The dunning case to update (its note); absent: a new case.')),
    invoiceId: t.string(uuid().description('The unpaid (OPEN or FAILED) invoice the case is about; required for a new case.')),
    note: t.string(note().description('A note of the operator, 1 to 1000 characters; null clears it.')).nullable(),
  }),
);

export const AdvanceDunningDto = typedDto(
  'AdvanceDunningDto',
  t.object({
    to: t.oneOf(DUNNING_TARGETS, (s) =>
      s.description(
        'The step to move to; absent: the next step (REMINDER → GRACE → SUSPENDED). RESOLVED ends the case from any open step.',
      ),
    ),
    note: t.string(note().description('A note of the operator, 1 to 1000 characters.')),
  }),
);

export type SubscribeInput = InputOf<typeof SubscribeDto>;
export type PlanCheckoutInput = InputOf<typeof PlanCheckoutDto>;
export type PayPlanPurchaseInput = InputOf<typeof PayPlanPurchaseDto>;
export type UpsertInvoiceInput = InputOf<typeof UpsertSubscriptionInvoiceDto>;
export type AdvanceInvoiceInput = InputOf<typeof AdvanceSubscriptionInvoiceDto>;
export type UpsertDunningInput = InputOf<typeof UpsertDunningCaseDto>;
export type AdvanceDunningInput = InputOf<typeof AdvanceDunningDto>;
