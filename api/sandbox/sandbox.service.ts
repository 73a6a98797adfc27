/**
 * Sandboxes (docs/accounts.md, "Sandbox"). A sandbox is a tenant of kind `sandbox` with one store,
 * created with an e-mail address (no account, no card). Its token is a store API key of that tenant
 * with every scope (`*`) and no expiry, so `Authorization: Bearer <SANDBOX_TOKEN>` passes the normal
 * merchant authentication of every store operation (catalog, orders, imports, …) on the same API as
 * production. Operations that need a signed-in member (API key management, organization) answer 403
 * api_key_not_allowed to it, as they do to any API key.
 *
 * Reset: in one transaction the sandbox's tenant row is deleted, which removes everything of the
 * sandbox (every table refers to the tenant with ON DELETE CASCADE: catalog, customers, orders,
 * simulated tokens, webhook endpoints, and what later areas add), then the tenant, store, sandbox
 * token and sandbox row are written again with the same ids and the factory data is re-seeded; after
 * commit the store's search documents are replaced. The audit log keeps its entries (it has no
 * foreign key): it records sandbox.create and each sandbox.reset.
 */
import { randomBytes } from 'node:crypto';
import { ApiKey, Sandbox, Store, Tenant } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { randomToken, sha256 } from '../auth/secrets';
import { newKeyPrefix } from '../api-keys/api-keys.service';
import { NotFoundError } from '../../lib/errors';
import { indexSeed, sandboxSeedOptions, seedVectors, writeSeed } from './sandbox.seed-writer';
import { SEED_COUNTS, SEED_CURRENCY } from './sandbox.seed';
import { sandboxError } from './sandbox.errors';

export const SANDBOX_LIMITS = {
  createPerIp: { limit: 10, windowSeconds: 3_600 },
  createPerEmail: { limit: 3, windowSeconds: 3_600 },
  resetPerSandbox: { limit: 30, windowSeconds: 3_600 },
};

export const sandboxNotFound = (): NotFoundError =>
  sandboxError('sandbox_not_found', 'The caller is not a sandbox: use the token of a sandbox (POST /sandbox creates one).');

export interface SandboxCounts {
  products: number;
  customers: number;
  orders: number;
  vendors: number;
}

export interface SandboxStatus {
  id: string;
  email: string;
  tenantId: string;
  storeId: string;
  tokenPrefix: string;
  createdAt: string;
  lastResetAt: string | null;
  resetCount: number;
  searchReady: boolean;
  indexedAt: string | null;
  visualSearch: boolean;
  counts: SandboxCounts;
  defaults: SandboxCounts;
}

async function counts(ctx: RequestContext, storeId: string): Promise<SandboxCounts> {
  const [row]: Array<{ products: number; customers: number; orders: number; vendors: number }> = await ctx.manager.query(
    `SELECT (SELECT count(*)::int FROM products WHERE store_id = $1) AS products,
            (SELECT count(*)::int FROM customers WHERE store_id = $1) AS customers,
            (SELECT count(*)::int FROM orders WHERE store_id = $1) AS orders,
            (SELECT count(DISTINCT vendor_id)::int FROM products WHERE store_id = $1 AND vendor_id IS NOT NULL) AS vendors`,
    [storeId],
  );
  return row!;
}

async function statusOf(ctx: RequestContext, sandbox: Sandbox): Promise<SandboxStatus> {
  const key = await ctx.manager.findOneBy(ApiKey, { id: sandbox.apiKeyId });
  const [visual]: Array<{ enabled: boolean }> = await ctx.manager.query('SELECT enabled FROM visual_search_settings WHERE store_id = $1', [
    sandbox.storeId,
  ]);
  return {
    id: sandbox.id,
    email: sandbox.email,
    tenantId: sandbox.tenantId,
    storeId: sandbox.storeId,
    tokenPrefix: key?.prefix ?? '',
    createdAt: sandbox.createdAt.toISOString(),
    lastResetAt: sandbox.lastResetAt?.toISOString() ?? null,
    resetCount: sandbox.resetCount,
    searchReady: sandbox.indexedAt !== null,
    indexedAt: sandbox.indexedAt?.toISOString() ?? null,
    visualSearch: visual?.enabled ?? false,
    counts: await counts(ctx, sandbox.storeId),
    defaults: { ...SEED_COUNTS },
  };
}

/** The seed vectors when they can be had (the embedder may be unavailable: the sandbox then has no visual search). */
async function maybeVectors(ctx: RequestContext): Promise<Float32Array[] | undefined> {
  if (!sandboxSeedOptions.vectors) return undefined;
  try {
    return await seedVectors(ctx.dataSource, servicesOf(ctx).config);
  } catch (error) {
    servicesOf(ctx).logger.warn({ err: error }, 'sandbox: seed image vectors unavailable; seeding without visual search');
    return undefined;
  }
}

/** Indexes the seed after commit; on failure the products are queued for the indexer instead (searchReady stays false until then). */
async function makeSearchable(ctx: RequestContext, sandbox: Sandbox, productIds: string[], clear: boolean): Promise<Sandbox> {
  const scoped: RequestContext = { ...ctx, tenantId: sandbox.tenantId };
  try {
    await indexSeed(scoped, sandbox.storeId, productIds, clear);
    const indexedAt = new Date();
    await ctx.dataSource.manager.update(Sandbox, { id: sandbox.id }, { indexedAt });
    sandbox.indexedAt = indexedAt;
  } catch (error) {
    servicesOf(ctx).logger.warn({ err: error, storeId: sandbox.storeId }, 'sandbox: indexing the seed failed; queued for the indexer');
    await inTransaction(scoped, (tx) =>
      enqueueOutbox(tx, [
        { queue: 'index', topic: 'store.updated', aggregateType: 'store', aggregateId: sandbox.storeId },
        ...productIds.map((id): OutboxEvent => ({ queue: 'index', topic: 'product.created', aggregateType: 'product', aggregateId: id })),
      ]),
    );
  }
  // Every api process drops what it cached for the store (the indexer announces the store change).
  await inTransaction(scoped, (tx) =>
    enqueueOutbox(tx, { queue: 'index', topic: 'store.updated', aggregateType: 'store', aggregateId: sandbox.storeId }),
  );
  return sandbox;
}

export interface CreatedSandbox extends SandboxStatus {
  token: string;
}

export async function createSandbox(ctx: RequestContext, input: { email: string }): Promise<CreatedSandbox> {
  const email = input.email.trim();
  const { rateLimiter, config } = servicesOf(ctx);
  await rateLimiter.hit(`sandbox:create:ip:${ctx.client?.ip ?? 'unknown'}`, SANDBOX_LIMITS.createPerIp);
  await rateLimiter.hit(`sandbox:create:email:${sha256(email.toLowerCase())}`, SANDBOX_LIMITS.createPerEmail);
  const vectors = await maybeVectors(ctx);
  const tenantId = uuidv7();
  const storeId = uuidv7();
  const now = new Date();
  const token = `${newKeyPrefix()}_${randomToken(32)}`;
  const { sandbox, productIds } = await inTransaction({ ...ctx, tenantId }, async (tx) => {
    await tx.manager.insert(Tenant, {
      id: tenantId,
      name: `Sandbox of ${email}`.slice(0, 200),
      kind: 'sandbox',
      defaultCurrency: SEED_CURRENCY,
      timezone: 'Europe/Istanbul',
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(Store, {
      id: storeId,
      tenantId,
      name: 'Sandbox store',
      slug: `sandbox-${randomBytes(6).toString('hex')}`,
      currency: SEED_CURRENCY,
      defaultLocale: 'en',
      timezone: 'Europe/Istanbul',
      contactEmail: email,
      isDefault: true,
      status: 'active',
      createdAt: now,
      updatedAt: now,
    });
    const keyId = uuidv7();
    await tx.manager.insert(ApiKey, {
      id: keyId,
      tenantId,
      storeId,
      name: 'Sandbox token',
      prefix: token.split('_').slice(0, 2).join('_'),
      secretHash: sha256(token),
      scopes: ['*'],
      createdBy: null,
      createdAt: now,
      expiresAt: null,
    });
    const row = tx.manager.create(Sandbox, {
      id: uuidv7(),
      tenantId,
      storeId,
      email,
      apiKeyId: keyId,
      createdAt: now,
      lastResetAt: null,
      resetCount: 0,
      indexedAt: null,
    });
    await tx.manager.insert(Sandbox, row);
    const seeded = await writeSeed(tx, storeId, config.publicBaseUrl, vectors, now.getTime());
    await recordAudit(tx, {
      action: 'sandbox.create',
      resourceType: 'sandbox',
      resourceId: row.id,
      after: { email, storeId, ...SEED_COUNTS },
    });
    return { sandbox: row, productIds: seeded.productIds };
  });
  await makeSearchable(ctx, sandbox, productIds, false);
  return { ...(await statusOf({ ...ctx, tenantId }, sandbox)), token };
}

/** The caller's sandbox (its tenant must be a sandbox), or 404 sandbox_not_found. */
async function callerSandbox(ctx: RequestContext): Promise<Sandbox> {
  if (!ctx.tenantId) throw sandboxNotFound();
  const sandbox = await ctx.manager.findOneBy(Sandbox, { tenantId: ctx.tenantId });
  if (!sandbox) throw sandboxNotFound();
  return sandbox;
}

export async function getSandbox(ctx: RequestContext): Promise<SandboxStatus> {
  return statusOf(ctx, await callerSandbox(ctx));
}

export interface ResetResult extends SandboxStatus {
  durationMs: number;
}

export async function resetSandbox(ctx: RequestContext): Promise<ResetResult> {
  const started = process.hrtime.bigint();
  const { rateLimiter } = servicesOf(ctx);
  const current = await callerSandbox(ctx);
  await rateLimiter.hit(`sandbox:reset:${current.id}`, SANDBOX_LIMITS.resetPerSandbox);
  // Resets of one sandbox run one after the other, search indexing included (else one reset's documents
  // could land after the next reset cleared the index). A session advisory lock on a connection of its
  // own, not a row lock: a reset deletes and re-inserts the sandbox row, and a transaction waiting on
  // the deleted row would find nothing.
  const lockRunner = ctx.dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query("SELECT pg_advisory_lock(hashtextextended('sandbox.reset:' || $1, 0))", [current.tenantId]);
    try {
      return await resetLocked(ctx, started);
    } finally {
      await lockRunner.query("SELECT pg_advisory_unlock(hashtextextended('sandbox.reset:' || $1, 0))", [current.tenantId]);
    }
  } finally {
    await lockRunner.release();
  }
}

async function resetLocked(ctx: RequestContext, started: bigint): Promise<ResetResult> {
  const { config } = servicesOf(ctx);
  const vectors = await maybeVectors(ctx);
  const { sandbox, productIds } = await inTransaction(ctx, async (tx) => {
    const locked = await callerSandbox(tx);
    const tenant = await tx.manager.findOneByOrFail(Tenant, { id: locked.tenantId });
    const store = await tx.manager.findOneByOrFail(Store, { id: locked.storeId });
    const key = await tx.manager.findOneByOrFail(ApiKey, { id: locked.apiKeyId });
    await tx.manager.delete(Tenant, { id: tenant.id });
    const now = new Date();
    await tx.manager.insert(Tenant, tenant);
    // Factory settings of the store (price visibility and the like go back to their defaults).
    await tx.manager.insert(Store, {
      id: store.id,
      tenantId: store.tenantId,
      name: 'Sandbox store',
      slug: store.slug,
      currency: SEED_CURRENCY,
      defaultLocale: 'en',
      timezone: 'Europe/Istanbul',
      contactEmail: locked.email,
      isDefault: true,
      status: 'active',
      createdAt: store.createdAt,
      updatedAt: now,
    });
    await tx.manager.insert(ApiKey, { ...key, lastUsedAt: null, revokedAt: null, expiresAt: null, scopes: ['*'] });
    const row = tx.manager.create(Sandbox, { ...locked, lastResetAt: now, resetCount: locked.resetCount + 1, indexedAt: null });
    await tx.manager.insert(Sandbox, row);
    const seeded = await writeSeed(tx, store.id, config.publicBaseUrl, vectors, now.getTime());
    await recordAudit(tx, {
      action: 'sandbox.reset',
      resourceType: 'sandbox',
      resourceId: row.id,
      after: { resetCount: row.resetCount, ...SEED_COUNTS },
    });
    return { sandbox: row, productIds: seeded.productIds };
  });
  await makeSearchable(ctx, sandbox, productIds, true);
  const status = await statusOf(ctx, sandbox);
  const durationMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
  servicesOf(ctx).logger.info({ sandboxId: sandbox.id, durationMs }, 'sandbox reset');
  return { ...status, durationMs };
}
