/**
 * Webhook forwarding for app development (docs/app-store.md, "Apps"), an extension.
 *
 * A development endpoint is an ordinary endpoint of the tenant whose URL is `svc-dev://<app slug>`:
 * fan-out gives it deliveries like any other endpoint, with the same frozen envelope, but the
 * dispatcher never pushes them (a developer's handler on localhost is out of the server's reach).
 * Instead `svc app dev` pulls them from the feed below and POSTs each unchanged to the local handler:
 * the feed hands out the stored raw body and the headers the dispatcher would send, signed now with
 * the endpoint's secret by the dispatcher's own signing code, so the handler verifies them as it would
 * in production. The tool then reports the local outcome: a 2xx makes the delivery DELIVERED, anything
 * else DEAD (the tool already retried a few times), each report recorded as an attempt; a replay (the
 * dead letters) makes it PENDING again and so back in the feed. Such endpoints are only created by a
 * partner's development install (api/app-store/partner-apps.service.ts): the endpoint API refuses any
 * URL that is not http(s).
 */
import { WebhookEndpoint } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { requireWebhookAdmin, endpointNotFound, WEBHOOK_ENDPOINTS_MAX } from './endpoints.service';
import { newSigningSecret, openSecret, sealSecret } from './secrets';
import { DELIVERY_ID_HEADER, signatureHeader, SIGNATURE_HEADER, TOPIC_HEADER } from './signature';
import { webhooksError } from './webhooks.errors';
import { forwardingError } from './webhook-forwarding.errors';
import type { ForwardingOutcomeDto } from './webhook-forwarding.schemas';
import type { InputOf } from '../http/typed-schema';

/** The scheme that marks an endpoint delivered by pull (the forwarding feed) rather than pushed. */
export const PULL_ENDPOINT_SCHEME = 'svc-dev:';

/** How often a waiting feed read looks for new deliveries. */
const FEED_POLL_MS = 250;

export function isPullEndpointUrl(url: string): boolean {
  return url.startsWith(`${PULL_ENDPOINT_SCHEME}//`);
}

export function pullEndpointUrl(appSlug: string): string {
  return `${PULL_ENDPOINT_SCHEME}//${appSlug}`;
}

export interface PullEndpoint {
  id: string;
  url: string;
  topics: string[];
  secret: string;
}

/**
 * The development endpoint of an app in the caller's tenant (`tx`, a transaction of that tenant),
 * created or brought up to date (topics, enabled), with a new signing secret shown once.
 */
export async function installPullEndpoint(tx: RequestContext, appSlug: string, topics: string[]): Promise<PullEndpoint> {
  const url = pullEndpointUrl(appSlug);
  await tx.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhook_endpoints:${tx.tenantId}`]);
  const repo = tenantRepository(tx, WebhookEndpoint, endpointNotFound);
  const existing = await repo.findOne({ where: { url } });
  const secret = newSigningSecret();
  const sealed = { secretEnc: sealSecret(servicesOf(tx).config.appSecret, secret), secretLast4: secret.slice(-4) };
  const now = new Date();
  if (existing) {
    await repo.update({ id: existing.id }, { topics, enabled: true, ...sealed, secretRotatedAt: now, updatedAt: now });
    await recordAudit(tx, {
      action: 'webhook_endpoint.rotate_secret',
      resourceType: 'webhook_endpoint',
      resourceId: existing.id,
      before: { topics: existing.topics, enabled: existing.enabled },
      after: { url, topics, enabled: true, rotatedAt: now },
    });
    return { id: existing.id, url, topics, secret };
  }
  if ((await repo.count()) >= WEBHOOK_ENDPOINTS_MAX)
    throw webhooksError('webhook_endpoint_limit', `A tenant has at most ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints.`);
  const endpoint = repo.create({
    id: uuidv7(),
    url,
    description: `Development endpoint of the app ${appSlug} (svc app dev)`,
    topics,
    enabled: true,
    ...sealed,
    secretRotatedAt: null,
    createdAt: now,
    updatedAt: now,
  });
  await tx.manager.insert(WebhookEndpoint, endpoint);
  await recordAudit(tx, {
    action: 'webhook_endpoint.create',
    resourceType: 'webhook_endpoint',
    resourceId: endpoint.id,
    after: { url, description: endpoint.description, topics, enabled: true },
  });
  return { id: endpoint.id, url, topics, secret };
}

/** The caller's development endpoint; 404 for another tenant's or none, 409 for a pushed one. */
async function pullEndpoint(ctx: RequestContext, id: string): Promise<WebhookEndpoint> {
  requireWebhookAdmin(ctx);
  const endpoint = await tenantRepository(ctx, WebhookEndpoint, endpointNotFound).findOne({ where: { id } });
  if (!endpoint) throw endpointNotFound();
  if (!isPullEndpointUrl(endpoint.url))
    throw forwardingError(
      'webhook_endpoint_not_pull',
      'The endpoint is delivered to its URL by the dispatcher; it has no forwarding feed.',
    );
  return endpoint;
}

export interface ForwardedDelivery {
  deliveryId: string;
  topic: string;
  createdAt: string;
  attempts: number;
  body: string;
  headers: Record<string, string>;
}

interface PendingRow {
  id: string;
  topic: string;
  body: string;
  attempts: number;
  created_at: Date;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The PENDING deliveries of the caller's development endpoint, oldest first, each with the headers the
 * dispatcher would send; with `waitSeconds`, waits that long for one when none is waiting (long poll).
 */
export async function forwardingFeed(
  ctx: RequestContext,
  endpointId: string,
  query: { waitSeconds: number; limit: number },
): Promise<{ endpointId: string; items: ForwardedDelivery[] }> {
  const endpoint = await pullEndpoint(ctx, endpointId);
  const deadline = Date.now() + query.waitSeconds * 1000;
  for (;;) {
    const rows: PendingRow[] = await ctx.manager.query(
      `SELECT id, topic, body, attempts, created_at FROM webhook_deliveries
        WHERE tenant_id = $1 AND endpoint_id = $2 AND status = 'PENDING'
        ORDER BY id LIMIT $3`,
      [ctx.tenantId, endpoint.id, query.limit],
    );
    if (rows.length > 0 || Date.now() >= deadline) {
      // The secret of this read: a rotation between reads signs the next read with the new one.
      const secret = openSecret(servicesOf(ctx).config.appSecret, endpoint.secretEnc);
      return {
        endpointId: endpoint.id,
        items: rows.map((row) => ({
          deliveryId: row.id,
          topic: row.topic,
          createdAt: row.created_at.toISOString(),
          attempts: row.attempts,
          body: row.body,
          headers: {
            'Content-Type': 'application/json',
            [TOPIC_HEADER]: row.topic,
            [DELIVERY_ID_HEADER]: row.id,
            [SIGNATURE_HEADER]: signatureHeader(secret, row.body),
          },
        })),
      };
    }
    await sleep(Math.min(FEED_POLL_MS, Math.max(0, deadline - Date.now())));
  }
}

export type ForwardingOutcomeInput = InputOf<typeof ForwardingOutcomeDto>;

/** Records the local handler's answer to a forwarded delivery: DELIVERED on a 2xx, DEAD otherwise (replayable). */
export async function recordForwardingOutcome(
  ctx: RequestContext,
  endpointId: string,
  deliveryId: string,
  input: ForwardingOutcomeInput,
): Promise<{ deliveryId: string; status: 'DELIVERED' | 'DEAD'; attempts: number }> {
  return inTransaction(ctx, async (tx) => {
    const endpoint = await pullEndpoint(tx, endpointId);
    const rows: Array<{ status: string; attempts: number }> = await tx.manager.query(
      'SELECT status, attempts FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3 FOR UPDATE',
      [tx.tenantId, endpoint.id, deliveryId],
    );
    const row = rows[0];
    if (!row) throw webhooksError('webhook_delivery_not_found', 'The webhook delivery does not exist.');
    if (row.status !== 'PENDING')
      throw forwardingError('webhook_delivery_not_pending', `The delivery is ${row.status}; replay it to forward it again.`);
    const ok = input.statusCode !== null && input.statusCode >= 200 && input.statusCode < 300;
    const status = ok ? 'DELIVERED' : 'DEAD';
    const error = ok
      ? null
      : (input.error ??
        (input.statusCode === null ? 'The local handler could not be reached.' : `The local handler answered ${input.statusCode}.`));
    await tx.manager.query(
      `WITH upd AS (
         UPDATE webhook_deliveries
            SET status = $4, attempts = attempts + 1, total_attempts = total_attempts + 1, next_attempt_at = NULL,
                delivered_at = CASE WHEN $4 = 'DELIVERED' THEN now() ELSE delivered_at END,
                dead_at = CASE WHEN $4 = 'DEAD' THEN now() ELSE dead_at END,
                last_status_code = $5, last_error = $6, last_attempt_at = now(), updated_at = now()
          WHERE tenant_id = $1 AND endpoint_id = $2 AND id = $3
          RETURNING tenant_id, id, total_attempts)
       INSERT INTO webhook_attempts (tenant_id, delivery_id, number, outcome, status_code, error, duration_ms)
       SELECT tenant_id, id, total_attempts, $7, $5, $6, $8 FROM upd`,
      [tx.tenantId, endpoint.id, deliveryId, status, input.statusCode, error, ok ? 'SUCCESS' : 'FAILURE', input.durationMs],
    );
    return { deliveryId, status, attempts: row.attempts + 1 };
  });
}
