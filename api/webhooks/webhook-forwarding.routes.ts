/**
 * The forwarding feed of development endpoints (extensions, webhookExtensionOperationIds): what
 * `svc app dev` pulls and reports back (api/webhooks/webhook-forwarding.service.ts).
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import { forwardingFeed, recordForwardingOutcome, type ForwardingOutcomeInput } from './webhook-forwarding.service';
import { ForwardingFeedResponse, ForwardingOutcomeDto, ForwardingOutcomeResponse, forwardingFeedQuery } from './webhook-forwarding.schemas';

type Params = Record<string, string>;

export const webhookForwardingExtensionOperationIds = ['webhooks.forwardingFeed', 'webhooks.forwardingOutcome'] as const;

/** Spread into the webhooks table (api/webhooks/webhooks.routes.ts). */
export const webhookForwardingRoutes = defineRoutes({ tag: 'webhooks', auth: 'merchant' }, [
  {
    operationId: 'webhooks.forwardingFeed',
    method: 'GET',
    path: '/webhooks/endpoints/{id}/forwarding',
    summary: 'Pull the pending deliveries of a development endpoint, signed, to forward them (extension)',
    description:
      "Extension (app development). The PENDING deliveries of a development endpoint (URL `svc-dev://<app slug>`, created by a partner's development install), oldest first, each with its raw body exactly as stored and the headers the dispatcher would send (`X-Service-Signature` computed now with the endpoint secret): POST them unchanged to the local handler, then report the outcome. `waitSeconds` makes it a long poll. Owners and admins of the tenant, or an API key with webhooks:read (the sandbox token); another tenant's endpoint answers 404, an endpoint pushed to its URL 409 webhook_endpoint_not_pull.",
    query: forwardingFeedQuery,
    response: ForwardingFeedResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) =>
      forwardingFeed(req.context, req.params.id!, req.query as { waitSeconds: number; limit: number }),
  },
  {
    operationId: 'webhooks.forwardingOutcome',
    method: 'POST',
    path: '/webhooks/endpoints/{id}/forwarding/{deliveryId}',
    summary: 'Report what the local handler answered to a forwarded delivery (extension)',
    description:
      "Extension (app development). Records one attempt of a PENDING delivery of a development endpoint with the local status: a 2xx makes it DELIVERED, anything else (or null: not reachable) DEAD, replayable from the dead letters. 409 webhook_delivery_not_pending once it has its outcome; another tenant's delivery or endpoint answers 404.",
    body: ForwardingOutcomeDto,
    response: ForwardingOutcomeResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, ForwardingOutcomeInput>) =>
      recordForwardingOutcome(req.context, req.params.id!, req.params.deliveryId!, req.body),
  },
]);
