/**
 * Price visibility of a store (stores.price_visibility): EVERYONE (default), SIGNED_IN (only requests
 * carrying a valid access token of a signed-in user, see api/http/auth.ts) or HIDDEN. When
 * pricesShown() is false, public reads that would show a price leave the price fields out (absent,
 * not null), and nothing a visitor sends may filter or order by a price either: search and query by
 * image ignore their price filters and price sorts (naming them in ignoredParams), and the shipping
 * quote does not use catalog prices (docs/search.md, "Price visibility").
 */
import type { RequestContext } from '../storage/request-context';

export type PriceVisibility = 'EVERYONE' | 'SIGNED_IN' | 'HIDDEN';

export const PRICE_VISIBILITIES: readonly PriceVisibility[] = ['EVERYONE', 'SIGNED_IN', 'HIDDEN'];

/** A stored value as a PriceVisibility; anything unknown reads as EVERYONE (the column's default). */
export function asPriceVisibility(value: unknown): PriceVisibility {
  return value === 'SIGNED_IN' || value === 'HIDDEN' ? value : 'EVERYONE';
}

/** Whether this request may see the store's prices. */
export function pricesShown(ctx: RequestContext, visibility: PriceVisibility): boolean {
  if (visibility === 'EVERYONE') return true;
  if (visibility === 'HIDDEN') return false;
  return ctx.actor.type === 'user' && typeof ctx.actor.id === 'string';
}
