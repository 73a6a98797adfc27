/**
 * Support: platform incidents and support tickets (docs/support.md). The rows are in
 * incidents.routes.ts and tickets.routes.ts; this is the area's list, in the order the router tries
 * them (the fixed paths under /support/tickets before /support/tickets/{id}).
 */
import { incidentRoutes } from './incidents.routes';
import { ticketRoutes } from './tickets.routes';

export const supportRoutes = [...incidentRoutes, ...ticketRoutes];
