/**
 * The app store (docs/app-store.md): the platform's catalog of apps, a store's entitlements (enable,
 * disable) and starting the purchase of a paid app. Paying a purchase is app-purchase-payment.ts.
 *
 * A free app is enabled at once; a paid app needs a PAID purchase that still covers today (ONE_TIME:
 * for good; MONTHLY: 30 days from payment). Disabling keeps the purchase, so enabling again needs no
 * new payment while it covers. Every change is audited and announced to the tenant's members (an
 * in-app notification) in its transaction; nothing outside the API consumes entitlements yet, so no
 * outbox row is written.
 */
import { In } from 'typeorm';
import { AppListing, AppPurchase, StoreAppEntitlement } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { notifyTenant } from '../../storage/notifications';
import { inTransaction, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { requireStore } from '../../domain/store-access';
import { UUID_PATTERN } from '../http/schema-types';
import { appStoreError } from './app-store.errors';
import {
  entitlementView,
  listingView,
  purchaseView,
  type AppEntitlementView,
  type AppListingForStoreView,
  type AppListingView,
  type AppPurchaseView,
} from './app-store.views';
import { threeDsPageUrl } from './app-purchase-payment';

/** How long a MONTHLY purchase covers, from its payment. */
export const MONTHLY_PERIOD_DAYS = 30;

const listingNotFound = () => appStoreError('app_listing_not_found', 'The app listing does not exist.');
export const purchaseNotFound = () => appStoreError('app_purchase_not_found', 'The app purchase does not exist.');

const listings = (ctx: RequestContext) => ctx.manager.getRepository(AppListing);

// ------------------------------------------------------------------------------------------ public

export async function listPublicListings(ctx: RequestContext, query: { category?: string }): Promise<{ items: AppListingView[] }> {
  const qb = listings(ctx).createQueryBuilder('l').where('l.published');
  if (query.category) qb.andWhere('l.category = :category', { category: query.category });
  const rows = await qb.orderBy('l.name', 'ASC').addOrderBy('l.id', 'ASC').getMany();
  return { items: rows.map(listingView) };
}

export async function getPublicListing(ctx: RequestContext, slug: string): Promise<AppListingView> {
  const listing = await listings(ctx).findOneBy({ slug, published: true });
  if (!listing) throw listingNotFound();
  return listingView(listing);
}

// ---------------------------------------------------------------------------------------- merchant

/** A published listing by id (UUID) or slug; 404 otherwise. */
async function findListing(ctx: RequestContext, idOrSlug: string): Promise<AppListing> {
  const listing = await listings(ctx).findOneBy(
    UUID_PATTERN.test(idOrSlug) ? { id: idOrSlug, published: true } : { slug: idOrSlug, published: true },
  );
  if (!listing) throw listingNotFound();
  return listing;
}

/** The newest PAID purchase of the app for the store that still covers `at`. */
export async function activePurchase(
  ctx: RequestContext,
  storeId: string,
  listingId: string,
  at = new Date(),
): Promise<AppPurchase | null> {
  return tenantRepository(ctx, AppPurchase)
    .createQueryBuilder('p')
    .andWhere('p.storeId = :storeId AND p.listingId = :listingId', { storeId, listingId })
    .andWhere("p.status = 'PAID'")
    .andWhere('(p.paidThrough IS NULL OR p.paidThrough > :at)', { at })
    .orderBy('p.paidAt', 'DESC')
    .getOne();
}

/** The store's state for each listing: its entitlement and active purchase. */
async function statesFor(ctx: RequestContext, storeId: string, rows: AppListing[]): Promise<AppEntitlementView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((l) => l.id);
  const entitlements = await tenantRepository(ctx, StoreAppEntitlement).find({ where: { storeId, listingId: In(ids) } });
  const purchases = await tenantRepository(ctx, AppPurchase)
    .createQueryBuilder('p')
    .andWhere('p.storeId = :storeId AND p.listingId IN (:...ids)', { storeId, ids })
    .andWhere("p.status = 'PAID'")
    .andWhere('(p.paidThrough IS NULL OR p.paidThrough > now())')
    .orderBy('p.paidAt', 'DESC')
    .getMany();
  return rows.map((listing) =>
    entitlementView(
      storeId,
      listing,
      entitlements.find((e) => e.listingId === listing.id) ?? null,
      purchases.find((p) => p.listingId === listing.id) ?? null,
    ),
  );
}

export interface ListListingsQuery {
  storeId: string;
  cursor?: string;
  limit: number;
  category?: string;
}

export async function listListings(
  ctx: RequestContext,
  query: ListListingsQuery,
): Promise<{ items: AppListingForStoreView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  const qb = listings(ctx).createQueryBuilder('l').where('l.published');
  if (query.category) qb.andWhere('l.category = :category', { category: query.category });
  if (query.cursor) qb.andWhere('l.id > :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('l.id', 'ASC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  const states = await statesFor(ctx, store.id, page);
  return {
    items: page.map((listing, i) => ({ ...listingView(listing), entitlement: states[i]! })),
    nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
  };
}

export async function getListing(ctx: RequestContext, idOrSlug: string, storeId: string): Promise<AppListingForStoreView> {
  const store = await requireStore(ctx, storeId);
  const listing = await findListing(ctx, idOrSlug);
  const [state] = await statesFor(ctx, store.id, [listing]);
  return { ...listingView(listing), entitlement: state! };
}

export async function listEntitlements(
  ctx: RequestContext,
  storeId: string,
): Promise<{ items: Array<AppEntitlementView & { listing: AppListingView }> }> {
  const store = await requireStore(ctx, storeId);
  const entitlements = await tenantRepository(ctx, StoreAppEntitlement).find({
    where: { storeId: store.id },
    order: { createdAt: 'ASC', id: 'ASC' },
  });
  if (entitlements.length === 0) return { items: [] };
  const rows = await listings(ctx).findBy({ id: In(entitlements.map((e) => e.listingId)) });
  const ordered = entitlements.map((e) => rows.find((l) => l.id === e.listingId)!).filter(Boolean);
  const states = await statesFor(ctx, store.id, ordered);
  return { items: ordered.map((listing, i) => ({ ...states[i]!, listing: listingView(listing) })) };
}

/** Turns the app on or off for the store (in `tx`); returns the entitlement, audited and announced when it changed. */
export async function setEntitlement(
  tx: RequestContext,
  storeId: string,
  listing: AppListing,
  enabled: boolean,
  purchase: AppPurchase | null,
): Promise<StoreAppEntitlement> {
  const repo = tenantRepository(tx, StoreAppEntitlement);
  const existing = await repo.findOne({ where: { storeId, listingId: listing.id }, lock: { mode: 'pessimistic_write' } });
  const now = new Date();
  if (existing && existing.enabled === enabled && (!enabled || existing.purchaseId === (purchase?.id ?? existing.purchaseId)))
    return existing;
  const next: StoreAppEntitlement = existing
    ? {
        ...existing,
        enabled,
        purchaseId: purchase?.id ?? existing.purchaseId,
        enabledAt: enabled ? now : existing.enabledAt,
        disabledAt: enabled ? existing.disabledAt : now,
        updatedAt: now,
      }
    : repo.create({
        id: uuidv7(),
        storeId,
        listingId: listing.id,
        enabled,
        purchaseId: purchase?.id ?? null,
        enabledAt: enabled ? now : null,
        disabledAt: enabled ? null : now,
        createdAt: now,
        updatedAt: now,
      });
  if (existing)
    await repo.update(
      { id: existing.id },
      { enabled, purchaseId: next.purchaseId, enabledAt: next.enabledAt, disabledAt: next.disabledAt, updatedAt: now },
    );
  else await tx.manager.insert(StoreAppEntitlement, next);
  if (existing?.enabled !== enabled) {
    await recordAudit(tx, {
      action: enabled ? 'app_entitlement.enable' : 'app_entitlement.disable',
      resourceType: 'app_entitlement',
      resourceId: next.id,
      before: existing ? { enabled: existing.enabled, purchaseId: existing.purchaseId } : null,
      after: { storeId, listingId: listing.id, slug: listing.slug, enabled, purchaseId: next.purchaseId },
    });
    await notifyTenant(tx, {
      tenantId: tx.tenantId!,
      storeId,
      topic: enabled ? 'app_store.app_enabled' : 'app_store.app_disabled',
      title: enabled ? `${listing.name} is enabled` : `${listing.name} is disabled`,
      body: enabled
        ? `The app ${listing.name} is now enabled for your store. It may use: ${listing.scopes.join(', ') || 'nothing'}.`
        : `The app ${listing.name} was disabled for your store.${listing.pricingType !== 'FREE' ? ' Your purchase is kept.' : ''}`,
      link: `/app-store/listings/${listing.slug}`,
    });
  }
  return next;
}

async function entitlementOf(tx: RequestContext, storeId: string, listing: AppListing): Promise<AppEntitlementView> {
  const [state] = await statesFor(tx, storeId, [listing]);
  return state!;
}

export async function enableApp(ctx: RequestContext, listingId: string, storeId: string): Promise<AppEntitlementView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, storeId, { forWrite: true, lock: true });
    const listing = await findListing(tx, listingId);
    let purchase: AppPurchase | null = null;
    if (listing.pricingType !== 'FREE') {
      purchase = await activePurchase(tx, store.id, listing.id);
      if (!purchase)
        throw appStoreError(
          'app_purchase_required',
          `${listing.name} is a paid app: purchase it for the store (POST /app-store/listings/${listing.id}/purchase) and pay first.`,
        );
    }
    await setEntitlement(tx, store.id, listing, true, purchase);
    return entitlementOf(tx, store.id, listing);
  });
}

export async function disableApp(ctx: RequestContext, listingId: string, storeId: string): Promise<AppEntitlementView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, storeId, { forWrite: true, lock: true });
    const listing = await findListing(tx, listingId);
    const existing = await tenantRepository(tx, StoreAppEntitlement).findOneBy({ storeId: store.id, listingId: listing.id });
    if (existing?.enabled) await setEntitlement(tx, store.id, listing, false, null);
    return entitlementOf(tx, store.id, listing);
  });
}

export async function purchaseApp(ctx: RequestContext, listingId: string, storeId: string): Promise<AppPurchaseView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, storeId, { forWrite: true, lock: true });
    const listing = await findListing(tx, listingId);
    if (listing.pricingType === 'FREE')
      throw appStoreError('app_is_free', `${listing.name} is free: enable it, there is nothing to purchase.`);
    if (await activePurchase(tx, store.id, listing.id))
      throw appStoreError('app_already_purchased', `The store already has a paid purchase of ${listing.name} that covers today.`);
    const now = new Date();
    const purchase = tenantRepository(tx, AppPurchase).create({
      id: uuidv7(),
      storeId: store.id,
      listingId: listing.id,
      status: 'PENDING',
      amount: listing.price,
      currency: listing.currency,
      provider: null,
      providerPaymentId: null,
      installments: null,
      cardBrand: null,
      cardLast4: null,
      declineCode: null,
      failureMessage: null,
      threeDsToken: null,
      challengeUrl: null,
      challengeExpiresAt: null,
      paidAt: null,
      paidThrough: null,
      createdBy: tx.actor.type === 'user' ? (tx.actor.id ?? null) : null,
      createdAt: now,
      updatedAt: now,
    });
    await tx.manager.insert(AppPurchase, purchase);
    await recordAudit(tx, {
      action: 'app_purchase.create',
      resourceType: 'app_purchase',
      resourceId: purchase.id,
      after: {
        storeId: store.id,
        listingId: listing.id,
        slug: listing.slug,
        status: purchase.status,
        amount: purchase.amount,
        currency: purchase.currency,
      },
    });
    return purchaseView(purchase, null);
  });
}

export async function purchaseStatus(ctx: RequestContext, id: string): Promise<AppPurchaseView> {
  const purchase = await tenantRepository(ctx, AppPurchase, purchaseNotFound).getOneBy({ id });
  await requireStore(ctx, purchase.storeId).catch(() => {
    throw purchaseNotFound();
  });
  return purchaseView(purchase, purchase.threeDsToken ? threeDsPageUrl(ctx, purchase.threeDsToken) : null);
}

/** What happens to the store when a purchase is paid: the app becomes enabled, its period set (MONTHLY). */
export async function onAppPurchasePaid(tx: RequestContext, purchase: AppPurchase): Promise<Partial<AppPurchase>> {
  const listing = await listings(tx).findOneByOrFail({ id: purchase.listingId });
  const paidThrough =
    listing.pricingType === 'MONTHLY' ? new Date((purchase.paidAt ?? new Date()).getTime() + MONTHLY_PERIOD_DAYS * 86_400_000) : null;
  await setEntitlement(tx, purchase.storeId, listing, true, { ...purchase, paidThrough });
  return { paidThrough };
}

/** When a paid purchase is refunded: the app is disabled unless another purchase still covers it. */
export async function onAppPurchaseRefunded(tx: RequestContext, purchase: AppPurchase): Promise<void> {
  const listing = await listings(tx).findOneByOrFail({ id: purchase.listingId });
  if (!(await activePurchase(tx, purchase.storeId, listing.id))) {
    const existing = await tenantRepository(tx, StoreAppEntitlement).findOneBy({ storeId: purchase.storeId, listingId: listing.id });
    if (existing?.enabled) await setEntitlement(tx, purchase.storeId, listing, false, null);
  }
}

/** The title of a purchase on the payment pages. */
export async function appPurchaseTitle(tx: RequestContext, purchase: AppPurchase): Promise<string> {
  const listing = await listings(tx).findOneBy({ id: purchase.listingId });
  return listing ? `App: ${listing.name}` : 'App purchase';
}
