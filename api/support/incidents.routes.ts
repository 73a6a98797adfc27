/** Platform incidents of the support desk (docs/support.md, "Incidents"). */
import { defineRoutes, type RouteRequest } from '../http/route';
import { int, uuid } from '../http/schema-types';
import { SUPPORT_DESK_ROLES } from './support-access';
import {
  BROADCAST_DESCRIPTION,
  GET_INCIDENT_DESCRIPTION,
  LINK_INCIDENT_DESCRIPTION,
  LIST_INCIDENTS_DESCRIPTION,
} from './support.descriptions';
import {
  IncidentBroadcastDto,
  IncidentBroadcastResponse,
  IncidentListResponse,
  IncidentResponse,
  LinkIncidentResponse,
  LinkTicketsIncidentDto,
} from './incidents.schemas';
import {
  broadcastIncident,
  getIncident,
  linkTicketsToIncident,
  listIncidents,
  type IncidentBroadcastInput,
  type LinkTicketsIncidentInput,
} from './incidents.service';

type Params = Record<string, string>;

export const incidentRoutes = defineRoutes({ tag: 'support', auth: 'merchant_or_platform', platformRoles: SUPPORT_DESK_ROLES }, [
  {
    operationId: 'support.listIncidents',
    method: 'GET',
    path: '/support/incidents',
    summary: 'Platform incidents, current and past',
    description: LIST_INCIDENTS_DESCRIPTION,
    query: {
      cursor: uuid().description('The nextCursor of the previous page: the id of its last incident.'),
      limit: int(1, 200).default(50),
    },
    response: IncidentListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listIncidents(req.context, req.query as { cursor?: string; limit: number }),
  },
  {
    operationId: 'support.getIncident',
    method: 'GET',
    path: '/support/incidents/{id}',
    summary: 'One platform incident with its updates',
    description: GET_INCIDENT_DESCRIPTION,
    response: IncidentResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getIncident(req.context, req.params.id!),
  },
  {
    operationId: 'support.linkTicketsToIncident',
    method: 'POST',
    path: '/support/tickets/link-incident',
    auth: 'platform',
    summary: 'Link tickets to a platform incident',
    description: LINK_INCIDENT_DESCRIPTION,
    body: LinkTicketsIncidentDto,
    response: LinkIncidentResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, LinkTicketsIncidentInput>) => linkTicketsToIncident(req.context, req.body),
  },
  {
    operationId: 'support.broadcastIncident',
    method: 'POST',
    path: '/support/incidents/{id}/broadcast',
    auth: 'platform',
    summary: 'Broadcast an incident update to the affected merchants',
    description: BROADCAST_DESCRIPTION,
    body: IncidentBroadcastDto,
    response: IncidentBroadcastResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, IncidentBroadcastInput>) => broadcastIncident(req.context, req.params.id!, req.body),
  },
]);
