/**
 * Per-client bounds of the anonymous storefront reads and counters:
 *
 * - public search and suggest: at most `SEARCH_PUBLIC_REQUESTS_PER_MINUTE` requests per client and
 *   minute, the two together and across all stores, counted in each api process's memory; over it
 *   429 rate_limited with Retry-After.
 * - product views: one counted view per client and product in `PRODUCT_VIEW_WINDOW_SECONDS`, on the
 *   shared Redis limiter (storage/rate-limit.ts; it lets requests through while Redis is down); a
 *   repeated view (a shopper reloading the page) still answers 204 but adds nothing.
 *
 * A client is its address (an IPv6 address by its /64, see clientKey), as Koa sees it: the socket's,
 * X-Forwarded-For behind a trusted proxy, or the shopper's address relayed by the storefront.
 */
import { RateLimitedError } from '../../lib/errors';
import { clientKey, hashedLimitKey } from '../../storage/rate-limit';
import { servicesOf, type RequestContext } from '../../storage/request-context';

/**
 * Counts one public search or suggest request of this client; 429 rate_limited over the limit.
 * Counted in this process (lib/local-rate-limit.ts): a Redis round trip would cost more than a
 * cached answer, so the bound is per api process.
 */
export function hitPublicSearchLimit(ctx: RequestContext): void {
  const { localRateLimiter, config } = servicesOf(ctx);
  localRateLimiter.hit(`public-search:${clientKey(ctx.client?.ip)}`, { limit: config.search.publicRequestsPerMinute, windowSeconds: 60 });
}

/** Whether this client's view of `productId` counts: false when it already counted one in the window. */
export async function firstViewInWindow(ctx: RequestContext, productId: string): Promise<boolean> {
  const { rateLimiter, config } = servicesOf(ctx);
  try {
    await rateLimiter.hit(`product-view:${hashedLimitKey([productId.toLowerCase(), clientKey(ctx.client?.ip)])}`, {
      limit: 1,
      windowSeconds: config.search.productViewWindowSeconds,
    });
    return true;
  } catch (error) {
    if (error instanceof RateLimitedError) return false;
    throw error;
  }
}
