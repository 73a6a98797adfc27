/**
 * Webhook endpoints of a tenant (subscription management, an extension: the specification says
 * endpoints and topics are registered in the dashboard but lists no operation). Owners and admins,
 * or API keys with the webhooks scopes (requireWebhookAdmin). Another tenant's endpoint answers 404. Every change records one audit entry (`webhook_endpoint.create|update|delete|
 * rotate_secret`, never the secret); a PATCH that changes nothing records nothing.
 */
import { WebhookEndpoint } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors';
import { checkUrl } from '../../lib/safe-fetch';
import { UUID_PATTERN } from '../http/schema-types';
import { requireTenantUser, TENANT_ADMINS } from '../../domain/store-access';
import { WEBHOOK_TOPICS } from './events';
import { newSigningSecret, sealSecret } from './secrets';
import { webhooksError } from './webhooks.errors';
import type { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './webhooks.schemas';
import type { InputOf } from '../http/typed-schema';

/** Endpoints one tenant may register. */
export const WEBHOOK_ENDPOINTS_MAX = 20;

export interface WebhookEndpointView {
  id: string;
  url: string;
  description: string | null;
  topics: string[];
  enabled: boolean;
  secretLast4: string;
  secretRotatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export const endpointNotFound = (): NotFoundError => webhooksError('webhook_endpoint_not_found', 'The webhook endpoint does not exist.');

export function endpointView(e: WebhookEndpoint): WebhookEndpointView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    topics: e.topics,
    enabled: e.enabled,
    secretLast4: e.secretLast4,
    secretRotatedAt: e.secretRotatedAt ? e.secretRotatedAt.toISOString() : null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

/**
 * Owners and admins of the tenant (staff 403 insufficient_role), or an API key of the tenant holding
 * the webhooks scope of the operation (checked by the authenticator: webhooks:read for reads,
 * webhooks:write otherwise, or `*`) — so a sandbox token can manage its webhooks. Webhooks are
 * tenant-wide: such a key sees the endpoints and deliveries of every store of the tenant.
 */
export function requireWebhookAdmin(ctx: RequestContext): void {
  if (ctx.actor.type === 'api_key' && ctx.tenantId) return;
  requireTenantUser(ctx, TENANT_ADMINS);
}

/** The URL as stored: parsed and re-serialised; a private IP literal is refused here, host names when sending. */
export function normaliseEndpointUrl(ctx: RequestContext, raw: string, path = 'body.url'): string {
  try {
    return checkUrl(raw, servicesOf(ctx).config.webhooks.allowAddresses).toString();
  } catch (error) {
    const message = (error as Error).message.replace('The image URL', 'The URL');
    throw new ValidationError(message, [{ path, message }]);
  }
}

/** '*' alone, or topics of the catalog in catalog order (duplicates are refused by the DTO). */
function normaliseTopics(topics: string[]): string[] {
  if (topics.includes('*')) {
    if (topics.length > 1)
      throw new ValidationError("'*' subscribes to every topic and cannot be combined with others.", [
        { path: 'body.topics', message: "'*' must be the only entry" },
      ]);
    return ['*'];
  }
  return WEBHOOK_TOPICS.filter((t) => topics.includes(t));
}

const urlTaken = (): ConflictError =>
  webhooksError('webhook_endpoint_url_taken', 'The tenant already has an endpoint with this URL.', [
    { path: 'body.url', message: 'url is already registered' },
  ]);

const fields = (e: Pick<WebhookEndpoint, 'url' | 'description' | 'topics' | 'enabled'>): Record<string, unknown> => ({
  url: e.url,
  description: e.description,
  topics: e.topics,
  enabled: e.enabled,
});

const last4 = (secret: string): string => secret.slice(-4);

export type CreateEndpointInput = InputOf<typeof CreateWebhookEndpointDto>;

export async function createEndpoint(ctx: RequestContext, body: CreateEndpointInput): Promise<WebhookEndpointView & { secret: string }> {
  requireWebhookAdmin(ctx);
  const url = normaliseEndpointUrl(ctx, body.url);
  const topics = normaliseTopics(body.topics);
  return inTransaction(ctx, async (tx) => {
    // Serialises creations of one tenant so the limit and the URL check cannot race.
    await tx.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhook_endpoints:${tx.tenantId}`]);
    const repo = tenantRepository(tx, WebhookEndpoint, endpointNotFound);
    if ((await repo.count()) >= WEBHOOK_ENDPOINTS_MAX)
      throw webhooksError('webhook_endpoint_limit', `A tenant has at most ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints.`);
    if (await repo.exists({ url })) throw urlTaken();
    const secret = newSigningSecret();
    const now = new Date();
    const endpoint = repo.create({
      id: uuidv7(),
      url,
      description: body.description || null,
      topics,
      enabled: body.enabled,
      secretEnc: sealSecret(servicesOf(tx).config.appSecret, secret),
      secretLast4: last4(secret),
      secretRotatedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(WebhookEndpoint, endpoint);
    await recordAudit(tx, {
      action: 'webhook_endpoint.create',
      resourceType: 'webhook_endpoint',
      resourceId: endpoint.id,
      after: fields(endpoint),
    });
    return { ...endpointView(endpoint), secret };
  });
}

export interface ListEndpointsQuery {
  cursor?: string;
  limit: number;
}

export async function listEndpoints(
  ctx: RequestContext,
  query: ListEndpointsQuery,
): Promise<{ items: WebhookEndpointView[]; nextCursor: string | null }> {
  requireWebhookAdmin(ctx);
  if (query.cursor !== undefined && !UUID_PATTERN.test(query.cursor))
    throw webhooksError('invalid_cursor', 'The cursor is not valid.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);
  const qb = tenantRepository(ctx, WebhookEndpoint).createQueryBuilder('e');
  if (query.cursor !== undefined) qb.andWhere('e.id > :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('e.id', 'ASC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(endpointView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export async function loadEndpoint(ctx: RequestContext, id: string, forWrite = false): Promise<WebhookEndpoint> {
  const endpoint = await tenantRepository(ctx, WebhookEndpoint, endpointNotFound).findOne({
    where: { id },
    ...(forWrite ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  if (!endpoint) throw endpointNotFound();
  return endpoint;
}

export async function getEndpoint(ctx: RequestContext, id: string): Promise<WebhookEndpointView> {
  requireWebhookAdmin(ctx);
  return endpointView(await loadEndpoint(ctx, id));
}

export type UpdateEndpointInput = InputOf<typeof UpdateWebhookEndpointDto>;

export async function updateEndpoint(ctx: RequestContext, id: string, body: UpdateEndpointInput): Promise<WebhookEndpointView> {
  requireWebhookAdmin(ctx);
  const url = body.url === undefined ? undefined : normaliseEndpointUrl(ctx, body.url);
  const topics = body.topics === undefined ? undefined : normaliseTopics(body.topics);
  return inTransaction(ctx, async (tx) => {
    const endpoint = await loadEndpoint(tx, id, true);
    const next = {
      url: url ?? endpoint.url,
      description: body.description === undefined ? endpoint.description : body.description || null,
      topics: topics ?? endpoint.topics,
      enabled: body.enabled ?? endpoint.enabled,
    };
    const before = fields(endpoint);
    const after = fields(next);
    if (JSON.stringify(before) === JSON.stringify(after)) return endpointView(endpoint);
    const repo = tenantRepository(tx, WebhookEndpoint, endpointNotFound);
    if (next.url !== endpoint.url) {
      await tx.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhook_endpoints:${tx.tenantId}`]);
      if (await repo.exists({ url: next.url })) throw urlTaken();
    }
    const updatedAt = new Date();
    await repo.update({ id: endpoint.id }, { ...next, updatedAt });
    await recordAudit(tx, { action: 'webhook_endpoint.update', resourceType: 'webhook_endpoint', resourceId: endpoint.id, before, after });
    return endpointView({ ...endpoint, ...next, updatedAt });
  });
}

/** Deletes the endpoint with its deliveries and their attempts (pending ones are not sent). */
export async function deleteEndpoint(ctx: RequestContext, id: string): Promise<void> {
  requireWebhookAdmin(ctx);
  await inTransaction(ctx, async (tx) => {
    const endpoint = await loadEndpoint(tx, id, true);
    await tenantRepository(tx, WebhookEndpoint, endpointNotFound).delete({ id: endpoint.id });
    await recordAudit(tx, {
      action: 'webhook_endpoint.delete',
      resourceType: 'webhook_endpoint',
      resourceId: endpoint.id,
      before: fields(endpoint),
    });
  });
}

/** A new signing secret, shown once; the old one stops signing at once (no grace period, see docs/webhooks.md, "Operations"). */
export async function rotateEndpointSecret(ctx: RequestContext, id: string): Promise<WebhookEndpointView & { secret: string }> {
  requireWebhookAdmin(ctx);
  return inTransaction(ctx, async (tx) => {
    const endpoint = await loadEndpoint(tx, id, true);
    const secret = newSigningSecret();
    const now = new Date();
    const change = {
      secretEnc: sealSecret(servicesOf(tx).config.appSecret, secret),
      secretLast4: last4(secret),
      secretRotatedAt: now,
      updatedAt: now,
    };
    await tenantRepository(tx, WebhookEndpoint, endpointNotFound).update({ id: endpoint.id }, change);
    await recordAudit(tx, {
      action: 'webhook_endpoint.rotate_secret',
      resourceType: 'webhook_endpoint',
      resourceId: endpoint.id,
      before: null,
      after: { rotatedAt: now },
    });
    return { ...endpointView({ ...endpoint, ...change }), secret };
  });
}
