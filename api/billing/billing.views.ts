/**
 * Rows of the billing tables as read with SQL, and their API views. Amounts come from numeric columns
 * as strings and are answered as JSON numbers read from their exact decimal text (docs/decisions.md,
 * Money).
 */
import { formatUnits, toUnits } from '../../domain/money';
import type { DunningStep, InvoiceStatus, PlanPurchaseStatus } from './billing.schemas';

/** The plan limits, by their API names (docs/billing.md, "Plans and limits"). */
export const LIMIT_NAMES = ['stores', 'products', 'staffMembers', 'apiCallsPerMonth'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
/** What GET /billing/usage measures (docs/billing.md, "Usage"). */
export const USAGE_METRICS = ['products', 'stores', 'orders', 'staffMembers', 'apiCalls'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

/** A decimal column as a JSON number, read from its exact text. */
export const decimal = (value: string): number => Number(formatUnits(toUnits(value), 4));
const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export interface PlanRow {
  code: string;
  name: string;
  description: string;
  monthly_price: string;
  currency: string;
  max_stores: number | null;
  max_products: number | null;
  max_staff: number | null;
  max_api_calls_per_month: number | null;
  features: Record<string, boolean>;
}

export const PLAN_COLUMNS =
  'code, name, description, monthly_price, currency, max_stores, max_products, max_staff, max_api_calls_per_month, features';

export function planLimits(plan: PlanRow): Record<LimitName, number | null> {
  return {
    stores: plan.max_stores,
    products: plan.max_products,
    staffMembers: plan.max_staff,
    apiCallsPerMonth: plan.max_api_calls_per_month,
  };
}

export const planFeatures = (plan: PlanRow) => ({
  visualSearch: plan.features.visualSearch === true,
  sponsoredListings: plan.features.sponsoredListings === true,
  customDomain: plan.features.customDomain === true,
});

export function planView(plan: PlanRow) {
  return {
    code: plan.code,
    name: plan.name,
    description: plan.description,
    monthlyPrice: decimal(plan.monthly_price),
    currency: plan.currency,
    limits: planLimits(plan),
    features: planFeatures(plan),
  };
}
export type PlanView = ReturnType<typeof planView>;

export interface PurchaseRow {
  id: string;
  tenant_id: string;
  plan_code: string;
  amount: string;
  currency: string;
  status: PlanPurchaseStatus;
  provider: string | null;
  provider_payment_id: string | null;
  installments: number;
  card_brand: string | null;
  card_last4: string | null;
  decline_code: string | null;
  failure_message: string | null;
  challenge_token: string | null;
  challenge_url: string | null;
  challenge_expires_at: Date | null;
  invoice_id: string | null;
  paid_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Where a purchase waiting for a 3-D Secure challenge sends the buyer: our page of the purchase. */
export const threeDsPagePath = (token: string): string => `/api/v1/billing/plan-purchases/3ds/${token}`;

export function purchaseView(row: PurchaseRow) {
  return {
    id: row.id,
    planCode: row.plan_code,
    amount: decimal(row.amount),
    currency: row.currency,
    status: row.status,
    provider: row.provider,
    installments: row.installments,
    cardBrand: row.card_brand,
    cardLast4: row.card_last4,
    declineCode: row.decline_code,
    failureMessage: row.failure_message,
    nextAction:
      row.status === 'REQUIRES_ACTION' && row.challenge_token
        ? { type: 'THREE_DS' as const, url: threeDsPagePath(row.challenge_token), expiresAt: iso(row.challenge_expires_at) }
        : null,
    invoiceId: row.invoice_id,
    paidAt: iso(row.paid_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
export type PurchaseView = ReturnType<typeof purchaseView>;

export interface InvoiceLine {
  description: string;
  quantity: number;
  unitPrice: string;
  amount: string;
}

export interface InvoiceRow {
  id: string;
  tenant_id: string;
  number: string | null;
  status: InvoiceStatus;
  plan_code: string | null;
  currency: string;
  lines: InvoiceLine[];
  vat_rate: string;
  subtotal: string;
  vat_amount: string;
  total: string;
  period_start: Date | null;
  period_end: Date | null;
  due_at: Date | null;
  issued_at: Date | null;
  paid_at: Date | null;
  purchase_id: string | null;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export function invoiceView(row: InvoiceRow) {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    number: row.number,
    status: row.status,
    planCode: row.plan_code,
    currency: row.currency,
    lines: row.lines.map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unitPrice: decimal(l.unitPrice),
      amount: decimal(l.amount),
    })),
    vatRate: decimal(row.vat_rate),
    subtotal: decimal(row.subtotal),
    vatAmount: decimal(row.vat_amount),
    total: decimal(row.total),
    periodStart: iso(row.period_start),
    periodEnd: iso(row.period_end),
    dueAt: iso(row.due_at),
    issuedAt: iso(row.issued_at),
    paidAt: iso(row.paid_at),
    purchaseId: row.purchase_id,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
export type InvoiceView = ReturnType<typeof invoiceView>;

export interface DunningRow {
  id: string;
  tenant_id: string;
  invoice_id: string;
  step: DunningStep;
  note: string | null;
  step_entered_at: Date;
  next_step_at: Date | null;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function dunningView(row: DunningRow) {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    invoiceId: row.invoice_id,
    step: row.step,
    note: row.note,
    stepEnteredAt: iso(row.step_entered_at)!,
    nextStepAt: iso(row.next_step_at),
    resolvedAt: iso(row.resolved_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
export type DunningView = ReturnType<typeof dunningView>;

/** The rows of an `UPDATE … RETURNING` (the driver answers [rows, count] for updates). */
export const updatedRows = <T>(result: unknown): T[] => (result as [T[], number])[0];
