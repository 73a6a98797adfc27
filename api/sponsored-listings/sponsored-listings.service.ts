/**
 * Sponsored listings of a store (merchant CRUD) and the public click tracker.
 *
 * Every merchant write records one audit entry (`sponsored_listing.create|update|delete`) and one
 * outbox row for the store (aggregate `store`, topic `sponsored_listings.updated`) in its transaction,
 * so whatever caches the store's search results is invalidated; a PATCH that changes nothing writes
 * neither. Listings end lazily (sponsored-listings.sql.ts) before every list and candidate read and
 * before every write, and at once when a click spends the budget.
 */
import { Not } from 'typeorm';
import { Product, SponsoredListing } from '../../storage/entities';
import type { SponsoredListingEndReason, SponsoredListingStatus } from '../../storage/entities/sponsored-listing.entity';
import { recordAudit } from '../../storage/audit';
import { isUniqueViolation } from '../../storage/db-errors';
import { uuidv7 } from '../../storage/ids';
import { enqueueOutbox, type OutboxEvent } from '../../storage/outbox';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../../lib/errors';
import { formatUnits, toUnits } from '../../domain/money';
import { hashedLimitKey, type RateLimitRule } from '../../storage/rate-limit';
import { requireStore, storeNotFound } from '../../domain/store-access';
import { CLICK_SQL, END_DUE_SQL, SPONSORED_TOPIC } from './sponsored-listings.sql';
import { sponsoredListingsError } from './sponsored-listings.errors';
import type { CreateSponsoredListingDto, TrackSponsoredClickDto, UpdateSponsoredListingDto } from './sponsored-listings.schemas';
import type { InputOf } from '../http/typed-schema';

export interface SponsoredListingView {
  id: string;
  storeId: string;
  productId: string;
  status: SponsoredListingStatus;
  keywords: string[];
  startsAt: string;
  endsAt: string | null;
  budget: number | null;
  costPerClick: number;
  spent: number;
  remainingBudget: number | null;
  clicks: number;
  endedAt: string | null;
  endedReason: SponsoredListingEndReason | null;
  createdAt: string;
  updatedAt: string;
}

/** Canonical decimal string of an amount (numeric column text or validated JSON number). */
const amount = (value: string | number): string => formatUnits(toUnits(value), 4);
const amountNumber = (value: string | number): number => Number(amount(value));

export function listingView(row: SponsoredListing): SponsoredListingView {
  return {
    id: row.id,
    storeId: row.storeId,
    productId: row.productId,
    status: row.status,
    keywords: row.keywords,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt ? row.endsAt.toISOString() : null,
    budget: row.budget === null ? null : amountNumber(row.budget),
    costPerClick: amountNumber(row.costPerClick),
    spent: amountNumber(row.spent),
    remainingBudget: row.budget === null ? null : Number(formatUnits(toUnits(row.budget) - toUnits(row.spent), 4)),
    clicks: Number(row.clicks),
    endedAt: row.endedAt ? row.endedAt.toISOString() : null,
    endedReason: row.endedReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const notFound = (): NotFoundError => sponsoredListingsError('sponsored_listing_not_found', 'The sponsored listing does not exist.');
const productNotFound = (): NotFoundError => sponsoredListingsError('product_not_found', 'The product does not exist in this store.');
const alreadyListed = (): ConflictError =>
  sponsoredListingsError(
    'sponsored_listing_exists',
    'The product already has a sponsored listing that is not ENDED; update that one instead.',
  );

/** Runs a write that may open a listing; two requests racing for one product end in 409 sponsored_listing_exists, not a generic duplicate. */
async function oneOpenPerProduct<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'sponsored_listings_product_open')) throw alreadyListed();
    throw error;
  }
}

const storeEvent = (row: SponsoredListing, verb: 'created' | 'updated' | 'deleted'): OutboxEvent => ({
  queue: 'index' as const,
  topic: SPONSORED_TOPIC,
  aggregateType: 'store',
  aggregateId: row.storeId,
  payload: { listingId: row.id, change: verb },
});

type Fields = Pick<SponsoredListing, 'status' | 'keywords' | 'startsAt' | 'endsAt' | 'budget' | 'costPerClick' | 'endedAt' | 'endedReason'>;

/** What the audit log keeps and what decides whether a PATCH changed anything. */
const fields = (row: Fields): Record<string, unknown> => ({
  status: row.status,
  keywords: row.keywords,
  startsAt: row.startsAt.toISOString(),
  endsAt: row.endsAt ? row.endsAt.toISOString() : null,
  budget: row.budget === null ? null : amount(row.budget),
  costPerClick: amount(row.costPerClick),
  endedReason: row.endedReason,
});

/** Ends the store's listings whose end date passed or whose budget is spent (one statement). */
async function endDue(ctx: RequestContext, storeId: string): Promise<void> {
  await ctx.manager.query(END_DUE_SQL, [storeId]);
}

function checkWindow(startsAt: Date, endsAt: Date | null): void {
  if (endsAt !== null && endsAt.getTime() <= startsAt.getTime()) {
    throw new ValidationError('endsAt must be after startsAt.', [{ path: 'body.endsAt', message: 'endsAt must be after startsAt' }]);
  }
}

// ---- list ----------------------------------------------------------------------------------------

export interface ListListingsQuery {
  storeId: string;
  cursor?: string;
  limit: number;
  status?: SponsoredListingStatus;
}

export async function listListings(
  ctx: RequestContext,
  query: ListListingsQuery,
): Promise<{ items: SponsoredListingView[]; nextCursor: string | null }> {
  const store = await requireStore(ctx, query.storeId);
  await endDue(ctx, store.id);
  const qb = tenantRepository(ctx, SponsoredListing).createQueryBuilder('s').andWhere('s.storeId = :storeId', { storeId: store.id });
  if (query.status !== undefined) qb.andWhere('s.status = :status', { status: query.status });
  if (query.cursor !== undefined) qb.andWhere('s.id < :cursor', { cursor: query.cursor });
  const rows = await qb
    .orderBy('s.id', 'DESC')
    .take(query.limit + 1)
    .getMany();
  const page = rows.slice(0, query.limit);
  return { items: page.map(listingView), nextCursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}

// ---- create --------------------------------------------------------------------------------------

export type CreateListingInput = InputOf<typeof CreateSponsoredListingDto>;

export async function createListing(ctx: RequestContext, body: CreateListingInput): Promise<SponsoredListingView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, body.storeId, { forWrite: true });
    const product = await tenantRepository(tx, Product).findOne({ where: { id: body.productId, storeId: store.id }, select: { id: true } });
    if (!product) throw productNotFound();
    await endDue(tx, store.id);
    const listings = tenantRepository(tx, SponsoredListing, notFound);
    if (await listings.exists({ productId: product.id, status: Not('ENDED' as const) })) throw alreadyListed();
    const now = new Date();
    const startsAt = body.startsAt ?? now;
    const endsAt = body.endsAt ?? null;
    checkWindow(startsAt, endsAt);
    const row = listings.create({
      id: uuidv7(),
      storeId: store.id,
      productId: product.id,
      status: body.status,
      keywords: body.keywords,
      startsAt,
      endsAt,
      budget: body.budget === undefined || body.budget === null ? null : amount(body.budget),
      costPerClick: amount(body.costPerClick),
      spent: '0',
      clicks: '0',
      endedAt: null,
      endedReason: null,
      createdAt: now,
      updatedAt: now,
    });
    await oneOpenPerProduct(() => tx.manager.insert(SponsoredListing, row));
    await recordAudit(tx, {
      action: 'sponsored_listing.create',
      resourceType: 'sponsored_listing',
      resourceId: row.id,
      after: { storeId: store.id, productId: product.id, ...fields(row) },
    });
    await enqueueOutbox(tx, storeEvent(row, 'created'));
    return listingView(row);
  });
}

// ---- update and delete ---------------------------------------------------------------------------

/** The listing `id` of the caller's tenant (and the API key's store), locked; due listings of its store ended first. */
async function loadForWrite(tx: RequestContext, id: string): Promise<SponsoredListing> {
  const listings = tenantRepository(tx, SponsoredListing, notFound);
  const found = await listings.findOne({ where: { id }, select: { id: true, storeId: true } });
  if (!found) throw notFound();
  if (tx.actor.type === 'api_key' && tx.actor.storeId !== found.storeId) throw notFound();
  await requireStore(tx, found.storeId, { forWrite: true });
  await endDue(tx, found.storeId);
  const row = await listings.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  if (!row) throw notFound();
  return row;
}

export type UpdateListingInput = InputOf<typeof UpdateSponsoredListingDto>;

export async function updateListing(ctx: RequestContext, id: string, body: UpdateListingInput): Promise<SponsoredListingView> {
  return inTransaction(ctx, async (tx) => {
    const row = await loadForWrite(tx, id);
    const now = new Date();
    const next: Fields = {
      status: row.status,
      keywords: body.keywords ?? row.keywords,
      startsAt: body.startsAt ?? row.startsAt,
      endsAt: body.endsAt !== undefined ? body.endsAt : row.endsAt,
      budget: body.budget !== undefined ? (body.budget === null ? null : amount(body.budget)) : row.budget,
      costPerClick: body.costPerClick !== undefined ? amount(body.costPerClick) : row.costPerClick,
      endedAt: row.endedAt,
      endedReason: row.endedReason,
    };
    checkWindow(next.startsAt, next.endsAt);
    const spent = toUnits(row.spent);
    if (body.budget !== undefined && body.budget !== null && toUnits(next.budget!) <= spent) {
      throw sponsoredListingsError(
        'budget_not_above_spent',
        `The budget must stay above what the listing has already spent (${amount(row.spent)}).`,
        [{ path: 'body.budget', message: 'budget must be greater than spent' }],
      );
    }
    if (body.status === 'ENDED') {
      if (row.status !== 'ENDED') Object.assign(next, { status: 'ENDED', endedAt: now, endedReason: 'MANUAL' });
    } else if (body.status !== undefined) {
      if (row.status === 'ENDED') {
        const dateOver = next.endsAt !== null && next.endsAt.getTime() <= now.getTime();
        const budgetOver = next.budget !== null && toUnits(next.budget) <= spent;
        if (dateOver || budgetOver) {
          throw sponsoredListingsError(
            'sponsored_listing_ended',
            `The listing is ENDED and would end again at once: ${dateOver ? 'move endsAt into the future or remove it' : 'raise the budget above what it spent or remove it'} in the same request to reactivate it.`,
          );
        }
        if (await tenantRepository(tx, SponsoredListing).exists({ productId: row.productId, status: Not('ENDED' as const) }))
          throw alreadyListed();
        Object.assign(next, { endedAt: null, endedReason: null });
      }
      next.status = body.status;
    }
    const before = fields(row);
    const after = fields(next);
    if (JSON.stringify(before) === JSON.stringify(after)) return listingView(row);
    const updated: SponsoredListing = { ...row, ...next, updatedAt: now };
    await oneOpenPerProduct(() =>
      tenantRepository(tx, SponsoredListing).update(
        { id: row.id },
        {
          status: next.status,
          keywords: next.keywords,
          startsAt: next.startsAt,
          endsAt: next.endsAt,
          budget: next.budget,
          costPerClick: next.costPerClick,
          endedAt: next.endedAt,
          endedReason: next.endedReason,
          updatedAt: now,
        },
      ),
    );
    await recordAudit(tx, { action: 'sponsored_listing.update', resourceType: 'sponsored_listing', resourceId: row.id, before, after });
    await enqueueOutbox(tx, storeEvent(row, 'updated'));
    return listingView(updated);
  });
}

export async function deleteListing(ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const row = await loadForWrite(tx, id);
    await tenantRepository(tx, SponsoredListing).delete({ id: row.id });
    await recordAudit(tx, {
      action: 'sponsored_listing.delete',
      resourceType: 'sponsored_listing',
      resourceId: row.id,
      before: { storeId: row.storeId, productId: row.productId, ...fields(row), spent: amount(row.spent), clicks: Number(row.clicks) },
    });
    await enqueueOutbox(tx, storeEvent(row, 'deleted'));
  });
}

// ---- click tracker (public) ----------------------------------------------------------------------

/**
 * Click de-duplication with the shared rate limiter: one counted click per listing, client address
 * and visitor in 30 seconds, and at most 10 counted clicks per listing and client address an hour.
 * Clicks over these limits answer 202 like every other click but are not counted.
 */
export const CLICK_LIMITS = {
  perVisitor: { limit: 1, windowSeconds: 30 },
  perClient: { limit: 10, windowSeconds: 3600 },
} satisfies Record<string, RateLimitRule>;

export type TrackClickInput = InputOf<typeof TrackSponsoredClickDto>;

/** Whether the click was counted (internal: the HTTP answer is the same 202 either way). */
export async function trackClick(ctx: RequestContext, body: TrackClickInput): Promise<boolean> {
  const stores: Array<{ id: string }> = await ctx.manager.query(`SELECT id FROM stores WHERE id = $1 AND status <> 'archived'`, [
    body.storeId,
  ]);
  if (!stores[0]) throw storeNotFound();
  const { rateLimiter, logger } = servicesOf(ctx);
  const ip = ctx.client?.ip ?? 'unknown';
  const visitor = body.visitorId !== undefined ? `v:${body.visitorId}` : `ua:${ctx.client?.userAgent ?? ''}`;
  try {
    await rateLimiter.hit(`sponsored-click:visitor:${hashedLimitKey([body.listingId, ip, visitor])}`, CLICK_LIMITS.perVisitor);
    await rateLimiter.hit(`sponsored-click:client:${hashedLimitKey([body.listingId, ip])}`, CLICK_LIMITS.perClient);
  } catch (error) {
    if (error instanceof RateLimitedError) return false;
    throw error;
  }
  const rows: Array<{ status: string }> = await ctx.manager.query(CLICK_SQL, [body.listingId, body.storeId, body.productId ?? null]);
  logger.debug(
    { listingId: body.listingId, storeId: body.storeId, counted: rows.length > 0, query: body.query },
    'sponsored listing click',
  );
  return rows.length > 0;
}
