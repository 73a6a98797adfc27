/** DTOs and enums of the merchant product catalog (document 2, "Catalog: products"). */
import { pendingDto } from '../http/route';

/** Document 1, "Enumerated values": product type. */
export const PRODUCT_TYPES = ['PHYSICAL', 'DIGITAL', 'BUNDLE', 'GIFT_CARD', 'SUBSCRIPTION', 'SERVICE'] as const;

/** Document 1, "Enumerated values": public product search `sort` (default relevance). */
export const PUBLIC_SEARCH_SORTS = ['newest', 'price_asc', 'price_desc', 'discount', 'most_reviewed', 'rating', 'best_selling', 'most_viewed', 'relevance'] as const;

/**
 * Product states. Document 1 does not list them; the operations (publish, archive) and the
 * product.published / product.archived topics imply these three.
 */
export const PRODUCT_STATUSES = ['DRAFT', 'PUBLISHED', 'ARCHIVED'] as const;

/** Sort keys of the merchant product lists (not listed by the specification). */
export const PRODUCT_SORT_FIELDS = ['createdAt', 'updatedAt', 'name', 'price', 'stock'] as const;

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

export const CreateProductDto = pendingDto('CreateProductDto');
export const UpdateProductDto = pendingDto('UpdateProductDto');
export const ProductIdsBodyDto = pendingDto('ProductIdsBodyDto');
export const BulkSetCategoryDto = pendingDto('BulkSetCategoryDto');
export const BulkSetProductStatusDto = pendingDto('BulkSetProductStatusDto');
export const BulkUpdatePriceDto = pendingDto('BulkUpdatePriceDto');
export const BulkProductTagsDto = pendingDto('BulkProductTagsDto');
