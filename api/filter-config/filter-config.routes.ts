/** Which search filters a store's storefront shows (document 2, "Catalog: categories, relations, tags, filter configuration"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { UpdateFilterConfigDto } from './filter-config.schemas';

export const filterConfigRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  { operationId: 'filterConfig.get', method: 'GET', path: '/storefront/filter-config', summary: 'The storefront filter configuration of a store', query: { storeId: storeId() }, status: 200 },
  {
    operationId: 'filterConfig.update',
    method: 'PUT',
    path: '/storefront/filter-config',
    summary: 'Replace the storefront filter configuration of a store',
    query: { storeId: storeId() },
    body: UpdateFilterConfigDto,
    status: 200,
  },
]);
