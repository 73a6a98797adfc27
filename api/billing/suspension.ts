/**
 * The two hooks billing has in the authenticator (api/auth/authenticator.ts), kept here so the
 * authenticator only calls them (docs/billing.md, "Suspension" and "Usage"):
 * - `refuseSuspendedWrite`: a tenant whose dunning case reached SUSPENDED gets 403 tenant_suspended
 *   on every write operation (any method but GET) of the merchant rows, except the billing rows (so
 *   the tenant can still pay). Reads stay open. Resolving the case lifts it at once.
 * - `countApiCall`: one more request with an API key of the tenant today (UTC), the usage's apiCalls,
 *   written without waiting, like the key's last use.
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { RouteDef } from '../http/route';
import { billingError } from './billing.errors';

export async function isTenantSuspended(manager: EntityManager, tenantId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query("SELECT 1 FROM billing_dunning_cases WHERE tenant_id = $1 AND step = 'SUSPENDED' LIMIT 1", [
    tenantId,
  ]);
  return rows.length > 0;
}

export async function refuseSuspendedWrite(dataSource: DataSource, tenantId: string | undefined, route: RouteDef): Promise<void> {
  if (!tenantId || route.method === 'GET' || route.tag === 'billing') return;
  if (await isTenantSuspended(dataSource.manager, tenantId))
    throw billingError(
      'tenant_suspended',
      'The tenant is suspended for an unpaid subscription invoice; write operations are refused until it is paid. Reads and billing stay open.',
    );
}

export function countApiCall(dataSource: DataSource, tenantId: string): void {
  void dataSource
    .query(
      `INSERT INTO billing_api_call_days (tenant_id, day, calls) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, 1)
       ON CONFLICT (tenant_id, day) DO UPDATE SET calls = billing_api_call_days.calls + 1`,
      [tenantId],
    )
    .catch(() => undefined);
}
