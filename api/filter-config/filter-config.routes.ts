/** Which search filters a store's storefront shows (docs/catalog.md; defaults in domain/filter-config.ts). */
import { defineRoutes, type RouteRequest } from '../http/route';
import { storeId } from '../http/schema-types';
import { FilterConfigResponse, UpdateFilterConfigDto } from './filter-config.schemas';
import { getFilterConfig, updateFilterConfig, type UpdateFilterConfigInput } from './filter-config.service';

type Params = Record<string, string>;

const GET_DESCRIPTION =
  "Any member of the tenant, or an API key of the store with catalog:read; another tenant's store answers 404. A store that never saved a configuration gets the default, with updatedAt null: the facets category (checkbox), brand (checkbox), price (range), rating (rating), inStock (toggle) and discounted (toggle), in that order and all enabled, and no price buckets (`[]`). Price buckets count as configured when the saved configuration has at least one; with none (never saved, or saved as `[]`) public search derives them from the prices of the store's published products (about five ranges with rounded bounds, each holding a fair share of the products).";
const UPDATE_DESCRIPTION =
  "Any member of the tenant (owner, admin, staff), or an API key of the store with catalog:write; another tenant's store answers 404 and an archived one 409 store_archived. Replaces the whole configuration and answers it as saved (a facet's position is its index in the list). A save writes one audit entry (filter_config.update) and one outbox row (aggregate store, topic filter_config.updated); a save identical to the saved configuration writes neither. The first save always writes, even when it equals the default, so the store keeps that configuration if the default changes.";

export const filterConfigRoutes = defineRoutes({ tag: 'catalog', auth: 'merchant' }, [
  {
    operationId: 'filterConfig.get',
    method: 'GET',
    path: '/storefront/filter-config',
    summary: 'The storefront filter configuration of a store',
    description: GET_DESCRIPTION,
    query: { storeId: storeId() },
    response: FilterConfigResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params>) => getFilterConfig(req.context, req.query.storeId),
  },
  {
    operationId: 'filterConfig.update',
    method: 'PUT',
    path: '/storefront/filter-config',
    summary: 'Replace the storefront filter configuration of a store',
    description: UPDATE_DESCRIPTION,
    query: { storeId: storeId() },
    body: UpdateFilterConfigDto,
    response: FilterConfigResponse,
    status: 200,
    handler: (req: RouteRequest<Params, Params, UpdateFilterConfigInput>) => updateFilterConfig(req.context, req.query.storeId, req.body),
  },
]);
