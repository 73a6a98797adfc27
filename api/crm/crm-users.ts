/** The sales team: users with the platform role sales_rep or platform_admin (the CRM's owners and assignees). */
import { User } from '../../storage/entities';
import type { RequestContext } from '../../storage/request-context';
import { crmError } from './crm.errors';

export const SALES_ROLES = ['sales_rep', 'platform_admin'] as const;

/**
 * Checks that `userId` may own leads or activities: 404 sales_user_not_found when there is no such
 * user, 400 not_sales_team when the user is not a sales_rep or platform_admin. `path` names the input.
 */
export async function requireSalesUser(ctx: RequestContext, userId: string, path: string): Promise<string> {
  const id = userId.toLowerCase();
  const user = await ctx.manager.findOne(User, { where: { id }, select: { id: true, platformRole: true } });
  if (!user) throw crmError('sales_user_not_found', 'The user does not exist.', [{ path, message: 'no such user' }]);
  if (!user.platformRole || !(SALES_ROLES as readonly string[]).includes(user.platformRole))
    throw crmError('not_sales_team', 'The user is not a sales_rep or platform_admin.', [
      { path, message: 'not a member of the sales team' },
    ]);
  return id;
}
