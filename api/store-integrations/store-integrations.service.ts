/**
 * Store integrations (docs/integrations.md): the catalog, and the integrations a store connects,
 * turns on and off, makes the default of their kind, and disconnects. Every write runs in one
 * transaction with its audit entry; the secret fields are sealed before they are written and never
 * leave this module (a read says which are set). Another tenant's integration, and for a store API
 * key one of another store, answers 404 store_integration_not_found.
 *
 * One default per kind and store: the store row is locked for every write that can change a default
 * (connect, toggle, set-default, disconnect), so concurrent calls on one store run one after the
 * other, and a partial unique index keeps it so whatever happens.
 */
import { requireStore, storeNotFound } from '../../domain/store-access';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { analyticsTag, type AnalyticsTag } from './analytics-tags';
import { openIntegrationSecrets, sealIntegrationSecrets, secretHints } from './integration-secrets';
import { checkSettings } from './integration-settings';
import { feedUrls } from './product-feed';
import { storeIntegrationsError } from './store-integrations.errors';
import type { ConnectStoreIntegrationInput, IntegrationKind, ToggleStoreIntegrationInput } from './store-integrations.schemas';
import {
  CATALOG_COLUMNS,
  FROM_STORE_INTEGRATIONS,
  STORE_INTEGRATION_COLUMNS,
  type CatalogRow,
  type StoreIntegrationRow,
} from './store-integrations.sql';

/** The kinds of integration, in the order the catalog shows them. */
export const KINDS: ReadonlyArray<{ kind: IntegrationKind; name: string; description: string }> = [
  {
    kind: 'marketplace_feed',
    name: 'Marketplace feeds',
    description: "Publish the store's catalog to a marketplace or shopping ads service as a product feed.",
  },
  { kind: 'analytics', name: 'Analytics', description: "Measure the storefront's traffic with an analytics service." },
  { kind: 'shipping_carrier', name: 'Shipping carriers', description: "Connect a carrier account for the store's parcels." },
  { kind: 'accounting_export', name: 'Accounting', description: "Connect the store's accounting system." },
];

function publicCatalogItem(row: CatalogRow) {
  return { slug: row.slug, kind: row.kind, name: row.name, description: row.description, live: row.live };
}

async function catalogRows(ctx: RequestContext, listedOnly: boolean): Promise<CatalogRow[]> {
  return (await ctx.manager.query(
    `SELECT ${CATALOG_COLUMNS} FROM integration_catalog ${listedOnly ? 'WHERE listed' : ''}
      ORDER BY array_position($1::text[], kind), position, slug`,
    [KINDS.map((k) => k.kind)],
  )) as CatalogRow[];
}

export async function integrationCatalog(ctx: RequestContext) {
  const rows = await catalogRows(ctx, false);
  return { kinds: [...KINDS], items: rows.map((row) => ({ ...publicCatalogItem(row), settingsSchema: row.settings_schema })) };
}

export async function publicIntegrationCatalog(ctx: RequestContext) {
  const rows = await catalogRows(ctx, true);
  return { kinds: [...KINDS], items: rows.map(publicCatalogItem) };
}

export function storeIntegrationView(ctx: RequestContext, row: StoreIntegrationRow) {
  return {
    id: row.id,
    storeId: row.store_id,
    integration: row.integration,
    kind: row.kind,
    name: row.name,
    live: row.live,
    enabled: row.enabled,
    isDefault: row.is_default,
    settings: row.settings,
    secrets: Object.entries(row.secret_hints)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, last4]) => ({ key, set: true as const, last4 })),
    feed: row.kind === 'marketplace_feed' ? feedUrls(ctx, row.store_id, row.id, row.settings.access) : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** What the audit log keeps of a connection: its view without the secrets (not even their hints) and the feed token. */
function auditView(ctx: RequestContext, row: StoreIntegrationRow) {
  const { secrets, feed, ...rest } = storeIntegrationView(ctx, row);
  return { ...rest, credentialFields: secrets.map((s) => s.key), hasFeed: feed !== null };
}

export async function listStoreIntegrations(ctx: RequestContext, query: { storeId: string }) {
  const store = await requireStore(ctx, query.storeId);
  const rows = (await ctx.manager.query(
    `SELECT ${STORE_INTEGRATION_COLUMNS} FROM ${FROM_STORE_INTEGRATIONS}
      WHERE si.tenant_id = $1 AND si.store_id = $2
      ORDER BY array_position($3::text[], si.kind), si.created_at, si.id`,
    [ctx.tenantId, store.id, KINDS.map((k) => k.kind)],
  )) as StoreIntegrationRow[];
  return { items: rows.map((row) => storeIntegrationView(ctx, row)) };
}

async function selectOne(ctx: RequestContext, where: string, params: unknown[]): Promise<StoreIntegrationRow | undefined> {
  const [row] = (await ctx.manager.query(
    `SELECT ${STORE_INTEGRATION_COLUMNS} FROM ${FROM_STORE_INTEGRATIONS} WHERE ${where}`,
    params,
  )) as StoreIntegrationRow[];
  return row;
}

/**
 * The connected integration `id` of the caller's tenant, in a transaction, with its store locked
 * (forWrite: an archived store takes no changes) and then the row itself.
 */
async function lockOwned(tx: RequestContext, id: string): Promise<StoreIntegrationRow> {
  const notFound = () => storeIntegrationsError('store_integration_not_found', 'The connected integration does not exist.');
  if (!tx.tenantId) throw notFound();
  const found = await selectOne(tx, 'si.id = $1 AND si.tenant_id = $2', [id.toLowerCase(), tx.tenantId]);
  if (!found || (tx.actor.type === 'api_key' && tx.actor.storeId !== found.store_id)) throw notFound();
  // The store first, then the row: the order connect takes them in, so two writes never wait on each other crosswise.
  await requireStore(tx, found.store_id, { forWrite: true, lock: true });
  const row = await selectOne(tx, 'si.id = $1 AND si.tenant_id = $2 FOR UPDATE OF si', [found.id, tx.tenantId]);
  if (!row) throw notFound();
  return row;
}

export async function connectStoreIntegration(ctx: RequestContext, input: ConnectStoreIntegrationInput) {
  const [entry] = (await ctx.manager.query(`SELECT ${CATALOG_COLUMNS} FROM integration_catalog WHERE slug = $1`, [
    input.integration,
  ])) as CatalogRow[];
  if (!entry)
    throw storeIntegrationsError('integration_not_found', `The catalog has no integration ${input.integration}.`, [
      { path: 'body.integration', message: 'is not an integration of the catalog' },
    ]);
  const { appSecret } = servicesOf(ctx).config;
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const [existing] = (await tx.manager.query(
      `SELECT id, secrets_enc FROM store_integrations WHERE tenant_id = $1 AND store_id = $2 AND integration = $3 FOR UPDATE`,
      [tx.tenantId, store.id, entry.slug],
    )) as Array<{ id: string; secrets_enc: string | null }>;
    // Secrets sealed under another APP_SECRET cannot be opened: treated as not stored, so a required
    // secret is asked for again (400) instead of failing the request.
    const stored = existing?.secrets_enc ? (storedSecrets(appSecret, existing.secrets_enc) ?? {}) : {};
    const checked = checkSettings(entry.settings_schema, input.settings, new Set(Object.keys(stored)));
    const secrets = { ...stored, ...checked.secrets };
    const sealed = Object.keys(secrets).length > 0 ? sealIntegrationSecrets(appSecret, secrets) : null;
    const hints = JSON.stringify(secretHints(secrets));
    let id: string;
    let before: ReturnType<typeof auditView> | null = null;
    if (existing) {
      id = existing.id;
      before = auditView(tx, (await selectOne(tx, 'si.id = $1', [id]))!);
      await tx.manager.query(
        `UPDATE store_integrations SET settings = $2, secrets_enc = $3, secret_hints = $4, enabled = $5,
                is_default = is_default AND $5, updated_at = now()
          WHERE id = $1`,
        [id, JSON.stringify(checked.settings), sealed, hints, input.enabled],
      );
    } else {
      id = uuidv7();
      // The first enabled integration of a kind becomes the store's default of that kind.
      await tx.manager.query(
        `INSERT INTO store_integrations (id, tenant_id, store_id, integration, kind, enabled, is_default, settings, secrets_enc, secret_hints, connected_by)
         VALUES ($1, $2, $3, $4, $5, $6,
                 $6 AND NOT EXISTS (SELECT 1 FROM store_integrations WHERE store_id = $3 AND kind = $5 AND is_default),
                 $7, $8, $9, $10)`,
        [
          id,
          tx.tenantId,
          store.id,
          entry.slug,
          entry.kind,
          input.enabled,
          JSON.stringify(checked.settings),
          sealed,
          hints,
          tx.actor.type === 'user' ? tx.actor.id : null,
        ],
      );
    }
    const row = (await selectOne(tx, 'si.id = $1', [id]))!;
    await recordAudit(tx, {
      action: existing ? 'store_integration.reconnect' : 'store_integration.connect',
      resourceType: 'store_integration',
      resourceId: id,
      before,
      after: auditView(tx, row),
    });
    return storeIntegrationView(tx, row);
  });
}

export async function toggleStoreIntegration(ctx: RequestContext, id: string, input: ToggleStoreIntegrationInput) {
  return inTransaction(ctx, async (tx) => {
    const row = await lockOwned(tx, id);
    if (row.enabled === input.enabled) return storeIntegrationView(tx, row);
    // Turned off, a default stops being the default: the default of a kind is always one that works.
    await tx.manager.query(`UPDATE store_integrations SET enabled = $2, is_default = is_default AND $2, updated_at = now() WHERE id = $1`, [
      row.id,
      input.enabled,
    ]);
    const after = (await selectOne(tx, 'si.id = $1', [row.id]))!;
    await recordAudit(tx, {
      action: input.enabled ? 'store_integration.enable' : 'store_integration.disable',
      resourceType: 'store_integration',
      resourceId: row.id,
      before: { enabled: row.enabled, isDefault: row.is_default },
      after: { enabled: after.enabled, isDefault: after.is_default },
    });
    return storeIntegrationView(tx, after);
  });
}

export async function setDefaultStoreIntegration(ctx: RequestContext, id: string) {
  return inTransaction(ctx, async (tx) => {
    const row = await lockOwned(tx, id);
    if (!row.enabled)
      throw storeIntegrationsError(
        'store_integration_disabled',
        'A disabled integration cannot be the default of its kind; enable it first.',
      );
    if (row.is_default) return storeIntegrationView(tx, row);
    // Two statements, the old default first: a unique index is checked row by row, so setting the
    // new one first would collide with the old one inside the same statement.
    const previous = (await tx.manager.query(
      `UPDATE store_integrations SET is_default = false, updated_at = now()
        WHERE store_id = $1 AND kind = $2 AND is_default AND id <> $3 RETURNING id`,
      [row.store_id, row.kind, row.id],
    )) as [Array<{ id: string }>, number];
    await tx.manager.query(`UPDATE store_integrations SET is_default = true, updated_at = now() WHERE id = $1`, [row.id]);
    const after = (await selectOne(tx, 'si.id = $1', [row.id]))!;
    await recordAudit(tx, {
      action: 'store_integration.set_default',
      resourceType: 'store_integration',
      resourceId: row.id,
      before: { isDefault: false, previousDefaultId: previous[0][0]?.id ?? null },
      after: { isDefault: true, kind: row.kind },
    });
    return storeIntegrationView(tx, after);
  });
}

export async function disconnectStoreIntegration(ctx: RequestContext, id: string) {
  return inTransaction(ctx, async (tx) => {
    const row = await lockOwned(tx, id);
    await tx.manager.query(`DELETE FROM store_integrations WHERE id = $1`, [row.id]);
    await recordAudit(tx, {
      action: 'store_integration.disconnect',
      resourceType: 'store_integration',
      resourceId: row.id,
      before: auditView(tx, row),
    });
    return {
      id: row.id,
      storeId: row.store_id,
      integration: row.integration,
      kind: row.kind,
      disconnected: true as const,
      wasDefault: row.is_default,
    };
  });
}

/**
 * What the storefront of an open store adds to its pages: the enabled analytics integrations,
 * each as its allow-listed tag. An archived or unknown store answers 404 store_not_found.
 */
export async function storefrontIntegrations(ctx: RequestContext, storeId: string) {
  const [store] = (await ctx.manager.query(`SELECT id, tenant_id FROM stores WHERE id = $1 AND status <> 'archived'`, [storeId])) as Array<{
    id: string;
    tenant_id: string;
  }>;
  if (!store) throw storeNotFound();
  const rows = (await ctx.manager.query(
    `SELECT integration, settings FROM store_integrations
      WHERE store_id = $1 AND tenant_id = $2 AND kind = 'analytics' AND enabled ORDER BY created_at, id`,
    [store.id, store.tenant_id],
  )) as Array<{ integration: string; settings: Record<string, unknown> }>;
  const analytics = rows.map((row) => analyticsTag(row.integration, row.settings)).filter((tag): tag is AnalyticsTag => tag !== undefined);
  return { storeId: store.id, analytics };
}

/** The secrets of a connection, or undefined when they were sealed with another key. */
function storedSecrets(appSecret: string, sealed: string): Record<string, string> | undefined {
  try {
    return openIntegrationSecrets(appSecret, sealed);
  } catch {
    return undefined;
  }
}
