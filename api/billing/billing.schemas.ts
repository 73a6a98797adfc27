/**
 * DTOs of the billing area: plans, the tenant's subscription, plan purchases, usage, and the
 * operator's dunning cases and subscription invoices. The provider callback body
 * (PspCallbackBodyDto) is shared with the app store and lives in the payments area.
 */
import { pendingDto } from '../http/route';

export const SubscribeDto = pendingDto('SubscribeDto');
export const PlanCheckoutDto = pendingDto('PlanCheckoutDto');
export const PayPlanPurchaseDto = pendingDto('PayPlanPurchaseDto');
export const UpsertDunningCaseDto = pendingDto('UpsertDunningCaseDto');
export const AdvanceDunningDto = pendingDto('AdvanceDunningDto');
export const UpsertSubscriptionInvoiceDto = pendingDto('UpsertSubscriptionInvoiceDto');
export const AdvanceSubscriptionInvoiceDto = pendingDto('AdvanceSubscriptionInvoiceDto');
