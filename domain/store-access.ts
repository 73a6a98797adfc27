/**
 * Access checks every merchant route uses (docs/decisions.md, Tenancy):
 * - `requireStore(ctx, storeId)`: the store must be the caller's. A store of another tenant, and for an
 *   API key any store but the key's own, answers exactly like a missing one (404 `store_not_found`),
 *   so nothing reveals that it exists. Writes pass `{ forWrite: true }`: an archived store takes no
 *   changes (409 `store_archived`).
 * - `resolveStoreId(ctx, storeId, location)`: for operations where `storeId` may be left out, the store
 *   the caller acts on: a store-bound credential's own store, else the tenant's default store.
 * - `requireTenantUser(ctx, roles)`: the caller must be a signed-in member of the tenant with one of
 *   the roles (403 `insufficient_role`); API keys act on one store and cannot administer the tenant
 *   (403 `api_key_not_allowed`).
 */
import { ForbiddenError, NotFoundError, ValidationError } from '../lib/errors';
import { Store } from '../storage/entities';
import type { TenantRole } from '../storage/entities/user.entity';
import type { RequestContext } from '../storage/request-context';
import { tenantRepository } from '../storage/tenancy';
import { domainError } from './domain.errors';

export interface StoreAccessOptions {
  /** The operation changes the store or something in it: refuse archived stores. */
  forWrite?: boolean;
  /** Lock the store row until the transaction ends (SELECT … FOR UPDATE); needs `ctx` in a transaction. */
  lock?: boolean;
}

export const storeNotFound = (): NotFoundError => domainError('store_not_found', 'The store does not exist.');

/** The caller's store `storeId`, or 404 `store_not_found` (also for another tenant's store, and for an API key's other stores). */
export async function requireStore(ctx: RequestContext, storeId: string, options: StoreAccessOptions = {}): Promise<Store> {
  if (!ctx.tenantId) throw storeNotFound();
  if (ctx.actor.type === 'api_key' && ctx.actor.storeId !== storeId) throw storeNotFound();
  const stores = tenantRepository(ctx, Store, storeNotFound);
  const store = options.lock
    ? await stores.findOne({ where: { id: storeId }, lock: { mode: 'pessimistic_write' } })
    : await stores.findOneBy({ id: storeId });
  if (!store) throw storeNotFound();
  if (options.forWrite && store.status === 'archived') throw domainError('store_archived', 'The store is archived; it takes no changes.');
  return store;
}

/**
 * The store of an operation whose `storeId` may be left out (the imports, the export, placing an
 * order), before `requireStore` checks it:
 * - a store-bound credential (a store API key, the sandbox token, a simulated token of the sandbox)
 *   acts on its own store; a `storeId` naming any other store answers 404 `store_not_found`, exactly
 *   as `requireStore` answers it for the key's other stores;
 * - a signed-in member acts on the `storeId` named, else on the tenant's **default store**: the store
 *   with `is_default` (the tenant's first store, or the one made default since with
 *   `PATCH /organization/stores/{id}`; at most one per tenant, and there is one whenever the tenant
 *   has an active store). A tenant without one must name the store: 400 `validation_failed` at
 *   `<location>.storeId`.
 */
export async function resolveStoreId(ctx: RequestContext, storeId: string | undefined, location: 'query' | 'body'): Promise<string> {
  if (ctx.actor.type === 'api_key') {
    if (!ctx.actor.storeId) throw storeNotFound();
    if (storeId !== undefined && storeId.toLowerCase() !== ctx.actor.storeId.toLowerCase()) throw storeNotFound();
    return ctx.actor.storeId;
  }
  if (storeId !== undefined) return storeId;
  if (!ctx.tenantId) throw storeNotFound();
  const fallback = await tenantRepository(ctx, Store, storeNotFound).findOne({ where: { isDefault: true }, select: { id: true } });
  if (!fallback)
    throw new ValidationError('storeId is required: the tenant has no default store (it has no active store).', [
      { path: `${location}.storeId`, message: 'storeId is required when the tenant has no default store' },
    ]);
  return fallback.id;
}

/** Owners and admins: the roles that administer a tenant (its settings, stores, API keys, audit log). */
export const TENANT_ADMINS: readonly TenantRole[] = ['owner', 'admin'];

/** Every member role. */
export const TENANT_MEMBERS: readonly TenantRole[] = ['owner', 'admin', 'staff'];

/**
 * The caller must be a signed-in user of the tenant whose role is one of `roles`. Returns the user id.
 * API keys are refused: they are bound to one store and never administer the tenant.
 */
export function requireTenantUser(ctx: RequestContext, roles: readonly TenantRole[] = TENANT_MEMBERS): string {
  if (ctx.actor.type === 'api_key')
    throw domainError('api_key_not_allowed', 'API keys cannot perform this operation; sign in as a member of the tenant.');
  if (ctx.actor.type !== 'user' || !ctx.actor.id || !ctx.tenantId) throw new ForbiddenError('This operation needs a member of a tenant.');
  if (!ctx.actor.tenantRole || !roles.includes(ctx.actor.tenantRole)) {
    throw domainError('insufficient_role', `This operation needs the role ${roles.join(' or ')} in the tenant.`);
  }
  return ctx.actor.id;
}
