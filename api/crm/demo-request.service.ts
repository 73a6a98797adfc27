/**
 * The public demo request form (docs/crm.md, "Demo requests"): rate-limited per client address, it
 * records a NEW lead with source DEMO_REQUEST; a repeat from the same e-mail address within 24 hours
 * adds its message to that lead's notes instead of making another lead.
 */
import { Lead } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { clientKey, type RateLimitRule } from '../../storage/rate-limit';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import type { InputOf } from '../http/typed-schema';
import type { DemoRequestDto } from './crm.schemas';
import { insertLead } from './leads.service';

/** At most 5 demo requests per client address an hour. */
export const DEMO_REQUEST_LIMIT: RateLimitRule = { limit: 5, windowSeconds: 3600 };
/** A repeat of the same e-mail address within this window goes to the same lead. */
export const DEMO_REQUEST_DEDUPE_HOURS = 24;
const NOTES_MAX = 10000;

export type DemoRequestInput = InputOf<typeof DemoRequestDto>;

export async function requestDemo(ctx: RequestContext, body: DemoRequestInput): Promise<{ accepted: true }> {
  await servicesOf(ctx).rateLimiter.hit(`crm:demo-request:${clientKey(ctx.client?.ip)}`, DEMO_REQUEST_LIMIT);
  const message = body.message ? body.message : null;
  await inTransaction(ctx, async (tx) => {
    // One request at a time per address, so two racing repeats do not make two leads.
    await tx.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`crm-demo:${body.email}`]);
    const [recent] = (await tx.manager.query(
      `SELECT id FROM leads WHERE source = 'DEMO_REQUEST' AND lower(contact_email) = $1 AND created_at > now() - make_interval(hours => $2)
       ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [body.email, DEMO_REQUEST_DEDUPE_HOURS],
    )) as Array<{ id: string }>;
    if (recent) {
      const lead = await tx.manager.findOneByOrFail(Lead, { id: recent.id });
      const added = message ? `${lead.notes ? `${lead.notes}\n\n` : ''}${message}` : lead.notes;
      const notes = added !== null && added.length <= NOTES_MAX ? added : lead.notes;
      await tx.manager.update(Lead, { id: lead.id }, { notes, updatedAt: new Date() });
      await recordAudit(tx, {
        action: 'lead.demo_request_repeat',
        resourceType: 'lead',
        resourceId: lead.id,
        tenantId: null,
        before: { notes: lead.notes },
        after: { notes, company: body.company, name: body.name, phone: body.phone ?? null, planInterest: body.planInterest ?? null },
      });
      return;
    }
    await insertLead(tx, {
      ownerUserId: null,
      companyName: body.company,
      contactName: body.name,
      contactEmail: body.email,
      contactPhone: body.phone ?? null,
      source: 'DEMO_REQUEST',
      expectedPlan: body.planInterest ?? null,
      expectedValue: null,
      currency: 'TRY',
      nextFollowUpAt: null,
      notes: message,
    });
  });
  return { accepted: true };
}
