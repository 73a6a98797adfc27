/**
 * Who sees what in the support desk, and the desk's clock.
 *
 * Rows that merchants and platform staff both call (`auth: 'merchant_or_platform'`) answer one of two
 * views: the platform view (every tenant's tickets and incidents, internal notes included) when the
 * caller's platform role is one of SUPPORT_DESK_ROLES, the rows' platformRoles; otherwise the tenant
 * view (the caller's tenant only, for an API key its store only, never an internal note). The
 * authenticator has already refused everyone else; no service checks a role by hand.
 */
import { ForbiddenError } from '../../lib/errors';
import type { PlatformRole } from '../../storage/entities/user.entity';
import type { RequestContext } from '../../storage/request-context';

/** The platform roles of the support desk: its `platform` rows and the platform side of its shared rows. */
export const SUPPORT_DESK_ROLES: readonly PlatformRole[] = ['support_agent', 'platform_admin'];

export type SupportView = { kind: 'platform' } | { kind: 'tenant'; tenantId: string; storeId: string | null };

/** The view the caller gets on a row both sides call. */
export function supportView(ctx: RequestContext): SupportView {
  const role = ctx.actor.platformRole;
  if (role && SUPPORT_DESK_ROLES.includes(role)) return { kind: 'platform' };
  if (!ctx.tenantId) throw new ForbiddenError('This operation needs a member of a tenant or support staff.');
  return { kind: 'tenant', tenantId: ctx.tenantId, storeId: ctx.actor.type === 'api_key' ? (ctx.actor.storeId ?? null) : null };
}

/** Where the desk reads "now" from: SLA due times, breaches and every timestamp it writes. */
export interface SupportClock {
  now(): Date;
}

declare module '../../storage/request-context' {
  interface ContextServices {
    /** The support desk's clock; absent: the system clock. Tests set one to move time (docs/support.md, "SLA"). */
    supportClock?: SupportClock;
  }
}

/** The desk's "now" (one place, so a test can move time and see a ticket's SLA breach). */
export function supportNow(ctx: RequestContext): Date {
  return ctx.services?.supportClock?.now() ?? new Date();
}
