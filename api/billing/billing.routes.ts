/**
 * Billing: plans, the tenant's subscription and plan purchases (merchant), provider callbacks and
 * 3-D Secure pages (public), dunning and subscription invoices (platform operator).
 */
import Joi from 'joi';
import { defineRoutes } from '../http/route';
import { money, storeId, text } from '../http/schema-types';
import { PspCallbackBodyDto, pspProviderParam, threeDsTokenParam } from '../payments/payments.schemas';
import {
  AdvanceDunningDto,
  AdvanceSubscriptionInvoiceDto,
  PayPlanPurchaseDto,
  PlanCheckoutDto,
  SubscribeDto,
  UpsertDunningCaseDto,
  UpsertSubscriptionInvoiceDto,
} from './billing.schemas';

export const billingRoutes = defineRoutes({ tag: 'billing', auth: 'merchant' }, [
  { operationId: 'billing.listPlans', method: 'GET', path: '/billing/plans', summary: 'Subscription plans on offer', status: 200 },
  { operationId: 'billing.getSubscription', method: 'GET', path: '/billing/subscription', summary: "The tenant's current subscription", status: 200 },
  { operationId: 'billing.subscribe', method: 'POST', path: '/billing/subscription', summary: 'Subscribe to a plan', body: SubscribeDto, status: 201 },
  { operationId: 'billing.checkoutPlan', method: 'POST', path: '/billing/subscription/checkout', summary: 'Start the purchase of a plan', body: PlanCheckoutDto, status: 200 },
  {
    operationId: 'billing.planInstallments',
    method: 'GET',
    path: '/billing/plan-purchases/installments',
    summary: 'Installment options for paying a plan purchase amount by card',
    description:
      'amount is required because it is the subject of the operation, not a list filter. currency is 3 characters, default TRY; binNumber (the first digits of the card) is 6 to 8 characters.',
    query: {
      amount: money().greater(0).required(),
      currency: Joi.string().length(3).default('TRY'),
      binNumber: text(6, 8),
    },
    status: 200,
  },
  { operationId: 'billing.payPlanPurchase', method: 'POST', path: '/billing/plan-purchases/{id}/pay', summary: 'Pay a plan purchase', body: PayPlanPurchaseDto, status: 200 },
  { operationId: 'billing.planPurchaseStatus', method: 'GET', path: '/billing/plan-purchases/{id}/status', summary: 'Payment status of a plan purchase', status: 200 },
  { operationId: 'billing.cancelSubscription', method: 'POST', path: '/billing/subscription/cancel', summary: 'Cancel the subscription', status: 201 },
  { operationId: 'billing.storeFeatures', method: 'GET', path: '/billing/features', summary: "Features the tenant's plan enables for a store", query: { storeId: storeId() }, status: 200 },
  { operationId: 'billing.listMyInvoices', method: 'GET', path: '/billing/my-invoices', summary: "Invoices of the tenant's subscription", status: 200 },
  {
    operationId: 'billing.myInvoicePdf',
    method: 'GET',
    path: '/billing/my-invoices/{id}/pdf',
    summary: "Download an invoice of the tenant's subscription as PDF",
    description: 'Answers application/pdf.',
    status: 200,
  },
  { operationId: 'billing.usage', method: 'GET', path: '/billing/usage', summary: "Usage of the plan's limits in the current period", status: 200 },
  {
    operationId: 'billing.planPurchase3ds',
    method: 'GET',
    path: '/billing/plan-purchases/3ds/{token}',
    auth: 'public',
    summary: 'The 3-D Secure page of a plan purchase payment',
    description: 'Opened by the buyer\'s browser without a token; the path token identifies the payment.',
    params: { token: threeDsTokenParam },
    status: 200,
  },
  {
    operationId: 'billing.planPurchaseCallback',
    method: 'POST',
    path: '/billing/plan-purchases/callback/{provider}',
    auth: 'public',
    summary: 'Payment provider callback for a plan purchase',
    description: 'Called by the payment provider without a token; the service verifies the callback with the provider.',
    params: { provider: pspProviderParam },
    body: PspCallbackBodyDto,
    status: 201,
  },
  {
    operationId: 'billing.planPurchaseRedirect',
    method: 'GET',
    path: '/billing/plan-purchases/callback/{provider}',
    auth: 'public',
    summary: 'Redirect back from the payment provider after a plan purchase payment',
    params: { provider: pspProviderParam },
    status: 200,
  },
  { operationId: 'billing.listDunning', method: 'GET', path: '/billing/dunning', auth: 'platform', summary: 'Dunning cases of overdue subscriptions', status: 200 },
  {
    operationId: 'billing.upsertDunning',
    method: 'PUT',
    path: '/billing/dunning',
    auth: 'platform',
    summary: 'Create or update a dunning case',
    body: UpsertDunningCaseDto,
    status: 200,
  },
  {
    operationId: 'billing.advanceDunning',
    method: 'POST',
    path: '/billing/dunning/{id}/advance',
    auth: 'platform',
    summary: 'Advance a dunning case to its next step',
    body: AdvanceDunningDto,
    status: 200,
  },
  { operationId: 'billing.deleteDunning', method: 'DELETE', path: '/billing/dunning/{id}', auth: 'platform', summary: 'Delete a dunning case', status: 204 },
  { operationId: 'billing.listInvoices', method: 'GET', path: '/billing/invoices', auth: 'platform', summary: 'Subscription invoices of all tenants', status: 200 },
  {
    operationId: 'billing.upsertInvoice',
    method: 'PUT',
    path: '/billing/invoices',
    auth: 'platform',
    summary: 'Create or update a subscription invoice',
    body: UpsertSubscriptionInvoiceDto,
    status: 200,
  },
  {
    operationId: 'billing.advanceInvoice',
    method: 'POST',
    path: '/billing/invoices/{id}/advance',
    auth: 'platform',
    summary: 'Advance a subscription invoice to its next state',
    body: AdvanceSubscriptionInvoiceDto,
    status: 200,
  },
  { operationId: 'billing.retryInvoice', method: 'POST', path: '/billing/invoices/{id}/retry', auth: 'platform', summary: 'Retry collecting a subscription invoice', status: 200 },
  { operationId: 'billing.deleteInvoice', method: 'DELETE', path: '/billing/invoices/{id}', auth: 'platform', summary: 'Delete a subscription invoice', status: 204 },
]);
