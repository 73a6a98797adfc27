/**
 * Store writes: create, create the default, update, archive. Owners and admins only (staff 403, API
 * keys 403 `api_key_not_allowed`); every write is audited in its transaction.
 *
 * The default store: the first store of a tenant becomes its default, and there is at most one
 * (index `stores_one_default`). The default is always an active store, or there is none:
 * - `PATCH /organization/stores/{id}` with `isDefault: true` moves it to another active store;
 * - the default store cannot be archived while other active stores exist (409 `default_store_in_use`:
 *   move the default first); archiving the tenant's only active store is allowed and leaves the tenant
 *   without a default, so the next store created (or `POST /organization/stores/default`) becomes it.
 * Archived stores keep their slug and their rows; they take no further changes (409 `store_archived`).
 *
 * Writes on stores lock the tenant row first, so concurrent creates of one tenant cannot both become
 * the default; slug races between tenants end at the unique index and answer 409 `slug_taken`.
 */
import { Store } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox } from '../../storage/outbox';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { requireStore, requireTenantUser, TENANT_ADMINS } from '../../domain/store-access';
import { linkInvitedLead } from '../crm/lead-invitations';
import { loadTenant } from './organization.service';
import { freeSlug, slugProblem, slugTaken } from './organization.slugs';
import { organizationError } from './organization.errors';
import type { CreateStoreDto, UpdateStoreDto } from './organization.schemas';
import type { InputOf } from '../http/typed-schema';
import { assertWithinPlan } from '../billing/limits';

export interface StoreView {
  id: string;
  name: string;
  slug: string;
  status: Store['status'];
  isDefault: boolean;
  currency: string;
  defaultLocale: string;
  timezone: string;
  contactEmail: string | null;
  priceVisibility: Store['priceVisibility'];
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
}

export function storeView(store: Store): StoreView {
  return {
    id: store.id,
    name: store.name,
    slug: store.slug,
    status: store.status,
    isDefault: store.isDefault,
    currency: store.currency,
    defaultLocale: store.defaultLocale,
    timezone: store.timezone,
    contactEmail: store.contactEmail,
    priceVisibility: store.priceVisibility,
    createdAt: store.createdAt.toISOString(),
    updatedAt: store.updatedAt.toISOString(),
    archivedAt: store.archivedAt ? store.archivedAt.toISOString() : null,
  };
}

const slugTakenError = () =>
  organizationError('slug_taken', 'The slug is already taken; GET /organization/public/check-slug suggests a free one.', [
    { path: 'body.slug', message: 'slug is already taken' },
  ]);
const defaultExistsError = () => organizationError('default_store_exists', 'The tenant already has a default store.');

/** Runs a store write, turning the unique-index races it can lose into their 409s. */
async function storeWrite<T>(ctx: RequestContext, work: (tx: RequestContext) => Promise<T>): Promise<T> {
  try {
    return await inTransaction(ctx, work);
  } catch (error) {
    if (isUniqueViolation(error, 'stores_slug')) throw slugTakenError();
    if (isUniqueViolation(error, 'stores_one_default')) throw defaultExistsError();
    throw error;
  }
}

/** A chosen slug must be well-formed (joi checked it), not reserved, and free. */
async function checkChosenSlug(ctx: RequestContext, slug: string): Promise<void> {
  if (slugProblem(slug) === 'reserved') {
    throw organizationError('slug_reserved', `"${slug}" is a reserved word and cannot be a slug.`, [
      { path: 'body.slug', message: 'slug is reserved' },
    ]);
  }
  if (await slugTaken(ctx.manager, slug)) throw slugTakenError();
}

async function insertStore(
  tx: RequestContext,
  values: Omit<Store, 'id' | 'tenantId' | 'status' | 'createdAt' | 'updatedAt' | 'archivedAt'>,
): Promise<StoreView> {
  const stores = tenantRepository(tx, Store);
  const now = new Date();
  const store = stores.create({ ...values, id: uuidv7(), status: 'active', createdAt: now, updatedAt: now, archivedAt: null });
  await tx.manager.insert(Store, store);
  const view = storeView(await stores.getOneBy({ id: store.id }));
  await recordAudit(tx, { action: 'store.create', resourceType: 'store', resourceId: view.id, after: view });
  // A tenant that registered through a sales lead's store invitation: its first store is that lead's.
  await linkInvitedLead(tx, tx.tenantId!, view.id);
  return view;
}

export type CreateStoreInput = InputOf<typeof CreateStoreDto>;

export async function createStore(ctx: RequestContext, input: CreateStoreInput): Promise<StoreView> {
  requireTenantUser(ctx, TENANT_ADMINS);
  return storeWrite(ctx, async (tx) => {
    const tenant = await loadTenant(tx, { lock: true });
    await assertWithinPlan(tx, 'stores'); // the plan's store limit (docs/billing.md, "Limits")
    if (input.slug !== undefined) await checkChosenSlug(tx, input.slug);
    const slug = input.slug ?? (await freeSlug(tx.manager, input.name));
    const hasDefault = await tenantRepository(tx, Store).exists({ isDefault: true });
    return insertStore(tx, {
      name: input.name,
      slug,
      currency: input.currency ?? tenant.defaultCurrency,
      defaultLocale: input.defaultLocale ?? 'en',
      timezone: input.timezone ?? tenant.timezone,
      contactEmail: input.contactEmail ?? null,
      priceVisibility: input.priceVisibility ?? 'EVERYONE',
      isDefault: !hasDefault,
    });
  });
}

/** Creates the default store from the tenant's name and settings; 409 when the tenant has one. */
export async function createDefaultStore(ctx: RequestContext): Promise<StoreView> {
  requireTenantUser(ctx, TENANT_ADMINS);
  return storeWrite(ctx, async (tx) => {
    const tenant = await loadTenant(tx, { lock: true });
    if (await tenantRepository(tx, Store).exists({ isDefault: true })) throw defaultExistsError();
    return insertStore(tx, {
      name: tenant.name,
      slug: await freeSlug(tx.manager, tenant.name),
      currency: tenant.defaultCurrency,
      defaultLocale: 'en',
      timezone: tenant.timezone,
      contactEmail: null,
      priceVisibility: 'EVERYONE',
      isDefault: true,
    });
  });
}

export type UpdateStoreInput = InputOf<typeof UpdateStoreDto>;

const STORE_FIELDS = ['name', 'slug', 'currency', 'defaultLocale', 'timezone', 'contactEmail', 'priceVisibility', 'isDefault'] as const;
/** Fields public search reads from the store row (its profile); a change of one is announced on the index queue. */
const STORE_SEARCH_FIELDS = ['currency', 'defaultLocale', 'priceVisibility'] as const;

export async function updateStore(ctx: RequestContext, storeId: string, input: UpdateStoreInput): Promise<StoreView> {
  requireTenantUser(ctx, TENANT_ADMINS);
  return storeWrite(ctx, async (tx) => {
    await loadTenant(tx, { lock: true });
    const store = await requireStore(tx, storeId, { forWrite: true, lock: true });
    const stores = tenantRepository(tx, Store);
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    for (const field of STORE_FIELDS) {
      const value = input[field];
      if (value === undefined || value === store[field]) continue;
      before[field] = store[field];
      after[field] = value;
    }
    if (Object.keys(after).length === 0) return storeView(store);
    if (typeof after.slug === 'string') await checkChosenSlug(tx, after.slug);
    if (after.isDefault === true) {
      const previous = await stores.findOneBy({ isDefault: true });
      if (previous) {
        await stores.update({ id: previous.id }, { isDefault: false, updatedAt: new Date() });
        await recordAudit(tx, {
          action: 'store.update',
          resourceType: 'store',
          resourceId: previous.id,
          before: { isDefault: true },
          after: { isDefault: false },
        });
      }
    }
    await stores.update({ id: store.id }, { ...after, updatedAt: new Date() });
    await recordAudit(tx, { action: 'store.update', resourceType: 'store', resourceId: store.id, before, after });
    // Public search reads the store's currency, default locale and price visibility: its store event drops cached answers.
    if (STORE_SEARCH_FIELDS.some((field) => field in after)) {
      await enqueueOutbox(tx, {
        queue: 'index',
        topic: 'store.updated',
        aggregateType: 'store',
        aggregateId: store.id,
        payload: { fields: Object.keys(after) },
      });
    }
    return storeView(await stores.getOneBy({ id: store.id }));
  });
}

/** Archives a store (204). Archiving an archived store changes nothing. */
export async function archiveStore(ctx: RequestContext, storeId: string): Promise<void> {
  requireTenantUser(ctx, TENANT_ADMINS);
  await storeWrite(ctx, async (tx) => {
    await loadTenant(tx, { lock: true });
    const store = await requireStore(tx, storeId, { lock: true });
    if (store.status === 'archived') return;
    const stores = tenantRepository(tx, Store);
    if (store.isDefault && (await stores.count({ where: { status: 'active' } })) > 1) {
      throw organizationError(
        'default_store_in_use',
        'The default store cannot be archived while the tenant has other active stores; make another store the default first (PATCH /organization/stores/{id} with isDefault: true).',
      );
    }
    const archivedAt = new Date();
    await stores.update({ id: store.id }, { status: 'archived', archivedAt, isDefault: false, updatedAt: archivedAt });
    await recordAudit(tx, {
      action: 'store.archive',
      resourceType: 'store',
      resourceId: store.id,
      before: { status: store.status, isDefault: store.isDefault },
      after: { status: 'archived', isDefault: false, archivedAt },
    });
    // Public search reads the store's status: its cached answers must go now, not at their TTL.
    await enqueueOutbox(tx, { queue: 'index', topic: 'store.archived', aggregateType: 'store', aggregateId: store.id, payload: {} });
  });
}
