/** SQL of the incident reads: an incident with its linked-ticket and affected-merchant counts, for a view. */
import type { SupportView } from './support-access';
import type { Params } from './tickets.sql';

/**
 * The columns of an incident (alias i) and the view's scope. The platform sees every incident with
 * all its linked tickets and the number of tenants they belong to; a merchant sees only incidents
 * linked to a ticket of theirs (an API key: of its store), counting their own tickets.
 */
export function incidentSelect(view: SupportView, p: Params): { columns: string; where: string[] } {
  if (view.kind === 'platform')
    return {
      columns: `i.*, (SELECT count(*)::int FROM support_tickets t WHERE t.incident_id = i.id) AS linked_ticket_count,
        (SELECT count(DISTINCT t.tenant_id)::int FROM support_tickets t WHERE t.incident_id = i.id) AS affected_merchant_count`,
      where: [],
    };
  const own = `t.incident_id = i.id AND t.tenant_id = ${p.add(view.tenantId)}${view.storeId ? ` AND t.store_id = ${p.add(view.storeId)}` : ''}`;
  return {
    columns: `i.*, (SELECT count(*)::int FROM support_tickets t WHERE ${own}) AS linked_ticket_count, NULL::int AS affected_merchant_count`,
    where: [`EXISTS (SELECT 1 FROM support_tickets t WHERE ${own})`],
  };
}
