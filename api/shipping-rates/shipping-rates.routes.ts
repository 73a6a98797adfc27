/** Shipping rates of a store and shipping quotes (document 2, "Sponsored listings, pricing, flash sales, shipping"). */
import { defineRoutes } from '../http/route';
import { storeId } from '../http/schema-types';
import { CreateShippingRateDto, QuoteShippingDto, ShippingRatesCsv, UpdateShippingRateDto } from './shipping-rates.schemas';

export const shippingRateRoutes = defineRoutes({ tag: 'shipping-rates', auth: 'merchant' }, [
  { operationId: 'shippingRates.list', method: 'GET', path: '/shipping-rates', summary: 'Shipping rates of a store', query: { storeId: storeId() }, status: 200 },
  { operationId: 'shippingRates.create', method: 'POST', path: '/shipping-rates', summary: 'Create a shipping rate', body: CreateShippingRateDto, status: 201 },
  {
    operationId: 'shippingRates.export',
    method: 'GET',
    path: '/shipping-rates/export',
    summary: 'Export the shipping rates of a store as CSV',
    query: { storeId: storeId() },
    response: ShippingRatesCsv,
    status: 200,
  },
  { operationId: 'shippingRates.update', method: 'PATCH', path: '/shipping-rates/{id}', summary: 'Update a shipping rate', body: UpdateShippingRateDto, status: 200 },
  { operationId: 'shippingRates.delete', method: 'DELETE', path: '/shipping-rates/{id}', summary: 'Delete a shipping rate', status: 204 },
  {
    operationId: 'shippingRates.publicQuote',
    method: 'POST',
    path: '/shipping-rates/public/stores/{storeId}/quote',
    summary: 'Quote the shipping options and costs for a cart (storefront)',
    auth: 'public',
    body: QuoteShippingDto,
    status: 200,
  },
]);
