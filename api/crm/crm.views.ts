/** What the CRM area answers: the named views and the mappers that build them from rows. */
import type {
  Lead,
  LeadActivity,
  LeadActivityType,
  LeadPlanRequest,
  LeadPlanRequestKind,
  LeadSource,
  LeadStage,
} from '../../storage/entities/lead.entity';
import { formatUnits, toUnits } from '../../domain/money';

export interface LeadView {
  id: string;
  stage: LeadStage;
  ownerUserId: string | null;
  companyName: string;
  contactName: string | null;
  contactEmail: string | null;
  contactPhone: string | null;
  source: LeadSource;
  expectedPlan: string | null;
  expectedValue: number | null;
  currency: string;
  nextFollowUpAt: string | null;
  notes: string | null;
  storeId: string | null;
  lostReason: string | null;
  stageChangedAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface ActivityView {
  id: string;
  leadId: string;
  type: LeadActivityType;
  subject: string;
  notes: string | null;
  dueAt: string | null;
  assigneeUserId: string | null;
  completedAt: string | null;
  completedBy: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PlanRequestView {
  id: string;
  leadId: string;
  kind: LeadPlanRequestKind;
  reference: string;
  plan: string;
  amount: number;
  currency: string;
  status: 'REQUESTED';
  sentTo: string | null;
  payUrl: string | null;
  createdAt: string;
}

export interface BulkResult {
  count: number;
  ids: string[];
}

/** An amount per currency (sums are done by PostgreSQL on numeric, read back as text). */
export interface CurrencyAmount {
  currency: string;
  count: number;
  amount: number;
}

/** Canonical 2-decimal text of an amount (numeric column text or validated JSON number). */
export const amountText = (value: string | number): string => formatUnits(toUnits(value, 2), 2);
/** A numeric column's text as a JSON number (no arithmetic on it). */
export const amountNumber = (value: string | number): number => Number(amountText(value));

const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function leadView(row: Lead): LeadView {
  return {
    id: row.id,
    stage: row.stage,
    ownerUserId: row.ownerUserId,
    companyName: row.companyName,
    contactName: row.contactName,
    contactEmail: row.contactEmail,
    contactPhone: row.contactPhone,
    source: row.source,
    expectedPlan: row.expectedPlan,
    expectedValue: row.expectedValue === null ? null : amountNumber(row.expectedValue),
    currency: row.currency,
    nextFollowUpAt: isoOrNull(row.nextFollowUpAt),
    notes: row.notes,
    storeId: row.storeId,
    lostReason: row.lostReason,
    stageChangedAt: row.stageChangedAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function activityView(row: LeadActivity): ActivityView {
  return {
    id: row.id,
    leadId: row.leadId,
    type: row.type,
    subject: row.subject,
    notes: row.notes,
    dueAt: isoOrNull(row.dueAt),
    assigneeUserId: row.assigneeUserId,
    completedAt: isoOrNull(row.completedAt),
    completedBy: row.completedBy,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function planRequestView(row: LeadPlanRequest, payUrl: string | null): PlanRequestView {
  return {
    id: row.id,
    leadId: row.leadId,
    kind: row.kind,
    reference: row.reference,
    plan: row.plan,
    amount: amountNumber(row.amount),
    currency: row.currency,
    status: row.status,
    sentTo: row.sentTo,
    payUrl,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Rows of `{ currency, count, amount }` as PostgreSQL answers them (count bigint and sum numeric as text). */
export function currencyAmounts(
  rows: ReadonlyArray<{ currency: string; count: string | number; amount: string | null }>,
): CurrencyAmount[] {
  return rows.map((r) => ({ currency: r.currency, count: Number(r.count), amount: amountNumber(r.amount ?? '0') }));
}
