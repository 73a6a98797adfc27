/** The long descriptions of the webhooks route table (webhooks.routes.ts), kept out of its rows. */

export const extension =
  'Extension: endpoints and topics are registered, and dead letters replayed, from the dashboard or the CLI, for which the specification lists no operation.';

export const admins =
  "Owners and admins of the tenant, or an API key of the tenant with webhooks:read (GET) or webhooks:write (others), such as a sandbox token; staff answer 403 insufficient_role. Webhooks are tenant-wide: such a key sees the endpoints and deliveries of every store of the tenant. Another tenant's endpoint or delivery answers 404.";

export const audited = 'Each change records one audit entry; a change that changes nothing records nothing.';

export const delivery =
  'Every event of a subscribed topic becomes one delivery per endpoint: POST with Content-Type application/json, X-Service-Topic, X-Service-Delivery-Id and X-Service-Signature (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> with the endpoint secret); any 2xx answer delivers it. Attempt 1 is immediate, then 30 s, 2 min, 10 min and 1 h after each failure (WEBHOOK_RETRY_DELAYS_MS); the fifth failure moves it to the dead-letter queue. Redirects are not followed (a 3xx fails the attempt); requests time out after WEBHOOK_TIMEOUT_MS (10 s).';

export const listBounds = 'cursor is the nextCursor of the previous page; limit 1 to 100 (default 50).';

export const TEST_DESCRIPTION = `Listed as POST /api/v1/webhooks/test. The success status is not stated: 202 Accepted with the deliveryId, because delivery (and its retries) happens in the background. ${admins} topic is one of the 33 topics; data is a realistic sample of that topic (order.placed: orderId, total, currency and customerId, the fields the specification names). The delivery is made and sent exactly like a production one (${delivery}) and shows in GET /webhooks/deliveries/{id}; it is replayable the same way. Signing: when endpoint is the URL of an enabled endpoint of the tenant, that endpoint's secret signs it (and it shows in the endpoint's history); otherwise the tenant's test secret, returned in testSecret. A URL with credentials, another scheme, or a private/loopback IP literal answers 400; host names resolving to private addresses fail the attempt when sending.`;

export const createEndpointDescription = (WEBHOOK_ENDPOINTS_MAX: number): string =>
  `${extension} ${admins} ${audited} The answer carries the signing secret once; afterwards only its last four characters are shown (POST …/rotate-secret makes a new one). At most ${WEBHOOK_ENDPOINTS_MAX} endpoints per tenant (409 webhook_endpoint_limit); a URL already registered in the tenant answers 409 webhook_endpoint_url_taken. The endpoint receives the events that happen after it is created while it is enabled. ${delivery}`;

export const LIST_ENDPOINTS_DESCRIPTION = `${extension} ${admins} In creation order. ${listBounds}`;

export const GET_ENDPOINT_DESCRIPTION = `${extension} ${admins} The secret is never shown again; secretLast4 tells secrets apart.`;

export const UPDATE_ENDPOINT_DESCRIPTION = `${extension} ${admins} ${audited} Only the fields given change. Disabling stops new deliveries and pauses the pending ones (they are sent when it is enabled again, with the same deliveryId); a new URL applies to the pending deliveries' next attempts.`;

export const DELETE_ENDPOINT_DESCRIPTION = `${extension} ${admins} ${audited} Its pending deliveries are not sent; its deliveries and attempts are deleted with it.`;

export const ROTATE_SECRET_DESCRIPTION = `${extension} ${admins} ${audited} The new secret signs every attempt from now on, retries of older deliveries included; the old one signs nothing more (no grace period). To rotate without rejecting deliveries, let the receiver accept both secrets while switching (verifyWebhookSignature takes a list of secrets), then drop the old one.`;

export const LIST_ENDPOINT_DELIVERIES_DESCRIPTION = `${extension} ${admins} status filters PENDING, DELIVERED or DEAD. ${listBounds}`;

export const GET_DELIVERY_DESCRIPTION = `${extension} ${admins} payload is the envelope exactly as sent; history lists each attempt (number, outcome, receiver status or error, duration).`;

export const LIST_DEAD_LETTERS_DESCRIPTION = `${extension} ${admins} Newest first; endpointId narrows to one endpoint (404 when it is not the tenant's). ${listBounds}`;

export const REPLAY_DELIVERY_DESCRIPTION = `${extension} ${admins} ${audited} The same bytes and deliveryId are sent again, signed afresh, with a new round of five attempts on the retry table (attempt 1 at once); replays counts the rounds. A PENDING delivery answers 409 webhook_delivery_pending. A delivery of a disabled endpoint waits until it is enabled.`;

export const REPLAY_DEAD_LETTERS_DESCRIPTION = `${extension} ${admins} Each replayed delivery is replayed as by POST /webhooks/deliveries/{id}/replay (one audit entry each), at most 1000 per call, oldest first; remaining says how many dead letters are left.`;
