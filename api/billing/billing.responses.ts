/** The response schemas of the billing area (the views of billing.views.ts); every answer is checked against them in tests. */
import Joi from 'joi';
import { dto, htmlDocument } from '../http/route';
import { DUNNING_STEPS, INVOICE_STATUSES, PLAN_PURCHASE_STATUSES } from './billing.schemas';
import { LIMIT_NAMES, USAGE_METRICS } from './billing.views';

const iso = () => Joi.string().isoDate();
const isoOrNull = () => Joi.string().isoDate().allow(null).required();
const amount = () => Joi.number().min(0);
const nextCursor = () => Joi.string().allow(null).required().description('Pass as cursor for the next page; null on the last page.');
const count = () => Joi.number().integer().min(0).allow(null).required();

const Limits = Joi.object({
  stores: count().description('Most stores; null: no limit.'),
  products: count().description('Most products over all stores; null: no limit.'),
  staffMembers: count().description('Most members of the tenant (owner included); null: no limit.'),
  apiCallsPerMonth: count().description('API key requests per calendar month (counted, not refused); null: no limit.'),
}).label('PlanLimits');

const Features = Joi.object({
  visualSearch: Joi.boolean().required(),
  sponsoredListings: Joi.boolean().required(),
  customDomain: Joi.boolean().required(),
}).label('PlanFeatures');

const Plan = Joi.object({
  code: Joi.string().required(),
  name: Joi.string().required(),
  description: Joi.string().allow('').required(),
  monthlyPrice: amount().required().description('Price of one monthly period before VAT.'),
  currency: Joi.string().required(),
  limits: Limits.required(),
  features: Features.required(),
}).label('Plan');

export const PlanListResponse = dto('PlanListResponse', Joi.object({ items: Joi.array().items(Plan).required() }));

const NextAction = Joi.object({
  type: Joi.string().valid('THREE_DS').required(),
  url: Joi.string().required().description('Our 3-D Secure page of the purchase: send the buyer there.'),
  expiresAt: isoOrNull(),
})
  .allow(null)
  .label('PlanPurchaseNextAction');

const Purchase = Joi.object({
  id: Joi.string().required(),
  planCode: Joi.string().required(),
  amount: amount().required(),
  currency: Joi.string().required(),
  status: Joi.string()
    .valid(...PLAN_PURCHASE_STATUSES)
    .required(),
  provider: Joi.string().allow(null).required(),
  installments: Joi.number().integer().min(1).required(),
  cardBrand: Joi.string().allow(null).required(),
  cardLast4: Joi.string().allow(null).required(),
  declineCode: Joi.string().allow(null).required(),
  failureMessage: Joi.string().allow(null).required(),
  nextAction: NextAction.required(),
  invoiceId: Joi.string().allow(null).required(),
  paidAt: isoOrNull(),
  createdAt: iso().required(),
  updatedAt: iso().required(),
}).label('PlanPurchase');

export const PlanPurchaseResponse = dto('PlanPurchaseResponse', Purchase);

export const SubscriptionResponse = dto(
  'SubscriptionResponse',
  Joi.object({
    plan: Plan.required(),
    status: Joi.string().valid('ACTIVE', 'CANCELLED').required(),
    free: Joi.boolean().required().description('True on the free plan (no paid subscription).'),
    currentPeriodStart: isoOrNull(),
    currentPeriodEnd: isoOrNull(),
    cancelAtPeriodEnd: Joi.boolean().required(),
    cancelledAt: isoOrNull(),
    pendingPlanCode: Joi.string().allow(null).required().description('A paid plan asked for and waiting for its purchase to be paid.'),
    pendingPurchase: Purchase.allow(null).required(),
    suspended: Joi.boolean().required().description('True while a dunning case has suspended the tenant.'),
  }),
);

export const InstallmentsResponse = dto(
  'PlanInstallmentsResponse',
  Joi.object({
    provider: Joi.string().required(),
    amount: amount().required(),
    currency: Joi.string().required(),
    options: Joi.array()
      .items(
        Joi.object({ count: Joi.number().integer().min(1).required(), perInstallment: amount().required(), total: amount().required() }),
      )
      .required(),
  }),
);

const LimitUse = Joi.object({
  name: Joi.string()
    .valid(...LIMIT_NAMES)
    .required(),
  limit: count(),
  used: Joi.number().integer().min(0).required(),
  remaining: count(),
}).label('PlanLimitUse');

export const FeaturesResponse = dto(
  'StoreFeaturesResponse',
  Joi.object({
    storeId: Joi.string().required(),
    planCode: Joi.string().required(),
    features: Features.required(),
    limits: Joi.array().items(LimitUse).required(),
  }),
);

export const UsageResponse = dto(
  'BillingUsageResponse',
  Joi.object({
    planCode: Joi.string().required(),
    periodStart: iso().required(),
    periodEnd: iso().required(),
    metrics: Joi.array()
      .items(
        Joi.object({
          name: Joi.string()
            .valid(...USAGE_METRICS)
            .required(),
          used: Joi.number().integer().min(0).required(),
          limit: count(),
        }),
      )
      .required(),
  }),
);

const Invoice = Joi.object({
  id: Joi.string().required(),
  tenantId: Joi.string().required(),
  number: Joi.string().allow(null).required().description('INV-<year>-<6 digits>, gapless per tenant and year; null while DRAFT.'),
  status: Joi.string()
    .valid(...INVOICE_STATUSES)
    .required(),
  planCode: Joi.string().allow(null).required(),
  currency: Joi.string().required(),
  lines: Joi.array()
    .items(
      Joi.object({
        description: Joi.string().required(),
        quantity: Joi.number().integer().required(),
        unitPrice: amount().required(),
        amount: amount().required(),
      }),
    )
    .required(),
  vatRate: Joi.number().required(),
  subtotal: amount().required(),
  vatAmount: amount().required(),
  total: amount().required(),
  periodStart: isoOrNull(),
  periodEnd: isoOrNull(),
  dueAt: isoOrNull(),
  issuedAt: isoOrNull(),
  paidAt: isoOrNull(),
  purchaseId: Joi.string().allow(null).required(),
  attempts: Joi.number().integer().min(0).required(),
  lastError: Joi.string().allow(null).required(),
  createdAt: iso().required(),
  updatedAt: iso().required(),
}).label('SubscriptionInvoice');

export const InvoiceResponse = dto('SubscriptionInvoiceResponse', Invoice);
export const InvoiceListResponse = dto(
  'SubscriptionInvoiceListResponse',
  Joi.object({ items: Joi.array().items(Invoice).required(), nextCursor: nextCursor() }),
);

const Dunning = Joi.object({
  id: Joi.string().required(),
  tenantId: Joi.string().required(),
  invoiceId: Joi.string().required(),
  step: Joi.string()
    .valid(...DUNNING_STEPS)
    .required(),
  note: Joi.string().allow(null).required(),
  stepEnteredAt: iso().required(),
  nextStepAt: isoOrNull(),
  resolvedAt: isoOrNull(),
  createdAt: iso().required(),
  updatedAt: iso().required(),
}).label('DunningCase');

export const DunningResponse = dto('DunningCaseResponse', Dunning);
export const DunningListResponse = dto(
  'DunningCaseListResponse',
  Joi.object({ items: Joi.array().items(Dunning).required(), nextCursor: nextCursor() }),
);

export const CallbackAckResponse = dto(
  'PlanPurchaseCallbackAck',
  Joi.object({
    received: Joi.boolean().valid(true).required(),
    changed: Joi.boolean().required().description('False for a replayed event, an unknown purchase or one already settled.'),
  }),
);

export const InvoicePdf = {
  name: 'SubscriptionInvoicePdf',
  schema: Joi.string().description('The invoice as a PDF document.'),
  contentType: 'application/pdf' as unknown as 'text/csv',
  pending: false,
};

export const ThreeDsPage = htmlDocument(
  'PlanPurchaseThreeDsPage',
  "An HTML page with the purchase summary and a button that opens the payment provider's 3-D Secure challenge.",
);
export const ReturnPage = htmlDocument(
  'PlanPurchaseReturnPage',
  'An HTML page saying whether the plan purchase was paid, with a link back to the console.',
);
