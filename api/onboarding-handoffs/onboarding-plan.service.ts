/**
 * The merchant's onboarding plan: the tasks of the most recent handoff of one of the tenant's stores
 * (the handoff's store, or else its lead's linked store), their progress, the specialist running it,
 * and the tenant's readiness computed from its data. Sales' internal summary and the information
 * requests between sales and support are not shown.
 */
import { User } from '../../storage/entities';
import { OnboardingHandoff } from '../../storage/entities';
import type { RequestContext } from '../../storage/request-context';
import { requireTenantUser } from '../../domain/store-access';
import { onboardingStatus } from '../organization/organization.service';
import { progressOf, taskView, tasksOf } from './handoff-views';

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

export async function onboardingPlan(ctx: RequestContext) {
  requireTenantUser(ctx);
  const [found]: Array<{ id: string; store_id: string | null }> = await ctx.manager.query(
    `SELECT h.id, s.id AS store_id
       FROM onboarding_handoffs h
       JOIN leads l ON l.id = h.lead_id
       JOIN stores s ON s.id = COALESCE(h.store_id, l.store_id)
      WHERE s.tenant_id = $1
      ORDER BY h.created_at DESC, h.id DESC
      LIMIT 1`,
    [ctx.tenantId],
  );
  const readiness = await onboardingStatus(ctx);
  if (!found) return { handoff: null, tasks: [], progress: progressOf([]), readiness };
  const handoff = await ctx.manager.findOneByOrFail(OnboardingHandoff, { id: found.id });
  const tasks = (await tasksOf(ctx, [handoff.id])).get(handoff.id)!;
  const specialist = handoff.assigneeUserId
    ? await ctx.manager.findOne(User, { where: { id: handoff.assigneeUserId }, select: { id: true, name: true } })
    : null;
  return {
    handoff: {
      id: handoff.id,
      storeId: found.store_id,
      status: handoff.status,
      specialist: specialist ? { name: specialist.name } : null,
      acceptedAt: iso(handoff.acceptedAt),
      completedAt: iso(handoff.completedAt),
    },
    tasks: tasks.map(taskView).map(({ completedBy: _by, note: _note, ...task }) => task),
    progress: progressOf(tasks),
    readiness,
  };
}
