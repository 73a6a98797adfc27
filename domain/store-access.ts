/**
 * Access checks every merchant route uses (docs/decisions.md, Tenancy):
 * - `requireStore(ctx, storeId)`: the store must be the caller's. A store of another tenant, and for an
 *   API key any store but the key's own, answers exactly like a missing one (404 `store_not_found`),
 *   so nothing reveals that it exists. Writes pass `{ forWrite: true }`: an archived store takes no
 *   changes (409 `store_archived`).
 * - `requireTenantUser(ctx, roles)`: the caller must be a signed-in member of the tenant with one of
 *   the roles (403 `insufficient_role`); API keys act on one store and cannot administer the tenant
 *   (403 `api_key_not_allowed`).
 */
import { ForbiddenError, NotFoundError } from '../lib/errors';
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
