/**
 * The operations of document 2 (endpoints-a.md), in the order the specification lists them.
 * The "Sandbox and import" group (POST /api/v1/orders, webhooks/test, bulk-import, customers/import)
 * is added separately.
 */
import type { RouteDef } from './http/route';
import { jobsRoutes } from './jobs/jobs.routes';
import { apiKeyRoutes } from './api-keys/api-keys.routes';
import { auditLogRoutes } from './audit-log/audit-log.routes';
import { authRoutes } from './auth/auth.routes';
import { authSecondFactorRoutes } from './auth/auth-second-factor.routes';
import { organizationRoutes } from './organization/organization.routes';
import { productRoutes } from './products/products.routes';
import { productBulkRoutes } from './products/products-bulk.routes';
import { storefrontRoutes } from './storefront/storefront.routes';
import { categoryAttributeRoutes, categoryRoutes } from './categories/categories.routes';
import { productRelationRoutes } from './product-relations/product-relations.routes';
import { productTagRoutes } from './product-tags/product-tags.routes';
import { filterConfigRoutes } from './filter-config/filter-config.routes';
import { productBulkEditRoutes } from './product-bulk-edits/product-bulk-edits.routes';
import { brandRoutes } from './brands/brands.routes';
import { bundleRoutes } from './bundles/bundles.routes';
import { searchSynonymRoutes } from './search-synonyms/search-synonyms.routes';
import { visualSearchRoutes } from './visual-search/visual-search.routes';
import { sponsoredListingRoutes } from './sponsored-listings/sponsored-listings.routes';
import { pricingRoutes } from './pricing/pricing.routes';
import { flashSaleRoutes } from './flash-sales/flash-sales.routes';
import { shippingRateRoutes } from './shipping-rates/shipping-rates.routes';
import { collectionRoutes } from './collections/collections.routes';
import { contentRoutes } from './content/content.routes';

export const document2Routes: RouteDef[] = [
  // Jobs
  ...jobsRoutes,
  // API keys and audit log
  ...apiKeyRoutes,
  ...auditLogRoutes,
  // Authentication, sessions, command line device flow, account
  ...authRoutes,
  ...authSecondFactorRoutes,
  // Organization
  ...organizationRoutes,
  // Catalog: products (merchant)
  ...productRoutes,
  ...productBulkRoutes,
  // Catalog: public (storefront)
  ...storefrontRoutes,
  // Catalog: categories, relations, tags, filter configuration
  ...categoryRoutes,
  ...productRelationRoutes,
  ...productTagRoutes,
  ...filterConfigRoutes,
  ...categoryAttributeRoutes,
  // Product bulk edits
  ...productBulkEditRoutes,
  // Brands, bundles, synonyms, visual search
  ...brandRoutes,
  ...bundleRoutes,
  ...searchSynonymRoutes,
  ...visualSearchRoutes,
  // Sponsored listings, pricing, flash sales, shipping
  ...sponsoredListingRoutes,
  ...pricingRoutes,
  ...flashSaleRoutes,
  ...shippingRateRoutes,
  // Collections and content
  ...collectionRoutes,
  ...contentRoutes,
];
