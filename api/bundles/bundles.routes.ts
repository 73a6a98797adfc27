/** Product bundles of a store (document 2, "Brands, bundles, synonyms, visual search"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { ComputeBundlePriceDto, CreateBundleDto, UpdateBundleDto } from './bundles.schemas';

export const bundleRoutes = defineRoutes({ tag: 'bundles', auth: 'merchant' }, [
  { operationId: 'bundles.list', method: 'GET', path: '/bundles', summary: 'Bundles of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'bundles.create', method: 'POST', path: '/bundles', summary: 'Create a bundle', body: CreateBundleDto, status: 201 },
  { operationId: 'bundles.byProduct', method: 'GET', path: '/bundles/by-product/{productId}', summary: 'Bundles that contain a product', status: 200 },
  { operationId: 'bundles.get', method: 'GET', path: '/bundles/{id}', summary: 'One bundle with its items', status: 200 },
  { operationId: 'bundles.update', method: 'PATCH', path: '/bundles/{id}', summary: 'Update a bundle', body: UpdateBundleDto, status: 200 },
  { operationId: 'bundles.delete', method: 'DELETE', path: '/bundles/{id}', summary: 'Delete a bundle', status: 204 },
  { operationId: 'bundles.computePrice', method: 'POST', path: '/bundles/compute', summary: 'Compute the price of a bundle', body: ComputeBundlePriceDto, status: 200 },
]);
