/**
 * The tenant as a whole: summary, onboarding status computed from real data, tenant settings, store
 * readiness and the public slug check. Store writes are in organization.stores.service.ts.
 *
 * Access: any member may read; tenant settings are for owners and admins. API keys act on one store,
 * so the tenant-wide operations refuse them (403 `api_key_not_allowed`); a key may read the
 * readiness of its own store.
 */
import { IsNull, MoreThan, Not } from 'typeorm';
import { ApiKey, Store, Tenant, User } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { tenantRepository, type TenantOwned } from '../../storage/tenancy';
import { requireStore, requireTenantUser, TENANT_ADMINS } from '../../domain/store-access';
import { freeSlug, slugProblem, slugTaken } from './organization.slugs';
import { organizationError } from './organization.errors';
import type { UpdateTenantDto } from './organization.schemas';
import type { InputOf } from '../http/typed-schema';

export interface TenantDetails {
  id: string;
  name: string;
  kind: Tenant['kind'];
  legalName: string | null;
  country: string | null;
  defaultCurrency: string;
  timezone: string;
  website: string | null;
  createdAt: string;
  updatedAt: string;
}

export function tenantDetails(tenant: Tenant): TenantDetails {
  return {
    id: tenant.id,
    name: tenant.name,
    kind: tenant.kind,
    legalName: tenant.legalName,
    country: tenant.country,
    defaultCurrency: tenant.defaultCurrency,
    timezone: tenant.timezone,
    website: tenant.website,
    createdAt: tenant.createdAt.toISOString(),
    updatedAt: tenant.updatedAt.toISOString(),
  };
}

/** The caller's tenant (404 if it vanished, which a live session makes practically impossible). */
export async function loadTenant(ctx: RequestContext, options: { lock?: boolean } = {}): Promise<Tenant> {
  const tenant = ctx.tenantId
    ? await ctx.manager.findOne(Tenant, { where: { id: ctx.tenantId }, lock: options.lock ? { mode: 'pessimistic_write' } : undefined })
    : null;
  if (!tenant) throw organizationError('tenant_not_found', 'The tenant does not exist.');
  return tenant;
}

/** users.tenant_id is nullable (platform staff have none); members of a tenant always have it. */
const members = (ctx: RequestContext) => tenantRepository<User & TenantOwned>(ctx, User);

/** Whether an owner of the tenant has verified their e-mail address. */
const ownerVerified = (ctx: RequestContext) => members(ctx).exists({ tenantRole: 'owner', emailVerifiedAt: Not(IsNull()) });

const activeKeyWhere = () => [
  { revokedAt: IsNull(), expiresAt: IsNull() },
  { revokedAt: IsNull(), expiresAt: MoreThan(new Date()) },
];

export async function organizationSummary(ctx: RequestContext) {
  requireTenantUser(ctx);
  const tenant = await loadTenant(ctx);
  const [stores, users, apiKeys] = await Promise.all([
    tenantRepository(ctx, Store).find({ order: { createdAt: 'ASC', id: 'ASC' } }),
    members(ctx).count(),
    tenantRepository(ctx, ApiKey).count({ where: activeKeyWhere() }),
  ]);
  return {
    tenant: tenantDetails(tenant),
    stores: stores.map((s) => ({ id: s.id, name: s.name, slug: s.slug, status: s.status, isDefault: s.isDefault })),
    counts: { stores: stores.filter((s) => s.status === 'active').length, users, apiKeys },
  };
}

export type OnboardingStepKey = 'account_verified' | 'store_created' | 'product_published' | 'checkout_configured' | 'api_key_created';

export interface OnboardingStep {
  key: OnboardingStepKey;
  title: string;
  done: boolean;
  available: boolean;
  reason?: string;
}

/**
 * Whether a store (or, without one, any active store of the tenant) has saved checkout settings with at
 * least one payment provider enabled (docs/checkout.md): the defaults alone do not count as configured.
 */
async function hasCheckoutConfigured(ctx: RequestContext, storeId?: string): Promise<boolean> {
  const rows: unknown[] = await ctx.manager.query(
    `SELECT 1 FROM checkout_settings c JOIN stores s ON s.id = c.store_id
      WHERE s.tenant_id = $1 AND s.status = 'active' AND cardinality(c.enabled_providers) > 0 AND ($2::uuid IS NULL OR s.id = $2)
      LIMIT 1`,
    [ctx.tenantId, storeId ?? null],
  );
  return rows.length > 0;
}

/** Whether a store (or, without one, any active store of the tenant) has a published product. */
async function hasPublishedProduct(ctx: RequestContext, storeId?: string): Promise<boolean> {
  const rows: unknown[] = await ctx.manager.query(
    `SELECT 1 FROM products p JOIN stores s ON s.id = p.store_id
      WHERE s.tenant_id = $1 AND s.status = 'active' AND p.status = 'PUBLISHED' AND ($2::uuid IS NULL OR s.id = $2)
      LIMIT 1`,
    [ctx.tenantId, storeId ?? null],
  );
  return rows.length > 0;
}

/** Onboarding computed from the data, in the order a merchant goes through it. */
export async function onboardingStatus(ctx: RequestContext) {
  requireTenantUser(ctx);
  return tenantOnboardingStatus(ctx);
}

/**
 * The onboarding of the tenant of `ctx` (ctx.tenantId), without asking who calls: for a caller that
 * has already been authorised to see it (the member above; the CRM's activation of a lead's store,
 * read by platform staff for the store's tenant).
 */
export async function tenantOnboardingStatus(ctx: RequestContext) {
  const [verified, storeExists, published, checkout, keyExists] = await Promise.all([
    ownerVerified(ctx),
    tenantRepository(ctx, Store).exists({ status: 'active' }),
    hasPublishedProduct(ctx),
    hasCheckoutConfigured(ctx),
    tenantRepository(ctx, ApiKey)
      .count({ where: activeKeyWhere() })
      .then((n) => n > 0),
  ]);
  const steps: OnboardingStep[] = [
    { key: 'account_verified', title: "Verify the owner's e-mail address", done: verified, available: true },
    { key: 'store_created', title: 'Create a store', done: storeExists, available: true },
    { key: 'product_published', title: 'Publish a product', done: published, available: true },
    { key: 'checkout_configured', title: 'Configure checkout', done: checkout, available: true },
    { key: 'api_key_created', title: 'Create an API key for an integration', done: keyExists, available: true },
  ];
  const open = steps.filter((s) => !s.done);
  const completed = steps.length - open.length;
  return {
    steps,
    completed,
    total: steps.length,
    complete: open.length === 0,
    nextStep: (open.find((s) => s.available) ?? open[0])?.key ?? null,
  };
}

export type UpdateTenantInput = InputOf<typeof UpdateTenantDto>;

const TENANT_FIELDS = ['name', 'legalName', 'country', 'defaultCurrency', 'timezone', 'website'] as const;

/** Owners and admins change the tenant's settings; the audit entry holds the changed fields before and after. */
export async function updateTenant(ctx: RequestContext, input: UpdateTenantInput) {
  requireTenantUser(ctx, TENANT_ADMINS);
  return inTransaction(ctx, async (tx) => {
    const tenant = await loadTenant(tx, { lock: true });
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    for (const field of TENANT_FIELDS) {
      const value = input[field];
      if (value === undefined || value === tenant[field]) continue;
      before[field] = tenant[field];
      after[field] = value;
    }
    if (Object.keys(after).length === 0) return tenantDetails(tenant);
    await tx.manager.update(Tenant, { id: tenant.id }, { ...after, updatedAt: new Date() });
    await recordAudit(tx, { action: 'tenant.update', resourceType: 'tenant', resourceId: tenant.id, before, after });
    return tenantDetails(await loadTenant(tx));
  });
}

export interface ReadinessGap {
  key: string;
  message: string;
  available: boolean;
}

/**
 * What a store still lacks before it can sell; `ready` only when nothing is missing. Currency, locale
 * and time zone always have values (defaults from the tenant), so they are never missing.
 */
export async function storeReadiness(ctx: RequestContext, storeId: string) {
  const store = await requireStore(ctx, storeId);
  const tenant = await loadTenant(ctx);
  const verified = await ownerVerified(ctx);
  const missing: ReadinessGap[] = [];
  const gap = (key: string, message: string, available = true) => missing.push({ key, message, available });
  if (store.status !== 'active') gap('store_active', 'The store is archived.');
  if (!store.contactEmail) gap('contact_email', 'Set a contact e-mail address (PATCH /organization/stores/{id}).');
  if (!tenant.legalName) gap('tenant_legal_name', 'Set the registered company name (PATCH /organization/tenant).');
  if (!tenant.country) gap('tenant_country', 'Set the country of the company (PATCH /organization/tenant).');
  if (!verified) gap('owner_email_verified', "Verify the owner's e-mail address.");
  if (!(await hasPublishedProduct(ctx, store.id))) gap('published_product', 'Publish a product (POST /products with status PUBLISHED).');
  if (!(await hasCheckoutConfigured(ctx, store.id)))
    gap('checkout_configured', 'Save checkout settings with at least one payment provider enabled (PUT /checkout-settings).');
  return { storeId: store.id, ready: missing.length === 0, missing };
}

/** Per client address: generous for sign-up forms that check as the user types, a brake on scanning. */
export const CHECK_SLUG_LIMIT = { limit: 300, windowSeconds: 60 } as const;

/** Public: whether a store slug can be used, with a free suggestion when it cannot. */
export async function checkSlug(ctx: RequestContext, slug: string) {
  await servicesOf(ctx).rateLimiter.hit(`organization:checkSlug:${ctx.client?.ip ?? 'unknown'}`, CHECK_SLUG_LIMIT);
  const problem = slugProblem(slug);
  if (problem) return { slug, available: false, reason: problem, suggestion: await freeSlug(ctx.manager, slug) };
  if (await slugTaken(ctx.manager, slug))
    return { slug, available: false, reason: 'taken' as const, suggestion: await freeSlug(ctx.manager, slug) };
  return { slug, available: true };
}
