/**
 * Paying for a lead's plan before billing exists (docs/crm.md, "Plan payment requests"): a bank
 * transfer request or a payment link is recorded with a reference (status REQUESTED) and returned.
 * Nothing is charged and no bank details or payment data are made up: the payment link e-mail
 * points at `PAY_PAGE_PATH/<reference>`, a page of the billing area that does not take payments yet.
 */
import { randomBytes } from 'node:crypto';
import { LeadPlanRequest } from '../../storage/entities';
import type { LeadPlanRequestKind } from '../../storage/entities/lead.entity';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import { crmError } from './crm.errors';
import type { RequestPlanBankTransferDto, SendLeadPaymentLinkDto } from './crm.schemas';
import { actingUserId, lockLead } from './lead-stages';
import { amountText, planRequestView, type PlanRequestView } from './crm.views';

/** Where a payment link points, under PUBLIC_BASE_URL; the page does not take payments until billing exists. */
export const PAY_PAGE_PATH = '/billing/pay';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** `CRM-` and 10 characters without look-alikes (0/O, 1/I): what a payer quotes. */
export function planReference(): string {
  const bytes = randomBytes(10);
  return `CRM-${[...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;
}

type PlanInput = InputOf<typeof RequestPlanBankTransferDto>;

async function recordRequest(
  tx: RequestContext,
  leadId: string,
  kind: LeadPlanRequestKind,
  input: PlanInput,
  sentTo: string | null,
): Promise<LeadPlanRequest> {
  const lead = await lockLead(tx, leadId);
  const row: LeadPlanRequest = {
    id: uuidv7(),
    leadId: lead.id,
    kind,
    reference: planReference(),
    plan: input.plan,
    amount: amountText(input.amount),
    currency: input.currency ?? lead.currency,
    status: 'REQUESTED',
    sentTo: sentTo ?? null,
    createdBy: actingUserId(tx),
    createdAt: new Date(),
  };
  await tx.manager.insert(LeadPlanRequest, row);
  await recordAudit(tx, {
    action: kind === 'BANK_TRANSFER' ? 'lead.bank_transfer_request' : 'lead.payment_link',
    resourceType: 'lead',
    resourceId: lead.id,
    tenantId: null,
    after: {
      requestId: row.id,
      reference: row.reference,
      plan: row.plan,
      amount: row.amount,
      currency: row.currency,
      status: row.status,
      sentTo: row.sentTo,
    },
  });
  return row;
}

export async function requestBankTransfer(ctx: RequestContext, leadId: string, body: PlanInput): Promise<PlanRequestView> {
  return inTransaction(ctx, async (tx) => planRequestView(await recordRequest(tx, leadId, 'BANK_TRANSFER', body, null), null));
}

export type PaymentLinkInput = InputOf<typeof SendLeadPaymentLinkDto>;

export async function sendPaymentLink(ctx: RequestContext, leadId: string, body: PaymentLinkInput): Promise<PlanRequestView> {
  return inTransaction(ctx, async (tx) => {
    const lead = await lockLead(tx, leadId);
    const to = body.email ?? lead.contactEmail;
    if (!to) throw crmError('lead_contact_email_missing', 'The lead has no contact e-mail address; give email or set contactEmail first.');
    const row = await recordRequest(tx, lead.id, 'PAYMENT_LINK', body, to);
    const { config, outbound } = servicesOf(tx);
    const payUrl = `${config.publicBaseUrl.replace(/\/+$/, '')}${PAY_PAGE_PATH}/${row.reference}`;
    await outbound.send(tx.manager, {
      channel: 'email',
      to,
      template: 'crm_payment_link',
      subject: `Your ${row.plan} plan: payment reference ${row.reference}`,
      body: [
        `Hello ${lead.contactName ?? lead.companyName},`,
        '',
        `Plan: ${row.plan}`,
        `Amount: ${row.amount} ${row.currency}`,
        `Reference: ${row.reference}`,
        '',
        `Payment page: ${payUrl}`,
        'Online payment is not open yet: the page will take this payment once billing is available. Nothing has been charged.',
      ].join('\n'),
      tenantId: null,
    });
    return planRequestView(row, payUrl);
  });
}
