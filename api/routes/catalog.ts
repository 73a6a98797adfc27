/** The catalog: products (merchant and public), their taxonomy, bulk edits, brands, bundles, synonyms and visual search. */
import type { RouteDef } from '../http/route';
import { productRoutes } from '../products/products.routes';
import { productBulkRoutes } from '../products/products-bulk.routes';
import { storefrontRoutes } from '../storefront/storefront.routes';
import { categoryAttributeRoutes, categoryRoutes } from '../categories/categories.routes';
import { productRelationRoutes } from '../product-relations/product-relations.routes';
import { productTagRoutes } from '../product-tags/product-tags.routes';
import { filterConfigRoutes } from '../filter-config/filter-config.routes';
import { productBulkEditRoutes } from '../product-bulk-edits/product-bulk-edits.routes';
import { brandRoutes } from '../brands/brands.routes';
import { bundleRoutes } from '../bundles/bundles.routes';
import { searchSynonymRoutes } from '../search-synonyms/search-synonyms.routes';
import { visualSearchRoutes } from '../visual-search/visual-search.routes';
import { themeRoutes } from '../themes/themes.routes';

export const catalogRoutes: RouteDef[] = [
  // Products (merchant)
  ...productRoutes,
  ...productBulkRoutes,
  // Public catalog (storefront)
  ...storefrontRoutes,
  // Categories, relations, tags, filter configuration
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
  // Theme packages and section settings (extensions)
  ...themeRoutes,
];
