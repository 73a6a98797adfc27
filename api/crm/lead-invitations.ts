/**
 * The other end of a lead's store invitation (docs/crm.md, "Store invitation"): the invited person
 * registers with the e-mailed token, which is spent at once and records the new tenant on the lead;
 * the first store that tenant creates is linked to the lead, so sales sees its activation without
 * linking it by hand. Both run inside the transaction of the registration or the store creation.
 */
import { IsNull, MoreThan } from 'typeorm';
import { Lead, OneTimeToken } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import type { RequestContext } from '../../storage/request-context';
import { sha256 } from '../auth/secrets';
import { crmError } from './crm.errors';

/**
 * Spends an invitation token for the tenant being registered. An unknown, used or expired token is
 * 400 invitation_invalid (and the registration rolls back with it).
 */
export async function acceptStoreInvitation(tx: RequestContext, token: string, tenantId: string): Promise<void> {
  const invitation = await tx.manager.findOne(OneTimeToken, {
    where: { tokenHash: sha256(token), purpose: 'lead_store_invitation', usedAt: IsNull(), expiresAt: MoreThan(new Date()) },
    lock: { mode: 'pessimistic_write' },
  });
  const leadId = (invitation?.data as { leadId?: string } | null)?.leadId;
  const lead = leadId ? await tx.manager.findOne(Lead, { where: { id: leadId }, lock: { mode: 'pessimistic_write' } }) : null;
  if (!invitation || !lead || lead.storeId) {
    throw crmError('invitation_invalid', 'The invitation is unknown, already used or expired; ask for a new one.', [
      { path: 'body.invitationToken', message: 'invitation is invalid, used or expired' },
    ]);
  }
  await tx.manager.update(OneTimeToken, { id: invitation.id }, { usedAt: new Date() });
  await tx.manager.update(Lead, { id: lead.id }, { invitedTenantId: tenantId, updatedAt: new Date() });
  await recordAudit(tx, {
    action: 'lead.invitation_accepted',
    resourceType: 'lead',
    resourceId: lead.id,
    tenantId: null,
    before: { invitedTenantId: lead.invitedTenantId },
    after: { invitedTenantId: tenantId },
  });
}

/** Links the lead that invited `tenantId` to the tenant's new store, when it has none yet. */
export async function linkInvitedLead(tx: RequestContext, tenantId: string, storeId: string): Promise<void> {
  const lead = await tx.manager.findOne(Lead, {
    where: { invitedTenantId: tenantId, storeId: IsNull() },
    order: { createdAt: 'ASC' },
    lock: { mode: 'pessimistic_write' },
  });
  if (!lead) return;
  await tx.manager.update(Lead, { id: lead.id }, { storeId, updatedAt: new Date() });
  await recordAudit(tx, {
    action: 'lead.store_link',
    resourceType: 'lead',
    resourceId: lead.id,
    tenantId: null,
    before: { storeId: null },
    after: { storeId, by: 'invitation' },
  });
}
