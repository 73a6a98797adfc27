/**
 * Partner apps (docs/app-store.md, "Apps"), an extension of the app store. A partner account
 * creates app listings it owns: they live in the catalog's table with the partner as owner, start
 * unpublished (no merchant or public read shows them) and are published by their first released
 * version (app-versions.service.ts). While developing, the partner installs an app on a sandbox it
 * holds the token of: the first partner to present a sandbox's token claims that sandbox, the app is
 * enabled on its store without a purchase (partner apps are free) and a development webhook endpoint
 * (`svc-dev://<slug>`, delivered by pull: api/webhooks/webhook-forwarding.service.ts) subscribes to
 * the app's topics. Another partner's apps answer 404; every write is audited.
 */
import { AppListing } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { Tenant } from '../../storage/entities';
import { ValidationError } from '../../lib/errors';
import { UUID_PATTERN } from '../http/schema-types';
import { constantTimeEqual, sha256 } from '../auth/secrets';
import { knownScopes } from '../api-keys/api-keys.scopes';
import { WEBHOOK_TOPICS } from '../webhooks/events';
import { installPullEndpoint, type PullEndpoint } from '../webhooks/webhook-forwarding.service';
import { setEntitlement } from './app-store.service';
import { partnerAppsError } from './partner-apps.errors';
import {
  claimSandbox,
  countPartnerApps,
  findPartnerApp,
  insertPartnerApp,
  listPartnerApps,
  sandboxKeyCandidates,
  type PartnerAppRow,
} from './partner-apps.sql';
import type { CreatePartnerAppDto } from './partner-apps.schemas';
import type { InputOf } from '../http/typed-schema';

/** Apps one partner may own. */
export const PARTNER_APPS_MAX = 50;

export interface PartnerAppView {
  id: string;
  slug: string;
  name: string;
  summary: string;
  description: string;
  category: string;
  developer: string;
  scopes: string[];
  webhookTopics: string[];
  published: boolean;
  currentVersion: string | null;
  createdAt: string;
}

export function partnerAppView(row: PartnerAppRow): PartnerAppView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    summary: row.summary,
    description: row.description,
    category: row.category,
    developer: row.developer,
    scopes: row.scopes,
    webhookTopics: row.webhook_topics,
    published: row.published,
    currentVersion: row.current_version,
    createdAt: row.created_at.toISOString(),
  };
}

export const partnerAppNotFound = () => partnerAppsError('partner_app_not_found', 'The app does not exist or is not one of yours.');

/** One of the caller's apps by id or slug; 404 for anything else. */
export async function ownApp(ctx: RequestContext, idOrSlug: string, lock = false): Promise<PartnerAppRow> {
  const app = await findPartnerApp(ctx.manager, ctx.tenantId!, idOrSlug, UUID_PATTERN.test(idOrSlug), lock);
  if (!app) throw partnerAppNotFound();
  return app;
}

export type CreatePartnerAppInput = InputOf<typeof CreatePartnerAppDto>;

export async function createPartnerApp(ctx: RequestContext, body: CreatePartnerAppInput): Promise<PartnerAppView> {
  const unknown = body.scopes.filter((scope) => !knownScopes().has(scope));
  if (unknown.length)
    throw new ValidationError(
      'Unknown scopes.',
      unknown.map((scope) => ({ path: `body.scopes[${body.scopes.indexOf(scope)}]`, message: `${scope} is not a scope of the API` })),
    );
  return inTransaction(ctx, async (tx) => {
    // Serialises one partner's creations so the limit cannot be raced past.
    await tx.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`partner_apps:${tx.tenantId}`]);
    if ((await countPartnerApps(tx.manager, tx.tenantId!)) >= PARTNER_APPS_MAX)
      throw partnerAppsError('partner_app_limit', `A partner has at most ${PARTNER_APPS_MAX} apps.`);
    const partner = await tx.manager.findOneByOrFail(Tenant, { id: tx.tenantId! });
    const row = await insertPartnerApp(tx.manager, {
      id: uuidv7(),
      slug: body.slug,
      name: body.name,
      summary: body.summary,
      // The catalog's reads show a description: without one, the summary stands in.
      description: body.description || body.summary,
      category: body.category,
      developer: partner.name,
      scopes: body.scopes,
      webhook_topics: WEBHOOK_TOPICS.filter((topic) => body.webhookTopics.includes(topic)),
      ownerTenantId: tx.tenantId!,
      createdAt: new Date(),
    });
    if (!row)
      throw partnerAppsError('partner_app_slug_taken', `An app listing already has the slug ${body.slug}.`, [
        { path: 'body.slug', message: 'slug is taken' },
      ]);
    const view = partnerAppView(row);
    await recordAudit(tx, { action: 'partner_app.create', resourceType: 'app_listing', resourceId: row.id, after: { ...view } });
    return view;
  });
}

export async function listOwnApps(
  ctx: RequestContext,
  query: { cursor?: string; limit: number },
): Promise<{ items: PartnerAppView[]; nextCursor: string | null }> {
  if (query.cursor !== undefined && !UUID_PATTERN.test(query.cursor))
    throw new ValidationError('The cursor is not valid.', [{ path: 'query.cursor', message: 'cursor is invalid' }]);
  const rows = await listPartnerApps(ctx.manager, ctx.tenantId!, query.cursor, query.limit + 1);
  const page = rows.slice(0, query.limit);
  return { items: page.map(partnerAppView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

export async function getOwnApp(ctx: RequestContext, idOrSlug: string): Promise<PartnerAppView> {
  return partnerAppView(await ownApp(ctx, idOrSlug));
}

/** The sandbox whose token this is (tenant and store), or 422 sandbox_token_invalid. */
async function sandboxOfToken(ctx: RequestContext, token: string): Promise<{ tenantId: string; storeId: string }> {
  const prefix = token.split('_').slice(0, 2).join('_');
  const hash = sha256(token);
  const match = (await sandboxKeyCandidates(ctx.manager, prefix)).find((row) => constantTimeEqual(hash, row.secret_hash));
  if (!match)
    throw partnerAppsError('sandbox_token_invalid', 'The sandboxToken is not the token of a sandbox (POST /sandbox creates one).', [
      { path: 'body.sandboxToken', message: 'not a sandbox token' },
    ]);
  return { tenantId: match.tenant_id, storeId: match.store_id };
}

export interface DevInstallView {
  appId: string;
  slug: string;
  sandboxTenantId: string;
  storeId: string;
  enabled: true;
  endpoint: PullEndpoint | null;
}

/**
 * Installs the app for development on the sandbox of `sandboxToken`: claims the sandbox for the
 * caller (409 when another partner has), enables the app on its store and creates (or renews) the
 * app's development endpoint with a new secret. Run again after a sandbox reset, it installs again.
 */
export async function devInstall(ctx: RequestContext, idOrSlug: string, sandboxToken: string): Promise<DevInstallView> {
  return inTransaction(ctx, async (tx) => {
    const app = await ownApp(tx, idOrSlug, true);
    const sandbox = await sandboxOfToken(tx, sandboxToken);
    const holder = await claimSandbox(tx.manager, sandbox.tenantId, tx.tenantId!);
    if (holder !== tx.tenantId)
      throw partnerAppsError('sandbox_claimed_by_other_partner', 'This sandbox is used for development by another partner.');
    // The entitlement and the endpoint belong to the sandbox's tenant; the audit entries there name the partner's user.
    const inSandbox: RequestContext = { ...tx, tenantId: sandbox.tenantId };
    const listing = await tx.manager.findOneByOrFail(AppListing, { id: app.id });
    await setEntitlement(inSandbox, sandbox.storeId, listing, true, null);
    const endpoint = app.webhook_topics.length ? await installPullEndpoint(inSandbox, app.slug, app.webhook_topics) : null;
    await recordAudit(tx, {
      action: 'partner_app.dev_install',
      resourceType: 'app_listing',
      resourceId: app.id,
      after: { sandboxTenantId: sandbox.tenantId, storeId: sandbox.storeId, endpointId: endpoint?.id ?? null },
    });
    return { appId: app.id, slug: app.slug, sandboxTenantId: sandbox.tenantId, storeId: sandbox.storeId, enabled: true, endpoint };
  });
}
