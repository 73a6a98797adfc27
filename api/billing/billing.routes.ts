/**
 * Billing (docs/billing.md): plans, the tenant's subscription and plan purchases (merchant), provider
 * callbacks and 3-D Secure pages (public), dunning and subscription invoices (platform_admin only).
 */
import Joi from 'joi';
import { defineRoutes, idempotencyKeyOf, pagedPlainList, rawBodyOf, type RouteRequest } from '../http/route';
import { cursor, int, money, oneOf, storeId, text, uuid } from '../http/schema-types';
import { PspCallbackBodyDto, pspProviderParam, threeDsTokenParam } from '../payments/payments.schemas';
import {
  AdvanceDunningDto,
  AdvanceSubscriptionInvoiceDto,
  DUNNING_STEPS,
  INVOICE_STATUSES,
  PayPlanPurchaseDto,
  PlanCheckoutDto,
  SubscribeDto,
  UpsertDunningCaseDto,
  UpsertSubscriptionInvoiceDto,
  type AdvanceDunningInput,
  type AdvanceInvoiceInput,
  type PayPlanPurchaseInput,
  type PlanCheckoutInput,
  type SubscribeInput,
  type UpsertDunningInput,
  type UpsertInvoiceInput,
} from './billing.schemas';
import {
  CallbackAckResponse,
  DunningListResponse,
  DunningResponse,
  FeaturesResponse,
  InstallmentsResponse,
  InvoiceListResponse,
  InvoicePdf,
  InvoiceResponse,
  PlanListResponse,
  PlanPurchaseResponse,
  ReturnPage,
  SubscriptionResponse,
  ThreeDsPage,
  UsageResponse,
} from './billing.responses';
import * as D from './billing.descriptions';
import { listPlans } from './plans';
import { cancelSubscription, checkoutPlan, getSubscription, subscribe } from './subscription.service';
import { planInstallments, planPurchaseCallback, planPurchaseReturn, planPurchaseStatus, payPlanPurchase } from './purchases.service';
import { storeFeatures, usage } from './limits';
import {
  advanceInvoice,
  deleteInvoice,
  listInvoices,
  listMyInvoices,
  myInvoicePdf,
  upsertInvoice,
  type ListQuery,
} from './invoices.service';
import { retryInvoice } from './invoice-retry.service';
import { advanceDunning, deleteDunning, listDunning, upsertDunning, type DunningListQuery } from './dunning.service';
import { returnPage, threeDsPage } from './billing-pages';

type Params = Record<string, string>;

const LIST_LIMIT = { default: 20, max: 100 };
const pageQuery = {
  limit: int(1, LIST_LIMIT.max).default(LIST_LIMIT.default).description('Items per page, 1 to 100 (default 20).'),
  cursor: cursor(),
};
const paged = (description: string): string => `${description} ${pagedPlainList(LIST_LIMIT.default, LIST_LIMIT.max)}`;

/** The signed query of a provider's 3-D Secure return (the simulator's parameters; each optional, checked by its signature). */
const returnQuery = {
  provider_payment_id: text(1, 200).description('The provider payment id (signed).'),
  reference: text(1, 200).description('Our plan purchase id (signed).'),
  outcome: text(1, 40).description('AUTHORIZED, CAPTURED or DECLINED (signed).'),
  decline_code: text(1, 100).description('Why the challenge failed (signed).'),
  t: text(1, 20).description('When the provider signed the return (unix seconds).'),
  sig: text(1, 200).description('The provider signature over the other parameters.'),
};

const headersOf = (req: RouteRequest): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.koa.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
};

export const billingRoutes = defineRoutes({ tag: 'billing', auth: 'merchant', platformRoles: ['platform_admin'] }, [
  {
    operationId: 'billing.listPlans',
    method: 'GET',
    path: '/billing/plans',
    summary: 'Subscription plans on offer',
    description: D.LIST_PLANS,
    response: PlanListResponse,
    status: 200,
    handler: (req) => listPlans(req.context),
  },
  {
    operationId: 'billing.getSubscription',
    method: 'GET',
    path: '/billing/subscription',
    summary: "The tenant's current subscription",
    description: D.GET_SUBSCRIPTION,
    response: SubscriptionResponse,
    status: 200,
    handler: (req) => getSubscription(req.context),
  },
  {
    operationId: 'billing.subscribe',
    method: 'POST',
    path: '/billing/subscription',
    summary: 'Subscribe to a plan',
    description: D.SUBSCRIBE,
    body: SubscribeDto,
    response: SubscriptionResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, SubscribeInput>) => subscribe(req.context, req.body),
  },
  {
    operationId: 'billing.checkoutPlan',
    method: 'POST',
    path: '/billing/subscription/checkout',
    summary: 'Start the purchase of a plan',
    description: D.CHECKOUT,
    body: PlanCheckoutDto,
    response: PlanPurchaseResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, PlanCheckoutInput>) => checkoutPlan(req.context, req.body),
  },
  {
    operationId: 'billing.planInstallments',
    method: 'GET',
    path: '/billing/plan-purchases/installments',
    summary: 'Installment options for paying a plan purchase amount by card',
    description: `${D.INSTALLMENTS} amount is required because it is the subject of the operation, not a list filter. currency is 3 characters, default TRY; binNumber (the first digits of the card) is 6 to 8 characters.`,
    query: {
      amount: money().greater(0).required(),
      currency: Joi.string().length(3).default('TRY'),
      binNumber: text(6, 8),
    },
    response: InstallmentsResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) =>
      planInstallments(req.context, req.query as { amount: number; currency: string; binNumber?: string }),
  },
  {
    operationId: 'billing.payPlanPurchase',
    method: 'POST',
    path: '/billing/plan-purchases/{id}/pay',
    summary: 'Pay a plan purchase',
    description: D.PAY,
    body: PayPlanPurchaseDto,
    response: PlanPurchaseResponse,
    status: 200,
    idempotencyKey: true,
    handler: (req: RouteRequest<Params, Params, PayPlanPurchaseInput>) =>
      payPlanPurchase(req.context, req.params.id!, req.body, idempotencyKeyOf(req)),
  },
  {
    operationId: 'billing.planPurchaseStatus',
    method: 'GET',
    path: '/billing/plan-purchases/{id}/status',
    summary: 'Payment status of a plan purchase',
    description: D.STATUS,
    response: PlanPurchaseResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => planPurchaseStatus(req.context, req.params.id!),
  },
  {
    operationId: 'billing.cancelSubscription',
    method: 'POST',
    path: '/billing/subscription/cancel',
    summary: 'Cancel the subscription',
    description: D.CANCEL,
    response: SubscriptionResponse,
    status: 201,
    problems: [409],
    handler: (req) => cancelSubscription(req.context),
  },
  {
    operationId: 'billing.storeFeatures',
    method: 'GET',
    path: '/billing/features',
    summary: "Features the tenant's plan enables for a store",
    description: D.FEATURES,
    query: { storeId: storeId() },
    response: FeaturesResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => storeFeatures(req.context, req.query.storeId as string),
  },
  {
    operationId: 'billing.listMyInvoices',
    method: 'GET',
    path: '/billing/my-invoices',
    summary: "Invoices of the tenant's subscription",
    description: paged(D.MY_INVOICES),
    query: pageQuery,
    response: InvoiceListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listMyInvoices(req.context, req.query as ListQuery),
  },
  {
    operationId: 'billing.myInvoicePdf',
    method: 'GET',
    path: '/billing/my-invoices/{id}/pdf',
    summary: "Download an invoice of the tenant's subscription as PDF",
    description: D.MY_INVOICE_PDF,
    response: InvoicePdf,
    status: 200,
    handler: async (req: RouteRequest<Params>) => {
      const pdf = await myInvoicePdf(req.context, req.params.id!);
      req.koa.type = 'application/pdf';
      req.koa.set('Content-Disposition', `attachment; filename="invoice-${req.params.id!}.pdf"`);
      return pdf;
    },
  },
  {
    operationId: 'billing.usage',
    method: 'GET',
    path: '/billing/usage',
    summary: "Usage of the plan's limits in the current period",
    description: D.USAGE,
    response: UsageResponse,
    status: 200,
    handler: (req) => usage(req.context),
  },
  {
    operationId: 'billing.planPurchase3ds',
    method: 'GET',
    path: '/billing/plan-purchases/3ds/{token}',
    auth: 'public',
    summary: 'The 3-D Secure page of a plan purchase payment',
    description: `${D.THREE_DS_PAGE} Opened by the buyer's browser without a token; the path token identifies the payment.`,
    params: { token: threeDsTokenParam },
    response: ThreeDsPage,
    status: 200,
    problems: [404],
    handler: (req: RouteRequest<Params>) => threeDsPage(req.context, req.params.token!),
  },
  {
    operationId: 'billing.planPurchaseCallback',
    method: 'POST',
    path: '/billing/plan-purchases/callback/{provider}',
    auth: 'public',
    summary: 'Payment provider callback for a plan purchase',
    description: `${D.CALLBACK} Called by the payment provider without a token.`,
    params: { provider: pspProviderParam },
    body: PspCallbackBodyDto,
    response: CallbackAckResponse,
    status: 201,
    problems: [404],
    handler: (req: RouteRequest<Params>) => planPurchaseCallback(req.context, req.params.provider!, headersOf(req), rawBodyOf(req)),
  },
  {
    operationId: 'billing.planPurchaseRedirect',
    method: 'GET',
    path: '/billing/plan-purchases/callback/{provider}',
    auth: 'public',
    summary: 'Redirect back from the payment provider after a plan purchase payment',
    description: D.RETURN,
    params: { provider: pspProviderParam },
    query: returnQuery,
    response: ReturnPage,
    status: 200,
    problems: [404],
    handler: async (req: RouteRequest<Params, Record<string, string | undefined>>) =>
      returnPage(await planPurchaseReturn(req.context, req.params.provider!, req.query)),
  },
  {
    operationId: 'billing.listDunning',
    method: 'GET',
    path: '/billing/dunning',
    auth: 'platform',
    summary: 'Dunning cases of overdue subscriptions',
    description: paged(D.LIST_DUNNING),
    query: {
      ...pageQuery,
      tenantId: uuid().description('Only the cases of this tenant (not in the specification).'),
      step: oneOf(DUNNING_STEPS).description('Only the cases at this step (not in the specification).'),
    },
    response: DunningListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listDunning(req.context, req.query as DunningListQuery),
  },
  {
    operationId: 'billing.upsertDunning',
    method: 'PUT',
    path: '/billing/dunning',
    auth: 'platform',
    summary: 'Create or update a dunning case',
    description: D.UPSERT_DUNNING,
    body: UpsertDunningCaseDto,
    response: DunningResponse,
    status: 200,
    problems: [404, 409],
    handler: (req: RouteRequest<Params, Params, UpsertDunningInput>) => upsertDunning(req.context, req.body),
  },
  {
    operationId: 'billing.advanceDunning',
    method: 'POST',
    path: '/billing/dunning/{id}/advance',
    auth: 'platform',
    summary: 'Advance a dunning case to its next step',
    description: D.ADVANCE_DUNNING,
    body: AdvanceDunningDto,
    response: DunningResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, AdvanceDunningInput>) => advanceDunning(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'billing.deleteDunning',
    method: 'DELETE',
    path: '/billing/dunning/{id}',
    auth: 'platform',
    summary: 'Delete a dunning case',
    description: D.DELETE_DUNNING,
    status: 204,
    problems: [409],
    handler: (req: RouteRequest<Params>) => deleteDunning(req.context, req.params.id!),
  },
  {
    operationId: 'billing.listInvoices',
    method: 'GET',
    path: '/billing/invoices',
    auth: 'platform',
    summary: 'Subscription invoices of all tenants',
    description: paged(D.LIST_INVOICES),
    query: {
      ...pageQuery,
      tenantId: uuid().description('Only the invoices of this tenant (not in the specification).'),
      status: oneOf(INVOICE_STATUSES).description('Only the invoices in this state (not in the specification).'),
    },
    response: InvoiceListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listInvoices(req.context, req.query as ListQuery),
  },
  {
    operationId: 'billing.upsertInvoice',
    method: 'PUT',
    path: '/billing/invoices',
    auth: 'platform',
    summary: 'Create or update a subscription invoice',
    description: D.UPSERT_INVOICE,
    body: UpsertSubscriptionInvoiceDto,
    response: InvoiceResponse,
    status: 200,
    problems: [404, 409],
    handler: (req: RouteRequest<Params, Params, UpsertInvoiceInput>) => upsertInvoice(req.context, req.body),
  },
  {
    operationId: 'billing.advanceInvoice',
    method: 'POST',
    path: '/billing/invoices/{id}/advance',
    auth: 'platform',
    summary: 'Advance a subscription invoice to its next state',
    description: D.ADVANCE_INVOICE,
    body: AdvanceSubscriptionInvoiceDto,
    response: InvoiceResponse,
    status: 200,
    problems: [409],
    handler: (req: RouteRequest<Params, Params, AdvanceInvoiceInput>) => advanceInvoice(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'billing.retryInvoice',
    method: 'POST',
    path: '/billing/invoices/{id}/retry',
    auth: 'platform',
    summary: 'Retry collecting a subscription invoice',
    description: D.RETRY_INVOICE,
    response: InvoiceResponse,
    status: 200,
    idempotencyKey: true,
    problems: [409],
    handler: (req: RouteRequest<Params>) => retryInvoice(req.context, req.params.id!, idempotencyKeyOf(req)),
  },
  {
    operationId: 'billing.deleteInvoice',
    method: 'DELETE',
    path: '/billing/invoices/{id}',
    auth: 'platform',
    summary: 'Delete a subscription invoice',
    description: D.DELETE_INVOICE,
    status: 204,
    problems: [409],
    handler: (req: RouteRequest<Params>) => deleteInvoice(req.context, req.params.id!),
  },
]);
