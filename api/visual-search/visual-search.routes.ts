/** Visual search: image embeddings of a store's products and query by image (document 2, "Brands, bundles, synonyms, visual search"). */
import { defineRoutes, listedRequired } from '../http/route';
import { positiveInt } from '../http/schema-types';
import { IndexProductDto, QueryByImageDto, VisualSearchSettingsDto } from './visual-search.schemas';

export const visualSearchRoutes = defineRoutes({ tag: 'visual-search', auth: 'merchant' }, [
  {
    operationId: 'visualSearch.updateSettings',
    method: 'PATCH',
    path: '/visual-search/stores/{storeId}/settings',
    summary: 'Update the visual search settings of a store',
    body: VisualSearchSettingsDto,
    status: 200,
  },
  {
    operationId: 'visualSearch.indexProducts',
    method: 'POST',
    path: '/visual-search/stores/{storeId}/index',
    summary: 'Queue product images of a store for embedding',
    body: IndexProductDto,
    status: 202,
  },
  { operationId: 'visualSearch.indexStatus', method: 'GET', path: '/visual-search/stores/{storeId}/index', summary: 'State of the image index of a store', status: 200 },
  { operationId: 'visualSearch.clearIndex', method: 'DELETE', path: '/visual-search/stores/{storeId}/index', summary: 'Clear the image index of a store', status: 200 },
  {
    operationId: 'visualSearch.similarProducts',
    method: 'GET',
    path: '/visual-search/stores/{storeId}/products/{productId}/similar',
    summary: 'Products that look like a product',
    description: 'limit is not typed by the specification; 1 to 100, default 50.',
    query: { limit: listedRequired(positiveInt(100).default(50)) },
    status: 200,
  },
  { operationId: 'visualSearch.query', method: 'POST', path: '/visual-search/stores/{storeId}/query', summary: 'Find the products of a store that look like an image', body: QueryByImageDto, status: 201 },
  {
    operationId: 'visualSearch.publicQuery',
    method: 'POST',
    path: '/visual-search/public/stores/{storeId}/query',
    summary: 'Find published products of a store that look like an image (storefront)',
    auth: 'public',
    body: QueryByImageDto,
    status: 201,
  },
]);
