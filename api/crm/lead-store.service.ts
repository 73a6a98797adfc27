/**
 * A lead's store (docs/crm.md, "The lead's store"): link an existing store of any tenant, unlink it,
 * read it, invite the lead's contact to open one (a single-use, expiring token e-mailed through the
 * outbound port), and the activation of the linked store, computed by the same onboarding status a
 * merchant reads (GET /organization/onboarding-status). Writes are audited on the lead.
 */
import { IsNull, Raw } from 'typeorm';
import { Lead, OneTimeToken, Store, Tenant } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { storeNotFound } from '../../domain/store-access';
import { randomToken, sha256 } from '../auth/secrets';
import { tenantOnboardingStatus } from '../organization/organization.service';
import { crmError } from './crm.errors';
import { actingUserId, lockLead } from './lead-stages';
import { findLead } from './leads.service';

/** How long a store invitation link works: 7 days. */
export const STORE_INVITATION_TTL_SECONDS = 7 * 24 * 3600;

const notLinked = () => crmError('lead_store_not_linked', 'The lead is not linked to a store.');

async function storeView(ctx: RequestContext, lead: Lead) {
  if (!lead.storeId) throw notLinked();
  const store = await ctx.manager.findOne(Store, { where: { id: lead.storeId } });
  if (!store) throw notLinked();
  const tenant = await ctx.manager.findOneOrFail(Tenant, { where: { id: store.tenantId } });
  return {
    leadId: lead.id,
    storeId: store.id,
    name: store.name,
    slug: store.slug,
    status: store.status,
    tenantId: store.tenantId,
    tenantName: tenant.name,
    createdAt: store.createdAt.toISOString(),
  };
}

export async function getLeadStore(ctx: RequestContext, leadId: string) {
  return storeView(ctx, await findLead(ctx, leadId));
}

/** Links the lead to `storeId`; linking the store it already has changes nothing. */
export async function linkLeadStore(ctx: RequestContext, leadId: string, storeId: string) {
  return inTransaction(ctx, async (tx) => {
    const lead = await lockLead(tx, leadId);
    const store = await tx.manager.findOne(Store, { where: { id: storeId.toLowerCase() } });
    if (!store) throw storeNotFound();
    if (lead.storeId === store.id) return storeView(tx, lead);
    if (lead.storeId !== null)
      throw crmError('lead_store_already_linked', `The lead is already linked to the store ${lead.storeId}; unlink it first.`);
    const other = await tx.manager.findOne(Lead, { where: { storeId: store.id }, select: { id: true } });
    if (other) throw crmError('store_linked_to_other_lead', `The store is already linked to the lead ${other.id}.`);
    await tx.manager.update(Lead, { id: lead.id }, { storeId: store.id, updatedAt: new Date() });
    await recordAudit(tx, {
      action: 'lead.store_link',
      resourceType: 'lead',
      resourceId: lead.id,
      tenantId: null,
      before: { storeId: null },
      after: { storeId: store.id, storeTenantId: store.tenantId },
    });
    return storeView(tx, { ...lead, storeId: store.id });
  });
}

export async function unlinkLeadStore(ctx: RequestContext, leadId: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const lead = await lockLead(tx, leadId);
    if (!lead.storeId) throw notLinked();
    await tx.manager.update(Lead, { id: lead.id }, { storeId: null, updatedAt: new Date() });
    await recordAudit(tx, {
      action: 'lead.store_unlink',
      resourceType: 'lead',
      resourceId: lead.id,
      tenantId: null,
      before: { storeId: lead.storeId },
      after: { storeId: null },
    });
  });
}

/**
 * E-mails the lead's contact an invitation to open a store: a random token (stored only as its
 * SHA-256 in one_time_tokens, purpose lead_store_invitation, issued by the calling user) valid once
 * for STORE_INVITATION_TTL_SECONDS; sending again retires the lead's unused invitations.
 */
export async function sendStoreInvitation(ctx: RequestContext, leadId: string) {
  return inTransaction(ctx, async (tx) => {
    const lead = await lockLead(tx, leadId);
    if (!lead.contactEmail) throw crmError('lead_contact_email_missing', 'The lead has no contact e-mail address; set contactEmail first.');
    if (lead.storeId) throw crmError('lead_store_already_linked', 'The lead already has a store; there is nothing to invite to.');
    const { config, outbound } = servicesOf(tx);
    const now = new Date();
    await tx.manager.update(
      OneTimeToken,
      { purpose: 'lead_store_invitation', usedAt: IsNull(), data: Raw((alias) => `${alias} ->> 'leadId' = :leadId`, { leadId: lead.id }) },
      { usedAt: now },
    );
    const token = randomToken(32);
    const expiresAt = new Date(now.getTime() + STORE_INVITATION_TTL_SECONDS * 1000);
    await tx.manager.insert(OneTimeToken, {
      id: uuidv7(),
      userId: actingUserId(tx)!,
      purpose: 'lead_store_invitation',
      tokenHash: sha256(token),
      data: { leadId: lead.id, email: lead.contactEmail },
      expiresAt,
    });
    const link = `${config.publicBaseUrl.replace(/\/+$/, '')}/register?invitation_token=${encodeURIComponent(token)}`;
    await outbound.send(tx.manager, {
      channel: 'email',
      to: lead.contactEmail,
      template: 'crm_store_invitation',
      subject: `Open your store, ${lead.companyName}`,
      body: [
        `Hello ${lead.contactName ?? lead.companyName},`,
        '',
        'You are invited to open your store on our platform. Start here (the link works once, for 7 days):',
        link,
        '',
        `Invitation token: ${token}`,
      ].join('\n'),
      tenantId: null,
    });
    await recordAudit(tx, {
      action: 'lead.store_invitation',
      resourceType: 'lead',
      resourceId: lead.id,
      tenantId: null,
      after: { sentTo: lead.contactEmail, expiresAt },
    });
    return { leadId: lead.id, sentTo: lead.contactEmail, expiresAt: expiresAt.toISOString() };
  });
}

/** The linked store's onboarding (the merchant's own onboarding status), with a percentage and `activated`. */
export async function leadActivation(ctx: RequestContext, leadId: string) {
  const lead = await findLead(ctx, leadId);
  if (!lead.storeId) throw notLinked();
  const store = await ctx.manager.findOne(Store, { where: { id: lead.storeId } });
  if (!store) throw notLinked();
  const status = await tenantOnboardingStatus({ ...ctx, tenantId: store.tenantId });
  return {
    leadId: lead.id,
    storeId: store.id,
    storeStatus: store.status,
    steps: status.steps,
    completed: status.completed,
    total: status.total,
    percentage: status.total === 0 ? 0 : Math.floor((status.completed * 100) / status.total),
    nextStep: status.nextStep,
    activated: status.complete && store.status === 'active',
  };
}
