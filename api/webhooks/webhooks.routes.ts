/**
 * The webhook tester and the subscription management around it (docs/webhooks.md). The
 * specification says endpoints and topics are registered in the dashboard and dead letters replayed
 * from the panel or the CLI, but lists no operation for either:
 * those operations are extensions (webhookExtensionOperationIds), each saying so in its description.
 */
import { defineRoutes, type RouteRequest } from '../http/route';
import { cursor, oneOf, positiveInt, uuid } from '../http/schema-types';
import {
  getDelivery,
  listDeadLetters,
  listEndpointDeliveries,
  replayDeadLetters,
  replayDelivery,
  sendTestEvent,
  type ListDeadLettersQuery,
  type ListDeliveriesQuery,
  type WebhookTestInput,
} from './deliveries.service';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
  WEBHOOK_ENDPOINTS_MAX,
  type CreateEndpointInput,
  type ListEndpointsQuery,
  type UpdateEndpointInput,
} from './endpoints.service';
import {
  CreateWebhookEndpointDto,
  DELIVERY_STATUSES,
  ReplayDeadLettersDto,
  ReplayDeadLettersResponse,
  UpdateWebhookEndpointDto,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  WebhookTestDto,
  WebhookTestResponse,
} from './webhooks.schemas';

type Params = Record<string, string>;

/** The operations of this table that the specification does not list (extensions). */
export const webhookExtensionOperationIds = [
  'webhooks.createEndpoint',
  'webhooks.listEndpoints',
  'webhooks.getEndpoint',
  'webhooks.updateEndpoint',
  'webhooks.deleteEndpoint',
  'webhooks.rotateSecret',
  'webhooks.listEndpointDeliveries',
  'webhooks.getDelivery',
  'webhooks.listDeadLetters',
  'webhooks.replayDelivery',
  'webhooks.replayDeadLetters',
] as const;

const extension =
  'Extension: endpoints and topics are registered, and dead letters replayed, from the dashboard or the CLI, for which the specification lists no operation.';
const admins =
  "Owners and admins of the tenant, or an API key of the tenant with webhooks:read (GET) or webhooks:write (others), such as a sandbox token; staff answer 403 insufficient_role. Webhooks are tenant-wide: such a key sees the endpoints and deliveries of every store of the tenant. Another tenant's endpoint or delivery answers 404.";
const audited = 'Each change records one audit entry; a change that changes nothing records nothing.';
const delivery =
  'Every event of a subscribed topic becomes one delivery per endpoint: POST with Content-Type application/json, X-Service-Topic, X-Service-Delivery-Id and X-Service-Signature (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> with the endpoint secret); any 2xx answer delivers it. Attempt 1 is immediate, then 30 s, 2 min, 10 min and 1 h after each failure (WEBHOOK_RETRY_DELAYS_MS); the fifth failure moves it to the dead-letter queue. Redirects are not followed (a 3xx fails the attempt); requests time out after WEBHOOK_TIMEOUT_MS (10 s).';
const listBounds = 'cursor is the nextCursor of the previous page; limit 1 to 100 (default 50).';

export const webhookRoutes = defineRoutes({ tag: 'webhooks', auth: 'merchant' }, [
  {
    operationId: 'webhooks.test',
    method: 'POST',
    path: '/webhooks/test',
    summary: 'Send a signed test event of a topic to an endpoint, with production headers and retries',
    description: `Listed as POST /api/v1/webhooks/test. The success status is not stated: 202 Accepted with the deliveryId, because delivery (and its retries) happens in the background. ${admins} topic is one of the 33 topics; data is a realistic sample of that topic (order.placed: orderId, total, currency and customerId, the fields the specification names). The delivery is made and sent exactly like a production one (${delivery}) and shows in GET /webhooks/deliveries/{id}; it is replayable the same way. Signing: when endpoint is the URL of an enabled endpoint of the tenant, that endpoint's secret signs it (and it shows in the endpoint's history); otherwise the tenant's test secret, returned in testSecret. A URL with credentials, another scheme, or a private/loopback IP literal answers 400; host names resolving to private addresses fail the attempt when sending.`,
    body: WebhookTestDto,
    response: WebhookTestResponse,
    status: 202,
    handler: (req: RouteRequest<Params, Params, WebhookTestInput>) => sendTestEvent(req.context, req.body),
  },
  {
    operationId: 'webhooks.createEndpoint',
    method: 'POST',
    path: '/webhooks/endpoints',
    summary: 'Register a webhook endpoint with its topics (extension)',
    description: `${extension} ${admins} ${audited} The answer carries the signing secret once; afterwards only its last four characters are shown (POST …/rotate-secret makes a new one). At most ${WEBHOOK_ENDPOINTS_MAX} endpoints per tenant (409 webhook_endpoint_limit); a URL already registered in the tenant answers 409 webhook_endpoint_url_taken. The endpoint receives the events that happen after it is created while it is enabled. ${delivery}`,
    body: CreateWebhookEndpointDto,
    response: WebhookEndpointWithSecretResponse,
    status: 201,
    handler: (req: RouteRequest<Params, Params, CreateEndpointInput>) => createEndpoint(req.context, req.body),
  },
  {
    operationId: 'webhooks.listEndpoints',
    method: 'GET',
    path: '/webhooks/endpoints',
    summary: "The tenant's webhook endpoints (extension)",
    description: `${extension} ${admins} In creation order. ${listBounds}`,
    query: { cursor: cursor(), limit: positiveInt(100).default(50) },
    response: WebhookEndpointListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listEndpoints(req.context, req.query as ListEndpointsQuery),
  },
  {
    operationId: 'webhooks.getEndpoint',
    method: 'GET',
    path: '/webhooks/endpoints/{id}',
    summary: 'One webhook endpoint (extension)',
    description: `${extension} ${admins} The secret is never shown again; secretLast4 tells secrets apart.`,
    response: WebhookEndpointResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getEndpoint(req.context, req.params.id!),
  },
  {
    operationId: 'webhooks.updateEndpoint',
    method: 'PATCH',
    path: '/webhooks/endpoints/{id}',
    summary: 'Change the URL, topics, description or enabled flag of an endpoint (extension)',
    description: `${extension} ${admins} ${audited} Only the fields given change. Disabling stops new deliveries and pauses the pending ones (they are sent when it is enabled again, with the same deliveryId); a new URL applies to the pending deliveries' next attempts.`,
    body: UpdateWebhookEndpointDto,
    response: WebhookEndpointResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, UpdateEndpointInput>) => updateEndpoint(req.context, req.params.id!, req.body),
  },
  {
    operationId: 'webhooks.deleteEndpoint',
    method: 'DELETE',
    path: '/webhooks/endpoints/{id}',
    summary: 'Delete a webhook endpoint with its delivery history (extension)',
    description: `${extension} ${admins} ${audited} Its pending deliveries are not sent; its deliveries and attempts are deleted with it.`,
    status: 204,
    handler: (req: RouteRequest<Params>) => deleteEndpoint(req.context, req.params.id!),
  },
  {
    operationId: 'webhooks.rotateSecret',
    method: 'POST',
    path: '/webhooks/endpoints/{id}/rotate-secret',
    summary: 'Replace the signing secret of an endpoint; the new one is shown once (extension)',
    description: `${extension} ${admins} ${audited} The new secret signs every attempt from now on, retries of older deliveries included; the old one signs nothing more (no grace period). To rotate without rejecting deliveries, let the receiver accept both secrets while switching (verifyWebhookSignature takes a list of secrets), then drop the old one.`,
    response: WebhookEndpointWithSecretResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => rotateEndpointSecret(req.context, req.params.id!),
  },
  {
    operationId: 'webhooks.listEndpointDeliveries',
    method: 'GET',
    path: '/webhooks/endpoints/{id}/deliveries',
    summary: 'Delivery history of an endpoint, newest first (extension)',
    description: `${extension} ${admins} status filters PENDING, DELIVERED or DEAD. ${listBounds}`,
    query: { status: oneOf(DELIVERY_STATUSES), cursor: cursor(), limit: positiveInt(100).default(50) },
    response: WebhookDeliveryListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listEndpointDeliveries(req.context, req.params.id!, req.query as ListDeliveriesQuery),
  },
  {
    operationId: 'webhooks.getDelivery',
    method: 'GET',
    path: '/webhooks/deliveries/{id}',
    summary: 'One delivery with its envelope and every attempt (extension)',
    description: `${extension} ${admins} payload is the envelope exactly as sent; history lists each attempt (number, outcome, receiver status or error, duration).`,
    response: WebhookDeliveryDetailResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => getDelivery(req.context, req.params.id!),
  },
  {
    operationId: 'webhooks.listDeadLetters',
    method: 'GET',
    path: '/webhooks/dead-letters',
    summary: 'The dead-letter queue: deliveries whose fifth attempt failed (extension)',
    description: `${extension} ${admins} Newest first; endpointId narrows to one endpoint (404 when it is not the tenant's). ${listBounds}`,
    query: { endpointId: uuid(), cursor: cursor(), limit: positiveInt(100).default(50) },
    response: WebhookDeliveryListResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => listDeadLetters(req.context, req.query as ListDeadLettersQuery),
  },
  {
    operationId: 'webhooks.replayDelivery',
    method: 'POST',
    path: '/webhooks/deliveries/{id}/replay',
    summary: 'Send a dead (or delivered) delivery again, with the same deliveryId (extension)',
    description: `${extension} ${admins} ${audited} The same bytes and deliveryId are sent again, signed afresh, with a new round of five attempts on the retry table (attempt 1 at once); replays counts the rounds. A PENDING delivery answers 409 webhook_delivery_pending. A delivery of a disabled endpoint waits until it is enabled.`,
    response: WebhookDeliveryResponse,
    status: 202,
    handler: (req: RouteRequest<Params>) => replayDelivery(req.context, req.params.id!),
  },
  {
    operationId: 'webhooks.replayDeadLetters',
    method: 'POST',
    path: '/webhooks/dead-letters/replay',
    summary: "Replay the whole dead-letter queue, or one endpoint's (extension)",
    description: `${extension} ${admins} Each replayed delivery is replayed as by POST /webhooks/deliveries/{id}/replay (one audit entry each), at most 1000 per call, oldest first; remaining says how many dead letters are left.`,
    body: ReplayDeadLettersDto,
    response: ReplayDeadLettersResponse,
    status: 202,
    handler: (req: RouteRequest<Params, Params, { endpointId?: string }>) => replayDeadLetters(req.context, req.body ?? {}),
  },
]);
