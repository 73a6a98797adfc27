/** Flash sale campaigns of a store (document 2, "Sponsored listings, pricing, flash sales, shipping"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { CreateFlashSaleCampaignDto, UpdateFlashSaleCampaignDto } from './flash-sales.schemas';

export const flashSaleRoutes = defineRoutes({ tag: 'flash-sale-campaigns', auth: 'merchant' }, [
  {
    operationId: 'flashSales.publicActive',
    method: 'GET',
    path: '/flash-sale-campaigns/public/stores/{storeId}/active',
    summary: 'Flash sale campaigns of a store running now (storefront)',
    auth: 'public',
    status: 200,
  },
  {
    operationId: 'flashSales.publicBySlug',
    method: 'GET',
    path: '/flash-sale-campaigns/public/stores/{storeId}/by-slug/{slug}',
    summary: 'One published flash sale campaign by its slug (storefront)',
    auth: 'public',
    status: 200,
  },
  { operationId: 'flashSales.list', method: 'GET', path: '/flash-sale-campaigns', summary: 'Flash sale campaigns of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'flashSales.create', method: 'POST', path: '/flash-sale-campaigns', summary: 'Create a flash sale campaign', body: CreateFlashSaleCampaignDto, status: 201 },
  { operationId: 'flashSales.get', method: 'GET', path: '/flash-sale-campaigns/{id}', summary: 'One flash sale campaign', status: 200 },
  { operationId: 'flashSales.update', method: 'PATCH', path: '/flash-sale-campaigns/{id}', summary: 'Update a flash sale campaign', body: UpdateFlashSaleCampaignDto, status: 200 },
  { operationId: 'flashSales.archive', method: 'DELETE', path: '/flash-sale-campaigns/{id}', summary: 'Archive a flash sale campaign', status: 200 },
]);
