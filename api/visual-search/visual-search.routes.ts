/** Visual search: image embeddings of a store's products and query by image (docs/search.md, "Visual search"). */
import { defineRoutes, listedRequired, type RouteRequest } from '../http/route';
import { positiveInt } from '../http/schema-types';
import {
  CalibrationResponse,
  ClearIndexResponse,
  IndexProductDto,
  IndexRequestResponse,
  IndexStatusResponse,
  QueryByImageDto,
  VisualSearchResults,
  VisualSearchSettingsDto,
  VisualSearchSettingsResponse,
  MAX_RESULTS_LIMIT,
} from './visual-search.schemas';
import {
  calibrateIndex,
  clearIndex,
  indexProducts,
  indexStatus,
  queryMerchant,
  publicSimilarProducts,
  queryPublic,
  similarProducts,
  updateSettings,
  type QueryInput,
  type SettingsInput,
} from './visual-search.service';
import {
  CALIBRATE_DESCRIPTION,
  CLEAR_INDEX_DESCRIPTION,
  INDEX_PRODUCTS_DESCRIPTION,
  INDEX_STATUS_DESCRIPTION,
  PUBLIC_QUERY_DESCRIPTION,
  PUBLIC_SIMILAR_PRODUCTS_DESCRIPTION,
  QUERY_DESCRIPTION,
  SIMILAR_PRODUCTS_DESCRIPTION,
  UPDATE_SETTINGS_DESCRIPTION,
} from './visual-search.descriptions';

type Params = Record<string, string>;

/** Operations beyond the specification's listing (api/routes/index.ts). */
export const visualSearchExtensionOperationIds = ['visualSearch.calibrate', 'visualSearch.publicSimilarProducts'];
const upload = {
  field: 'image',
  description: 'The image file (JPEG, PNG, GIF, WebP, AVIF or TIFF), at most VISION_UPLOAD_MAX_BYTES (8 MB by default).',
  maxBytes: (config: import('../../lib/config').Config | undefined) => config?.vision.uploadMaxBytes ?? 8 * 1024 * 1024,
};

export const visualSearchRoutes = defineRoutes({ tag: 'visual-search', auth: 'merchant' }, [
  {
    operationId: 'visualSearch.updateSettings',
    method: 'PATCH',
    path: '/visual-search/stores/{storeId}/settings',
    summary: 'Update the visual search settings of a store',
    description: UPDATE_SETTINGS_DESCRIPTION,
    body: VisualSearchSettingsDto,
    response: VisualSearchSettingsResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, SettingsInput>) => updateSettings(req.context, req.params.storeId!, req.body),
  },
  {
    operationId: 'visualSearch.indexProducts',
    method: 'POST',
    path: '/visual-search/stores/{storeId}/index',
    summary: 'Queue product images of a store for embedding',
    description: INDEX_PRODUCTS_DESCRIPTION,
    body: IndexProductDto,
    response: IndexRequestResponse,
    status: 202,
    handler: (req: RouteRequest<Params, Params, { productIds?: string[]; force?: boolean }>) =>
      indexProducts(req.context, req.params.storeId!, req.body),
  },
  {
    operationId: 'visualSearch.indexStatus',
    method: 'GET',
    path: '/visual-search/stores/{storeId}/index',
    summary: 'State of the image index of a store',
    description: INDEX_STATUS_DESCRIPTION,
    response: IndexStatusResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => indexStatus(req.context, req.params.storeId!),
  },
  {
    operationId: 'visualSearch.clearIndex',
    method: 'DELETE',
    path: '/visual-search/stores/{storeId}/index',
    summary: 'Clear the image index of a store',
    description: CLEAR_INDEX_DESCRIPTION,
    response: ClearIndexResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => clearIndex(req.context, req.params.storeId!),
  },
  {
    operationId: 'visualSearch.calibrate',
    method: 'POST',
    path: '/visual-search/stores/{storeId}/calibration',
    summary: 'Measure the score calibration of a store now',
    description: CALIBRATE_DESCRIPTION,
    response: CalibrationResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => calibrateIndex(req.context, req.params.storeId!),
  },
  {
    operationId: 'visualSearch.similarProducts',
    method: 'GET',
    path: '/visual-search/stores/{storeId}/products/{productId}/similar',
    summary: 'Products that look like a product',
    description: SIMILAR_PRODUCTS_DESCRIPTION,
    query: { limit: listedRequired(positiveInt(100).default(50)) },
    response: VisualSearchResults,
    status: 200,
    handler: (req: RouteRequest<Params, Record<string, number>>) =>
      similarProducts(req.context, req.params.storeId!, req.params.productId!, req.query.limit!),
  },
  {
    operationId: 'visualSearch.publicSimilarProducts',
    method: 'GET',
    path: '/visual-search/public/stores/{storeId}/products/{productId}/similar',
    summary: 'Published products that look like a product (storefront)',
    description: PUBLIC_SIMILAR_PRODUCTS_DESCRIPTION,
    auth: 'public',
    query: {
      limit: positiveInt(MAX_RESULTS_LIMIT).description("1 to 100; default the store's maxResults, and never more than it."),
    },
    response: VisualSearchResults,
    status: 200,
    problems: [404, 409, 429],
    handler: (req: RouteRequest<Params, Record<string, number | undefined>>) =>
      publicSimilarProducts(req.context, req.params.storeId!, req.params.productId!, req.query.limit),
  },
  {
    operationId: 'visualSearch.query',
    method: 'POST',
    path: '/visual-search/stores/{storeId}/query',
    summary: 'Find the products of a store that look like an image',
    description: QUERY_DESCRIPTION,
    body: QueryByImageDto,
    upload,
    response: VisualSearchResults,
    status: 201,
    handler: (req: RouteRequest<Params, Params, QueryInput>) => queryMerchant(req.context, req.params.storeId!, req.body),
  },
  {
    operationId: 'visualSearch.publicQuery',
    method: 'POST',
    path: '/visual-search/public/stores/{storeId}/query',
    summary: 'Find published products of a store that look like an image (storefront)',
    description: PUBLIC_QUERY_DESCRIPTION,
    auth: 'public',
    body: QueryByImageDto,
    upload,
    response: VisualSearchResults,
    status: 201,
    problems: [409, 429],
    handler: (req: RouteRequest<Params, Params, QueryInput>) => queryPublic(req.context, req.params.storeId!, req.body),
  },
]);
