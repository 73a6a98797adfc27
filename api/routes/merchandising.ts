/** Merchandising: sponsored listings, pricing rules, flash sales, shipping rates, collections and content. */
import type { RouteDef } from '../http/route';
import { sponsoredListingRoutes } from '../sponsored-listings/sponsored-listings.routes';
import { pricingRoutes } from '../pricing/pricing.routes';
import { flashSaleRoutes } from '../flash-sales/flash-sales.routes';
import { shippingRateRoutes } from '../shipping-rates/shipping-rates.routes';
import { collectionRoutes } from '../collections/collections.routes';
import { contentRoutes } from '../content/content.routes';

export const merchandisingRoutes: RouteDef[] = [
  // Sponsored listings, pricing, flash sales, shipping
  ...sponsoredListingRoutes,
  ...pricingRoutes,
  ...flashSaleRoutes,
  ...shippingRateRoutes,
  // Collections and content
  ...collectionRoutes,
  ...contentRoutes,
];
