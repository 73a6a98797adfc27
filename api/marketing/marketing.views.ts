/** Rows of the marketing tables and their JSON views. */
import type { Segment } from './segments';

export interface CampaignRow {
  id: string;
  tenant_id: string;
  store_id: string;
  name: string;
  subject: string;
  body: string;
  category: 'MARKETING' | 'NEWSLETTER';
  segment: Segment;
  status: 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT';
  scheduled_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AutomationStep {
  delayMinutes: number;
  subject: string;
  body: string;
  category: 'MARKETING' | 'NEWSLETTER';
}

export interface AutomationRow {
  id: string;
  tenant_id: string;
  store_id: string;
  name: string;
  trigger: 'ORDER_PLACED' | 'CUSTOMER_CREATED' | 'CART_ABANDONED' | 'MANUAL';
  steps: AutomationStep[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface RunOutcome {
  step: number;
  status: string;
  at: string;
}

export interface RunRow {
  id: string;
  tenant_id: string;
  automation_id: string;
  store_id: string;
  customer_id: string;
  trigger_key: string;
  status: 'RUNNING' | 'COMPLETED' | 'CANCELLED';
  next_step: number;
  next_step_at: Date | null;
  outcomes: RunOutcome[];
  created_at: Date;
  finished_at: Date | null;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export function campaignView(row: CampaignRow) {
  return {
    id: row.id,
    storeId: row.store_id,
    name: row.name,
    subject: row.subject,
    body: row.body,
    category: row.category,
    segment: row.segment,
    status: row.status,
    scheduledAt: iso(row.scheduled_at),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function automationView(row: AutomationRow) {
  return {
    id: row.id,
    storeId: row.store_id,
    name: row.name,
    trigger: row.trigger,
    steps: row.steps,
    active: row.active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function runView(row: RunRow) {
  return {
    id: row.id,
    automationId: row.automation_id,
    customerId: row.customer_id,
    triggerKey: row.trigger_key,
    status: row.status,
    nextStep: row.next_step,
    nextStepAt: iso(row.next_step_at),
    outcomes: row.outcomes,
    createdAt: row.created_at.toISOString(),
    finishedAt: iso(row.finished_at),
  };
}

/** `{{ firstName }}` (spaces optional) → the first word of the customer's name, or nothing. */
export function mergeFields(text: string, name: string | null): string {
  const firstName = (name ?? '').trim().split(/\s+/)[0] ?? '';
  return text.replace(/\{\{\s*firstName\s*\}\}/g, firstName);
}
